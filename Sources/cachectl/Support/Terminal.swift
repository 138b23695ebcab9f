import Foundation

/// Standard output and error, and whether a person is watching.
enum Terminal {
    /// Whether standard error is a terminal: progress bars are drawn only then, never into logs or pipes.
    static var standardErrorIsInteractive: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes `text` and a newline to standard output at once.
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error, prefixed so it stands out in a pipeline.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data("cachectl: \(text)\n".utf8))
    }

    /// Writes raw text to standard error (progress drawing).
    static func writeToStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
