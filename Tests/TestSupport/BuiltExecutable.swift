import Foundation

/// The package's executables (`storage-worker`, `cachectl` …), where `swift build` put them: beside
/// the test binary on Linux, beside the `.xctest` bundle on Apple platforms. Found without `/proc`.
public enum BuiltExecutable {
    /// The executable product `name` built with the tests.
    public static func named(_ name: String) -> URL {
        productsDirectory.appendingPathComponent(name)
    }

    /// The folder the build wrote its products to.
    public static let productsDirectory: URL = {
        #if canImport(Darwin)
        // The tests run inside a bundle that xctest loads; the products sit beside the bundle.
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return executable.resolvingSymlinksInPath().deletingLastPathComponent()
    }()
}
