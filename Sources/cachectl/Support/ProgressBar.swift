import Foundation

/// A one-line progress bar on standard error, drawn only when standard error is a terminal, so
/// scripts and logs never see it. Redraws at most ten times a second.
///
/// ```swift
/// let progress = ProgressBar(label: "export", total: entries.count)
/// for entry in entries { …; progress.advance(bytes: entry.byteCount) }
/// progress.finish()
/// ```
final class ProgressBar: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`.
    private let label: String
    private let total: Int?
    private let isVisible: Bool
    private let started = Date()
    private let lock = NSLock()
    private var done = 0
    private var bytes = 0
    private var lastDrawn = Date.distantPast
    private var ticker: Task<Void, Never>?

    /// A bar for `total` steps; with no total it shows a spinner and the elapsed time, redrawn
    /// by itself, for work that reports no progress (verify).
    init(label: String, total: Int?, visible: Bool = Terminal.standardErrorIsInteractive) {
        self.label = label
        self.total = total
        isVisible = visible
        guard visible, total == nil else { return }
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                self?.draw(force: true)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Counts `steps` more steps done and `bytes` more bytes handled.
    func advance(by steps: Int = 1, bytes addedBytes: Int = 0) {
        lock.withLock {
            done += steps
            bytes += addedBytes
        }
        draw(force: false)
    }

    /// Erases the bar, leaving the terminal as it was.
    func finish() {
        ticker?.cancel()
        guard isVisible else { return }
        lock.withLock { Terminal.writeToStandardError("\r\u{1B}[2K") }
    }

    private func draw(force: Bool) {
        guard isVisible else { return }
        lock.withLock {
            let now = Date()
            guard force || now.timeIntervalSince(lastDrawn) >= 0.1 || done == total else { return }
            lastDrawn = now
            Terminal.writeToStandardError("\r\u{1B}[2K" + line(now: now))
        }
    }

    private func line(now: Date) -> String {
        let elapsed = TimeSpan.format(now.timeIntervalSince(started))
        let volume = bytes > 0 ? "  \(ByteSize.format(bytes))" : ""
        guard let total, total > 0 else {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            let frame = frames[Int(now.timeIntervalSince(started) * 5) % frames.count]
            return "\(label) \(frame) \(elapsed)"
        }
        let width = 30
        let filled = min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return "\(label) \(bar) \(done)/\(total)\(volume)  \(elapsed)"
    }
}
