import ArgumentParser

/// The exit statuses every subcommand uses, as `cachectl --help` documents them.
enum ExitStatus: Int32 {
    /// The command did what was asked and found nothing wrong.
    case success = 0
    /// The command ran and found a problem: damage `verify` found, files `import` refused,
    /// URLs `warm` could not cache, a key `show` does not know.
    case problemsFound = 1
    /// The command could not run: a bad argument, no cache at the path, a store another process
    /// holds (compact), an unreadable folder.
    case couldNotRun = 2

    /// The status as ArgumentParser's exit code, for throwing out of `run()`.
    var exitCode: ExitCode { ExitCode(rawValue) }
}
