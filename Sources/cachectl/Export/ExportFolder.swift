import CacheStorage
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The export folder: checked before anything is written, and written only directly inside,
/// through one descriptor of it.
///
/// An export holds the cache's images, and their keys in the file names: the folder and files
/// are made with the modes the store's ``FileSharing`` gives its own (0700 and 0600 by default),
/// and an existing folder is used only when it is this user's and nobody the store does not share
/// with may write in it, so no one can plant a link or a file under an export, nor read it there.
final class ExportFolder {
    let url: URL
    private let descriptor: Int32
    private let fileMode: mode_t

    /// Creates `url` (and its missing parents) when missing; refuses a folder that holds anything,
    /// is not a folder (a symbolic link is not followed), belongs to another user, or may be
    /// written by users `sharing` does not include.
    init(preparing url: URL, sharing: FileSharing) throws(CommandFailure) {
        let path = url.path
        do {
            try CheckedPath.createFolder(path, mode: sharing.directoryMode)
            descriptor = try CheckedPath.openFolder(path)
        } catch let .unexpectedFileType(_, found, _) {
            throw .fileSystem(path: path, action: "export into", reason: "it is a \(found), not a folder")
        } catch {
            throw .storage(error)
        }
        self.url = url
        fileMode = sharing.fileMode
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .fileSystem(path: path, action: "export into", reason: String(cString: strerror(errno)))
        }
        guard info.st_uid == geteuid() else {
            throw .unsafeExportFolder(path: path, reason: "it belongs to another user")
        }
        guard info.st_mode & 0o022 & ~sharing.directoryMode == 0 else {
            throw .unsafeExportFolder(path: path, reason: "users other than its owner may write in it")
        }
        guard isEmpty else { throw .exportFolderNotEmpty(path: path) }
    }

    deinit {
        close(descriptor)
    }

    /// Whether the folder holds nothing, read through the descriptor.
    private var isEmpty: Bool {
        guard let listing = fdopendir(dup(descriptor)) else { return false }
        defer { closedir(listing) }
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// Writes `data` as `name` directly inside the folder, never replacing a file.
    ///
    /// `name` comes from ``ExportFileNamer`` or is fixed; the check below is the last line of
    /// defence, so a bug there can never write outside the folder.
    func write(_ data: Data, named name: String) throws(CommandFailure) {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw .fileSystem(path: name, action: "export", reason: "not a plain file name")
        }
        let path = url.appendingPathComponent(name, isDirectory: false).path
        // Relative to the folder's descriptor, so the folder checked is the folder written; O_EXCL
        // and O_NOFOLLOW: a file or link already at the name is refused, never written through.
        let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard file >= 0 else {
            throw .fileSystem(path: path, action: "create", reason: String(cString: strerror(errno)))
        }
        defer { close(file) }
        CheckedPath.setMode(of: file, to: fileMode)
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { bytes in
                systemWrite(file, bytes.baseAddress! + offset, bytes.count - offset)
            }
            guard written > 0 else {
                throw .fileSystem(path: path, action: "write", reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}

/// `write(2)`, named so that it is not taken for ``ExportFolder/write(_:named:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
