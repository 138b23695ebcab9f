import Foundation

/// A failed check: `setup` when it was a setup check (the test's premise did not hold).
struct CheckFailure: Error {
    let setup: Bool
    let message: String

    /// A failure in upstream's terms: an error name and its message.
    var outcome: TestOutcome { .failed(name: setup ? "Setup" : "Assertion", message: message) }

    /// Fails with `message` unless `condition` holds.
    static func require(_ condition: Bool, setup: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CheckFailure(setup: setup, message: message()) }
    }
}

/// What upstream's JavaScript throws when a check reads a log entry that does not exist.
struct MissingLogEntry: Error {
    let property: String

    var outcome: TestOutcome {
        .failed(name: "TypeError", message: "Cannot read properties of undefined (reading '\(property)')")
    }
}
