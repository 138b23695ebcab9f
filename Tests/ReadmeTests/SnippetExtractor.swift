import Foundation

/// Turns the README's ```swift blocks into ``ReadmeSnippets.swift``: each block's `import` lines
/// go to the top of the file, the rest becomes the body of a `SnippetContext` method.
enum SnippetExtractor {
    static func snippets(in readme: String) -> [String] {
        var snippets: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                snippets.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return snippets
    }

    static func file(fromReadme readme: String) -> String {
        let snippets = snippets(in: readme)
        var imports: Set<String> = ["import Foundation"]
        var bodies: [String] = []
        var entries: [String] = []
        for (index, snippet) in snippets.enumerated() {
            var body: [String] = []
            for line in snippet.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("import ") {
                    // The module name only, without a trailing comment.
                    imports.insert("import " + line.dropFirst(7).prefix { $0 != " " })
                } else {
                    body.append(line.isEmpty ? "" : "        " + line)
                }
            }
            while body.first == "" { body.removeFirst() }
            bodies.append(
                "    /// README snippet \(index).\n    func snippet\(index)() async throws {\n" + body.joined(separator: "\n")
                    + "\n    }")
            let shared = snippet.contains("ImagePipeline.shared")
            let shows = snippet.contains("show(")
            entries.append(
                "        ReadmeSnippet(usesSharedPipeline: \(shared), shows: \(shows)) { try await $0.snippet\(index)() },")
        }
        return """
            // Generated from README.md by ReadmeSnippetsTests (README_SNIPPETS_RECORD=1); do not edit.
            \(imports.sorted().joined(separator: "\n"))

            extension SnippetContext {
            \(bodies.joined(separator: "\n\n"))
            }

            enum ReadmeSnippets {
                static let all: [ReadmeSnippet] = [
            \(entries.joined(separator: "\n"))
                ]
            }

            """
    }
}

/// One snippet, ready to run.
struct ReadmeSnippet: Sendable {
    let usesSharedPipeline: Bool
    let shows: Bool
    let run: @Sendable (SnippetContext) async throws -> Void
}
