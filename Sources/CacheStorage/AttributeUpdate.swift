/// What ``PersistentStore/updateAttributes(for:to:ifBytesAre:)`` did.
public enum AttributeUpdate: Sendable, Hashable {
    /// The entry held the bytes named, and has the new attributes.
    case updated
    /// There is no entry for the key.
    case missing
    /// The entry holds other bytes (another writer, perhaps another process, stored a newer
    /// response meanwhile): its attributes were left as they were, since they describe those bytes.
    case bytesChanged
}
