#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One address a source host resolved to, and whether it is one the proxy refuses to fetch from
/// by default: a fetch there would reach the proxy's own machine or network, not the internet.
struct SourceAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]

    /// Loopback, private (RFC 1918, unique local), link-local, carrier-grade NAT, unspecified,
    /// multicast or reserved; IPv4-mapped, IPv4-compatible and NAT64 (64:ff9b::/96) IPv6
    /// addresses are judged by the IPv4 address they carry.
    var isInternal: Bool {
        if bytes.count == 16 {
            let prefix = bytes[0..<12]
            let embedded = Array(bytes[12..<16])
            let isMapped = prefix.prefix(10).allSatisfy { $0 == 0 } && prefix.suffix(2).allSatisfy { $0 == 0xFF }
            let isCompatible = prefix.allSatisfy { $0 == 0 } && embedded.contains { $0 != 0 } && bytes != Self.ipv6Loopback
            let isNAT64 = Array(prefix) == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
            if isMapped || isCompatible || isNAT64 { return SourceAddress(bytes: embedded).isInternal }
            if bytes == Self.ipv6Loopback || bytes.allSatisfy({ $0 == 0 }) { return true }
            if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return true }  // fec0::/10 site-local (deprecated)
            if bytes[0] == 0xFF { return true }  // multicast
            return false
        }
        guard bytes.count == 4 else { return true }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return true
        case 100 where b & 0xC0 == 64: return true  // 100.64.0.0/10
        case 169 where b == 254: return true
        case 172 where b & 0xF0 == 16: return true
        case 192 where b == 168: return true
        case 192 where b == 0 && bytes[2] == 0: return true  // 192.0.0.0/24
        case 198 where b & 0xFE == 18: return true  // 198.18.0.0/15 benchmarking
        case 224...255: return true  // multicast, reserved, broadcast
        default: return false
        }
    }

    private static let ipv6Loopback = Array(repeating: UInt8(0), count: 15) + [1]

    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &raw, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every address `host` resolves to, through the system resolver (a blocking call: run it off
    /// the cooperative pool). Empty when it does not resolve.
    static func resolve(_ host: String) -> [SourceAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [SourceAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                        withUnsafeBytes(of: ipv4.pointee.sin_addr) { addresses.append(SourceAddress(bytes: Array($0))) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                        withUnsafeBytes(of: ipv6.pointee.sin6_addr) { addresses.append(SourceAddress(bytes: Array($0))) }
                    }
                default: break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return Array(Set(addresses))
    }
}
