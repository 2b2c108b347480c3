/// A compact, contiguous copy of what searches filter and sort on (owner, clean tags, dates,
/// views, the searchable text), kept in step with the photo table on every change. A search over 100,000 photos
/// scans these rows instead of chasing each photo's heap objects, and reads a photo only when
/// its row passes (``PhotoQuery/candidateRows(in:)``).
struct PhotoSearchIndex: Sendable {
    struct Row: Sendable {
        var id: String
        /// Index into the owner numbering; -1 for a removed photo.
        var owner: Int32
        var posted: Int
        var taken: Int
        var views: Int
        /// What `text=` searches (``PhotoQuery/searchText(of:)``).
        var text: String
        /// The photo's clean-tag numbers: `tagPool[tagStart ..< tagStart + tagCount]`.
        var tagStart: Int32
        var tagCount: Int32
    }

    private(set) var rows: [Row] = []
    private var rowOf: [String: Int] = [:]
    private var tagPool: [Int32] = []
    /// Pool entries no row points at any more (compacted when they outnumber the live ones).
    private var garbage = 0
    private var tagNumbers: [String: Int32] = [:]
    private var ownerNumbers: [String: Int32] = [:]

    /// The number of a clean tag, nil when no photo ever carried it.
    func tagNumber(_ clean: String) -> Int32? { tagNumbers[clean] }

    /// The number of an owner, nil when they never owned a photo.
    func ownerNumber(_ nsid: String) -> Int32? { ownerNumbers[nsid] }

    /// The clean-tag numbers of row `r`.
    func tags(ofRow r: Int) -> ArraySlice<Int32> {
        let row = rows[r]
        return tagPool[Int(row.tagStart)..<Int(row.tagStart + row.tagCount)]
    }

    /// Records the new value of photo `id` (nil: removed).
    mutating func set(_ id: String, _ photo: SandboxPhoto?) {
        if let r = rowOf[id] {
            garbage += Int(rows[r].tagCount)
            guard let photo else {
                rows[r].owner = -1
                rows[r].tagCount = 0
                rowOf[id] = nil
                return
            }
            rows[r] = row(for: photo)
        } else if let photo {
            rowOf[id] = rows.count
            rows.append(row(for: photo))
        }
        if garbage > 1024, garbage > tagPool.count / 2 { compact() }
    }

    private mutating func row(for photo: SandboxPhoto) -> Row {
        let start = Int32(tagPool.count)
        for tag in photo.tags { tagPool.append(number(tag.clean, in: &tagNumbers)) }
        return Row(id: photo.id, owner: number(photo.owner, in: &ownerNumbers), posted: photo.datePosted,
                   taken: SandboxDates.parse(photo.dateTaken) ?? photo.datePosted, views: photo.views,
                   text: PhotoQuery.searchText(of: photo),
                   tagStart: start, tagCount: Int32(tagPool.count) - start)
    }

    private func number(_ key: String, in table: inout [String: Int32]) -> Int32 {
        if let n = table[key] { return n }
        let n = Int32(table.count)
        table[key] = n
        return n
    }

    /// Rewrites the tag pool without the entries of changed or removed photos.
    private mutating func compact() {
        var pool: [Int32] = []
        pool.reserveCapacity(tagPool.count - garbage)
        for r in rows.indices {
            let start = Int32(pool.count)
            pool += tagPool[Int(rows[r].tagStart)..<Int(rows[r].tagStart + rows[r].tagCount)]
            rows[r].tagStart = start
        }
        tagPool = pool
        garbage = 0
    }
}

/// The photo table: photos by id, the keys changed since the last commit, and the search index.
struct PhotoTable: Sendable, Hashable, Codable, EmptyInitializable, ExpressibleByDictionaryLiteral {
    private var table: TrackedTable<SandboxPhoto>
    /// Derived from the photos, never stored.
    private(set) var index = PhotoSearchIndex()

    init() { table = TrackedTable() }

    init(dictionaryLiteral elements: (String, SandboxPhoto)...) {
        table = TrackedTable()
        for (id, photo) in elements { self[id] = photo }
    }

    init(from decoder: any Decoder) throws {
        table = try TrackedTable(from: decoder)
        for (id, photo) in table.storage { index.set(id, photo) }
    }

    func encode(to encoder: any Encoder) throws { try table.encode(to: encoder) }

    static func == (a: Self, b: Self) -> Bool { a.table == b.table }
    func hash(into hasher: inout Hasher) { hasher.combine(table) }

    subscript(id: String) -> SandboxPhoto? {
        get { table[id] }
        set {
            table[id] = newValue
            index.set(id, newValue)
        }
    }

    var values: Dictionary<String, SandboxPhoto>.Values { table.values }
    var keys: Dictionary<String, SandboxPhoto>.Keys { table.keys }
    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }

    /// The ids set or removed since the last call, and forgets them.
    mutating func takeChanges() -> Set<String> { table.takeChanges() }
}
