#if os(Linux)
import Foundation
import Glibc

/// One end of the socket between the app and a decode worker: whole messages, each behind its
/// length, sent and received before a deadline (the app's end) or without one (the worker's).
///
/// Sends never raise `SIGPIPE`: a worker that died leaves a closed socket, which is an error here,
/// not a signal that would end the app.
struct DecodeSocket: Sendable {
    let descriptor: Int32

    /// Why a message did not get through.
    enum Failure: Error {
        /// The other end closed the socket (the worker died, or the app went away).
        case closed
        /// The deadline passed first.
        case timedOut
        /// The length before a message is not one a job or a reply can have.
        case malformed
    }

    /// The largest message either end accepts: a job's bytes or a reply's pixels, with room for a
    /// decode at the pixel limit.
    static let maxMessageBytes = 1 << 34

    func send(_ message: Data, deadline: ContinuousClock.Instant?) throws(Failure) {
        var length = Int64(message.count).littleEndian
        try withUnsafeBytes(of: &length) { bytes in Result { () throws(Failure) in try sendAll(bytes, deadline: deadline) } }.get()
        try message.withUnsafeBytes { bytes in Result { () throws(Failure) in try sendAll(bytes, deadline: deadline) } }.get()
    }

    func receive(deadline: ContinuousClock.Instant?) throws(Failure) -> Data {
        var length: Int64 = 0
        try withUnsafeMutableBytes(of: &length) { bytes in
            Result { () throws(Failure) in try receiveAll(bytes, deadline: deadline) }
        }.get()
        let count = Int(Int64(littleEndian: length))
        guard count >= 0, count <= Self.maxMessageBytes else { throw .malformed }
        var message = Data(count: count)
        try message.withUnsafeMutableBytes { bytes in
            Result { () throws(Failure) in try receiveAll(bytes, deadline: deadline) }
        }.get()
        return message
    }

    private func sendAll(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(Failure) {
        guard let base = bytes.baseAddress else { return }
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT), until: deadline)
            let count = Glibc.send(descriptor, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if count > 0 {
                sent += count
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                throw .closed
            }
        }
    }

    private func receiveAll(_ bytes: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(Failure) {
        guard let base = bytes.baseAddress else { return }
        var received = 0
        while received < bytes.count {
            try wait(for: Int16(POLLIN), until: deadline)
            let count = recv(descriptor, base + received, bytes.count - received, Int32(MSG_DONTWAIT))
            if count > 0 {
                received += count
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                throw .closed
            }
        }
    }

    /// Waits until the socket is ready for `events` (or closed, which the next call reports), or
    /// the deadline passes.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant?) throws(Failure) {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { throw .timedOut }
                let (seconds, attoseconds) = left.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var poller = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&poller, 1, timeout)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .closed }
        }
    }
}
#endif
