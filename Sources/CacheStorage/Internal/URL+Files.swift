import Foundation

extension URL {
    /// The file's size in bytes, or nil when it does not exist.
    var fileSize: Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    var isExistingNonDirectory: Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// Whether a symbolic link stands here.
    var isSymbolicLink: Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
