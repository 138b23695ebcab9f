import Foundation

extension PersistentStore {
    /// The environment variable that overrides ``defaultDirectory``: `SWIFT_IMAGE_CACHE_PATH`.
    public static let directoryEnvironmentVariable = "SWIFT_IMAGE_CACHE_PATH"

    /// Where a cache lives when nobody says otherwise; apps and `cachectl` agree on it, so the tool
    /// finds an app's cache without `--path`.
    ///
    /// In order:
    /// 1. `$SWIFT_IMAGE_CACHE_PATH`, when set and not empty;
    /// 2. on Apple platforms, `swift-image-cache` inside the user's Caches directory (the app's
    ///    container for a sandboxed app);
    /// 3. elsewhere, `$XDG_CACHE_HOME/swift-image-cache` when `XDG_CACHE_HOME` is an absolute path
    ///    (the XDG Base Directory rule), else `$HOME/.cache/swift-image-cache`.
    ///
    /// Reading it creates nothing; ``init(directory:configuration:)`` creates the folder.
    ///
    /// ```swift
    /// let store = try PersistentStore(directory: PersistentStore.defaultDirectory)
    /// ```
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let override = environment[directoryEnvironmentVariable], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        return platformCachesDirectory(environment: environment)
            .appendingPathComponent("swift-image-cache", isDirectory: true)
    }

    private static func platformCachesDirectory(environment: [String: String]) -> URL {
        #if canImport(Darwin)
        if let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first {
            return caches
        }
        #endif
        // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        // $HOME first, as shells and XDG libraries do; the password database only without it.
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache", isDirectory: true)
    }
}
