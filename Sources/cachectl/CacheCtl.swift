import ArgumentParser

/// `cachectl`: inspect and manage a swift-image-cache store on disk.
@main
struct CacheCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cachectl",
        abstract: "Inspect and manage a swift-image-cache store on disk.",
        discussion: """
            Exit codes: 0 success, 1 the command ran and found a problem, 2 the command could not run.
            """,
        subcommands: [BenchCommand.self]
    )
}
