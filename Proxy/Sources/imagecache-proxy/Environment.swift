import Foundation

/// Settings from the environment: every option of `serve` has an `IMAGECACHE_PROXY_…` variable,
/// which the command line overrides.
enum Environment {
    static func string(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func int(_ name: String) -> Int? { string(name).flatMap(Int.init) }

    static func double(_ name: String) -> Double? { string(name).flatMap(Double.init) }

    static func flag(_ name: String) -> Bool { ["1", "true", "yes"].contains(string(name)?.lowercased() ?? "") }

    static func list(_ name: String) -> [String] {
        string(name)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
    }
}
