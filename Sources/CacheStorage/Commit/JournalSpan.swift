/// The journal sequences one writer wrote without another commit between: those after `after`,
/// through `through` (none when they are equal). See ``StoreMirror``.
struct JournalSpan: Equatable {
    let after: UInt64
    let through: UInt64
}
