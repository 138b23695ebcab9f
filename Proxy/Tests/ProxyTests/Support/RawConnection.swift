import Foundation

/// One TCP connection to 127.0.0.1, spoken to in raw HTTP/1.1 bytes, for what a client library
/// hides: requests sent back to back before any answer, and whether the server closed the
/// connection. Its blocking calls run on a thread of its own, never on Swift's pool.
enum RawConnection {
    /// What came back: the responses parsed from the bytes, and whether the server closed.
    struct Exchange: Sendable {
        var responses: [Fetched]
        var closedByServer: Bool
    }

    /// Connects to `port`, writes `requests` in one write, and reads until `expected` responses
    /// have arrived and then, when `untilClosed`, until the server closes (at most `timeout`).
    static func exchange(
        port: Int, _ requests: String, expecting expected: Int, untilClosed: Bool = false, timeout: TimeInterval = 60
    ) async throws -> Exchange {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result { try run(port: port, requests, expected: expected, untilClosed: untilClosed, timeout: timeout) })
            }
            thread.start()
        }
    }

    private static func run(port: Int, _ requests: String, expected: Int, untilClosed: Bool, timeout: TimeInterval) throws
        -> Exchange
    {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawConnectionError.failed("socket", errno) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RawConnectionError.failed("connect", errno) }
        let bytes = Array(requests.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RawConnectionError.failed("send", errno) }
            sent += count
        }
        var received = Data()
        var closed = false
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while Date() < deadline {
            if !untilClosed, (try? HTTPResponseParser.parse(received).count) ?? 0 >= expected { break }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                closed = true
                break
            }
            received.append(contentsOf: buffer[..<count])
        }
        return Exchange(responses: try HTTPResponseParser.parse(received), closedByServer: closed)
    }
}

enum RawConnectionError: Error {
    case failed(String, Int32)
    case malformed(String)
}

/// HTTP/1.1 responses framed by `Content-Length` (or none, for a 304), parsed from raw bytes.
enum HTTPResponseParser {
    static func parse(_ data: Data) throws -> [Fetched] {
        var responses: [Fetched] = []
        var rest = data[...]
        let separator = Data("\r\n\r\n".utf8)
        while let end = rest.range(of: separator) {
            let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            guard let statusLine = head.first, let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
            else { throw RawConnectionError.malformed(head.first ?? "") }
            var fields: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = status == 304 ? 0 : Int(fields["content-length"] ?? "0") ?? 0
            guard rest[end.upperBound...].count >= length else { break }
            let bodyEnd = rest.index(end.upperBound, offsetBy: length)
            responses.append(Fetched(status: status, headers: fields, body: Data(rest[end.upperBound..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return responses
    }
}
