import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `import` looks at and reads a file it was pointed to, without ever blocking on one.
///
/// A FIFO, a device or a socket named in a manifest or found in the folder would hang or stream
/// forever if opened like a file, so kinds are checked with `lstat` before anything is opened,
/// and again with `fstat` on the descriptor (opened non-blocking, never through a final symlink),
/// so a file swapped for a FIFO in between is refused too.
enum ImportFile {
    /// What is at a path, as `lstat` sees it (a symbolic link is not followed).
    enum Kind: Equatable {
        case regular
        case folder
        case symbolicLink
        /// Anything else, named for a person: "a FIFO", "a socket" …
        case other(String)
        /// Nothing, or nothing `lstat` could reach.
        case missing

        /// The article-and-noun a refusal uses.
        var name: String {
            switch self {
            case .regular: "a regular file"
            case .folder: "a folder"
            case .symbolicLink: "a symbolic link"
            case let .other(name): name
            case .missing: "a missing file"
            }
        }

        fileprivate init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: self = .regular
            case S_IFDIR: self = .folder
            case S_IFLNK: self = .symbolicLink
            case S_IFIFO: self = .other("a FIFO (named pipe)")
            case S_IFSOCK: self = .other("a socket")
            case S_IFCHR: self = .other("a character device")
            case S_IFBLK: self = .other("a block device")
            default: self = .other("not a regular file")
            }
        }
    }

    /// Why a file was not read.
    enum ReadFailure: Error {
        case notRegular(Kind)
        case tooLarge(byteCount: Int)
        case unreadable(String)
    }

    /// The kind of thing at `path`, without following a symbolic link there.
    static func kind(atPath path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        return Kind(mode: info.st_mode)
    }

    /// The bytes and modification time of the regular file at `file`; refuses anything else, and
    /// files over `maxBytes`, before reading their contents.
    static func read(_ file: URL, maxBytes: Int) throws(ReadFailure) -> (data: Data, modified: Date) {
        let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            // O_NOFOLLOW reports a final symbolic link as ELOOP.
            if code == ELOOP { throw .notRegular(.symbolicLink) }
            throw .unreadable(String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        let kind = Kind(mode: info.st_mode)
        guard kind == .regular else { throw .notRegular(kind) }
        guard Int(info.st_size) <= maxBytes else { throw .tooLarge(byteCount: Int(info.st_size)) }
        var data = Data()
        data.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            data.append(contentsOf: buffer[..<count])
            // A file that grows while it is read is held to the same limit.
            guard data.count <= maxBytes else { throw .tooLarge(byteCount: data.count) }
        }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        let modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
        return (data, modified)
    }
}

/// `read(2)`, named apart from ``ImportFile/read(_:maxBytes:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
