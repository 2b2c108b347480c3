import Foundation

/// A page row's space-separated columns split into words without making strings: each word is
/// a slice of SQLite's buffer for the row (valid until the statement steps). The arrays are
/// kept from row to row, so a page of 8,000 photos allocates them once.
struct PageWords {
    /// The tags' clean forms: each word once, in the listing's order.
    private(set) var plain: [UnsafeRawBufferPointer] = []
    /// The machine tags' clean forms: each word once, none that is also a tag.
    private(set) var machine: [UnsafeRawBufferPointer] = []
    /// The photo's set ids, bytewise in order (as `ORDER BY photoset` sorts them).
    private(set) var sets: [UnsafeRawBufferPointer] = []

    /// The clean forms as ``LibrarySync/writeTags(_:_:)`` stores them and ``LibraryStore/records(_:)``
    /// reads them back: each word once, in order; a word in both lists is a tag.
    mutating func cleanTags(_ tags: UnsafeRawBufferPointer, _ machineTags: UnsafeRawBufferPointer) {
        plain.removeAll(keepingCapacity: true)
        machine.removeAll(keepingCapacity: true)
        Self.split(tags) { word in
            if !plain.contains(where: { Self.equal($0, word) }) { plain.append(word) }
        }
        Self.split(machineTags) { word in
            if !plain.contains(where: { Self.equal($0, word) }), !machine.contains(where: { Self.equal($0, word) }) { machine.append(word) }
        }
    }

    /// The set ids of `joined` (group_concat's, space-separated), sorted bytewise.
    mutating func setIDs(_ joined: UnsafeRawBufferPointer) {
        sets.removeAll(keepingCapacity: true)
        Self.split(joined) { sets.append($0) }
        if sets.count > 1 { sets.sort(by: Self.precedes) }
    }

    /// Calls `body` with each non-empty run of bytes between spaces.
    static func split(_ text: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        for i in 0...text.count where i == text.count || text[i] == UInt8(ascii: " ") {
            if i > start { body(UnsafeRawBufferPointer(rebasing: text[start..<i])) }
            start = i + 1
        }
    }

    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// Bytewise order (SQLite's BINARY collation).
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order < 0 || (order == 0 && a.count < b.count)
    }
}
