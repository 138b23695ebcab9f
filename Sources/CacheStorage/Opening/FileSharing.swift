/// Who may open the files a store creates.
public enum FileSharing: Sendable, Hashable {
    /// The owner only: the folder 0700, every file 0600 (the default). Images a user fetched with
    /// their own credentials stay theirs on a shared machine.
    case owner
    /// The owner and the folder's group: 0770 and 0660, for a cache shared between an app and its
    /// extensions or a service account.
    case group

    /// The mode of folders the store creates.
    package var directoryMode: mode_t { self == .owner ? 0o700 : 0o770 }
    /// The mode of files the store creates.
    package var fileMode: mode_t { self == .owner ? 0o600 : 0o660 }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
