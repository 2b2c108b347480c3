/// How one ordered list of the world (users, photosets, favourites, galleries, …) sits in
/// `--state`'s `item` table: a row per element, ordered by a sequence number. Only the
/// elements a call changed are written: the lists are compared element by element from both
/// ends (an unchanged element shares its storage with the last committed copy, so comparing
/// it is cheap), and the changed stretch in between is replaced by rows numbered inside the
/// gap its neighbours leave; only when no gap is left is the whole list renumbered.
struct StoredList: Sendable {
    /// The rows to write for one list, and its new sequence numbers.
    struct Change: Sendable {
        /// Sequence numbers to delete.
        var deleted: [Int64] = []
        /// Rows to insert: sequence number and element index in the new list.
        var inserted: [(seq: Int64, index: Int)] = []
        /// Whether every row of the list is replaced (the first write, or a renumbering).
        var rewritten = false

        var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty && !rewritten }
    }

    /// Distance between consecutive sequence numbers when a list is (re)numbered.
    static let spacing: Int64 = 1 << 20

    /// The sequence number of each element of the last committed list.
    private(set) var seqs: [Int64]

    init(seqs: [Int64] = []) { self.seqs = seqs }

    /// Numbers `count` elements from scratch.
    static func numbered(_ count: Int) -> [Int64] { (0..<Int64(count)).map { ($0 + 1) * spacing } }

    /// The change from `old` (as last committed, numbered by ``seqs``) to `new`, and the
    /// sequence numbers of `new` from now on.
    mutating func change<Element: Equatable>(from old: [Element]?, to new: [Element]) -> Change {
        guard let old, old.count == seqs.count else { return renumber(new.count) }
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let removed = prefix..<(old.count - suffix)
        let added = prefix..<(new.count - suffix)
        if removed.isEmpty, added.isEmpty { return Change() }
        // Everything replaced: number afresh. Else the new rows go strictly between the kept
        // neighbours' numbers (before the first kept row, or after the last one).
        if prefix == 0, suffix == 0 { return renumber(new.count) }
        let room = Int64(added.count + 1) * Self.spacing
        let lowBound = prefix > 0 ? seqs[prefix - 1] : seqs[old.count - suffix] - room
        let highBound = suffix > 0 ? seqs[old.count - suffix] : lowBound + room
        let step = (highBound - lowBound) / Int64(added.count + 1)
        guard added.isEmpty || step >= 1 else { return renumber(new.count) }
        var change = Change()
        change.deleted = Array(seqs[removed])
        var middle: [Int64] = []
        for (k, index) in added.enumerated() {
            let seq = lowBound + step * Int64(k + 1)
            middle.append(seq)
            change.inserted.append((seq, index))
        }
        seqs.replaceSubrange(removed, with: middle)
        return change
    }

    private mutating func renumber(_ count: Int) -> Change {
        seqs = Self.numbered(count)
        var change = Change()
        change.rewritten = true
        change.inserted = seqs.enumerated().map { ($1, $0) }
        return change
    }
}
