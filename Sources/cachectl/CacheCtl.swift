import ArgumentParser
import Foundation

/// `cachectl`: inspect and manage a swift-image-cache store on disk.
@main
struct CacheCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cachectl",
        abstract: "Inspect and manage a swift-image-cache store on disk.",
        discussion: """
            Every subcommand takes --path DIR; without it, the library's default cache location \
            ($SWIFT_IMAGE_CACHE_PATH, else $XDG_CACHE_HOME/swift-image-cache or \
            ~/.cache/swift-image-cache). Every subcommand is safe while an app has the cache open \
            and is writing to it; only compact needs the cache to itself. Output is for people \
            unless --json is given; progress bars appear only when standard error is a terminal.

            Exit codes: 0 success, 1 the command ran and found a problem (damage, refused files, \
            failed URLs, an unknown key), 2 the command could not run (bad arguments, no cache, \
            the cache in use by another process for compact).

            Example:
              cachectl stats --path ~/.cache/swift-image-cache
            """,
        subcommands: [
            StatsCommand.self, ListCommand.self, ShowCommand.self, PurgeCommand.self, ExportCommand.self,
            ImportCommand.self, VerifyCommand.self, CompactCommand.self, WarmCommand.self, BenchCommand.self,
        ]
    )

    /// Runs the subcommand and maps every way out to the documented exit statuses: usage errors
    /// exit 2 (ArgumentParser's own default is 64), failures print one sentence on standard error.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            if case .problemsReported = failure {} else { Terminal.printError(failure.description) }
            Foundation.exit(failure.exitStatus.rawValue)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }  // --help and friends print and exit 0
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            } else {
                Terminal.printError(CommandFailure(error).description)
            }
            Foundation.exit(ExitStatus.couldNotRun.rawValue)
        }
    }
}
