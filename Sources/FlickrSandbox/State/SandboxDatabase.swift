import Foundation
import GRDB
import Synchronization

/// `--state DIR`'s durable store: `DIR/state.sqlite`, in WAL mode with `synchronous=FULL`, so a
/// write is on disk before its answer leaves and `kill -9` at any moment keeps every answered
/// write.
///
/// A commit writes what the call changed, in one transaction, and nothing else: a row per photo
/// (`photo`), per tag number (`tag_number`), per element of each list of the world (`item`:
/// users, photosets, favourites, galleries, groups, testimonials, blog posts, in order), per
/// key of each table (`entry`: tokens, frobs, tickets, set comments), and one row of scalars
/// (`world`, key `meta`). The cost of a write follows the call, not the size of the world.
/// A database written by an earlier version keeps everything but the photos and tag numbers in
/// one JSON document (`world`, key `rest`); it loads as it is and is split into rows by the
/// first commit.
final class SandboxDatabase: Sendable {
    private let queue: DatabaseQueue
    /// What the database holds besides photos and tag numbers, as last committed.
    private let committed = Mutex(Committed())

    /// The sections last written and the sequence numbers of their lists' rows.
    private struct Committed: Sendable {
        /// Nil before the first commit of a new or earlier-version database: everything is written.
        var sections: WorldSections?
        var lists: [WorldSections.List: StoredList] = [:]
        /// The earlier version's single document is still there (deleted by the next commit).
        var hasRestDocument = false
    }

    /// Opens (creating) the database at `path`.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            // WAL: one fsync per commit, readers never block the writer.
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS photo (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS tag_number (clean TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS world (key TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS item (list TEXT NOT NULL, seq INTEGER NOT NULL, body BLOB NOT NULL,
                                                 PRIMARY KEY (list, seq)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS entry (tbl TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL,
                                                  PRIMARY KEY (tbl, key)) WITHOUT ROWID;
                """)
        }
    }

    /// The stored world, or nil when the database is new.
    func load() throws -> SandboxState? {
        try queue.read { db -> SandboxState? in
            let decoder = JSONDecoder()
            var state: SandboxState
            if let meta = try Data.fetchOne(db, sql: "SELECT body FROM world WHERE key = 'meta'") {
                var lists: [WorldSections.List: StoredList] = [:]
                func list<E: Decodable>(_ name: WorldSections.List, _: E.Type) throws -> [E] {
                    var elements: [E] = []
                    var seqs: [Int64] = []
                    let rows = try Row.fetchCursor(db, sql: "SELECT seq, body FROM item WHERE list = ? ORDER BY seq",
                                                   arguments: [name.rawValue])
                    while let row = try rows.next() {
                        seqs.append(row[0])
                        elements.append(try decoder.decode(E.self, from: row[1] as Data))
                    }
                    lists[name] = StoredList(seqs: seqs)
                    return elements
                }
                func table<V: Decodable>(_ name: WorldSections.Table, _: V.Type) throws -> [String: V] {
                    var entries: [String: V] = [:]
                    let rows = try Row.fetchCursor(db, sql: "SELECT key, body FROM entry WHERE tbl = ?", arguments: [name.rawValue])
                    while let row = try rows.next() { entries[row[0]] = try decoder.decode(V.self, from: row[1] as Data) }
                    return entries
                }
                let sections = WorldSections(
                    meta: try decoder.decode(WorldSections.Meta.self, from: meta),
                    users: try list(.users, SandboxUser.self), photosets: try list(.photosets, SandboxPhotoset.self),
                    favorites: try list(.favorites, SandboxFavorite.self), galleries: try list(.galleries, SandboxGallery.self),
                    groups: try list(.groups, SandboxGroup.self), testimonials: try list(.testimonials, SandboxTestimonial.self),
                    blogPosts: try list(.blogPosts, SandboxBlogPost.self), tokens: try table(.tokens, SandboxToken.self),
                    frobs: try table(.frobs, SandboxFrob.self), tickets: try table(.tickets, SandboxTicket.self),
                    setComments: try table(.setComments, [SandboxComment].self))
                state = sections.state
                committed.withLock { $0 = Committed(sections: WorldSections(state), lists: lists) }
            } else if let rest = try Data.fetchOne(db, sql: "SELECT body FROM world WHERE key = 'rest'") {
                state = try decoder.decode(SandboxState.self, from: rest)
                committed.withLock { $0 = Committed(sections: nil, hasRestDocument: true) }
            } else {
                return nil
            }
            let photos = try Row.fetchCursor(db, sql: "SELECT id, body FROM photo")
            while let row = try photos.next() {
                let body: Data = row[1]
                state.photos[row[0]] = try decoder.decode(SandboxPhoto.self, from: body)
            }
            let tags = try Row.fetchCursor(db, sql: "SELECT clean, n FROM tag_number")
            while let row = try tags.next() { state.tagNumbers[row[0]] = row[1] }
            _ = state.photos.takeChanges()
            _ = state.tagNumbers.takeChanges()
            return state
        }
    }

    /// Writes what changed in `state` since the last call (all of it, the first time for a new
    /// world), in one transaction, and forgets the changes.
    func commit(_ state: inout SandboxState) throws {
        let photoKeys = state.photos.takeChanges()
        let tagKeys = state.tagNumbers.takeChanges()
        let sections = WorldSections(state)
        var next = committed.withLock { $0 }
        let old = next.sections
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]

        // Encoded outside the transaction: the scalars, then each changed list and table.
        var meta: Data?
        if old?.meta != sections.meta { meta = try encoder.encode(sections.meta) }
        var items: [(WorldSections.List, StoredList.Change, [Data])] = []
        func list<E: Encodable & Equatable>(_ name: WorldSections.List, _ old: [E]?, _ new: [E]) throws {
            guard old != new else { return }
            var stored = next.lists[name] ?? StoredList()
            let change = stored.change(from: old, to: new)
            next.lists[name] = stored
            if !change.isEmpty { items.append((name, change, try change.inserted.map { try encoder.encode(new[$0.index]) })) }
        }
        try list(.users, old?.users, sections.users)
        try list(.photosets, old?.photosets, sections.photosets)
        try list(.favorites, old?.favorites, sections.favorites)
        try list(.galleries, old?.galleries, sections.galleries)
        try list(.groups, old?.groups, sections.groups)
        try list(.testimonials, old?.testimonials, sections.testimonials)
        try list(.blogPosts, old?.blogPosts, sections.blogPosts)
        var entries: [(WorldSections.Table, rewritten: Bool, set: [(String, Data)], removed: [String])] = []
        func table<V: Encodable & Equatable>(_ name: WorldSections.Table, _ old: [String: V]?, _ new: [String: V]) throws {
            guard old != new else { return }
            var set: [(String, Data)] = []
            for (key, value) in new where old?[key] != value { set.append((key, try encoder.encode(value))) }
            let removed = old.map { $0.keys.filter { new[$0] == nil } } ?? []
            entries.append((name, old == nil, set, removed))
        }
        try table(.tokens, old?.tokens, sections.tokens)
        try table(.frobs, old?.frobs, sections.frobs)
        try table(.tickets, old?.tickets, sections.tickets)
        try table(.setComments, old?.setComments, sections.setComments)

        guard meta != nil || !items.isEmpty || !entries.isEmpty || !photoKeys.isEmpty || !tagKeys.isEmpty else { return }
        let photos = state.photos
        let numbers = state.tagNumbers
        let dropRest = next.hasRestDocument
        try queue.write { db in
            let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO photo (id, body) VALUES (?, ?)")
            let delete = try db.cachedStatement(sql: "DELETE FROM photo WHERE id = ?")
            for id in photoKeys {
                if let photo = photos[id] {
                    try upsert.execute(arguments: [id, try encoder.encode(photo)])
                } else {
                    try delete.execute(arguments: [id])
                }
            }
            let tag = try db.cachedStatement(sql: "INSERT OR REPLACE INTO tag_number (clean, n) VALUES (?, ?)")
            for clean in tagKeys { if let n = numbers[clean] { try tag.execute(arguments: [clean, n]) } }
            if let meta {
                try db.execute(sql: "INSERT OR REPLACE INTO world (key, body) VALUES ('meta', ?)", arguments: [meta])
            }
            for (name, change, bodies) in items {
                if change.rewritten {
                    try db.execute(sql: "DELETE FROM item WHERE list = ?", arguments: [name.rawValue])
                }
                let remove = try db.cachedStatement(sql: "DELETE FROM item WHERE list = ? AND seq = ?")
                for seq in change.deleted { try remove.execute(arguments: [name.rawValue, seq]) }
                let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO item (list, seq, body) VALUES (?, ?, ?)")
                for (row, body) in zip(change.inserted, bodies) { try insert.execute(arguments: [name.rawValue, row.seq, body]) }
            }
            for (name, rewritten, set, removed) in entries {
                if rewritten { try db.execute(sql: "DELETE FROM entry WHERE tbl = ?", arguments: [name.rawValue]) }
                let remove = try db.cachedStatement(sql: "DELETE FROM entry WHERE tbl = ? AND key = ?")
                for key in removed { try remove.execute(arguments: [name.rawValue, key]) }
                let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO entry (tbl, key, body) VALUES (?, ?, ?)")
                for (key, body) in set { try insert.execute(arguments: [name.rawValue, key, body]) }
            }
            if dropRest { try db.execute(sql: "DELETE FROM world WHERE key = 'rest'") }
        }
        next.sections = sections
        next.hasRestDocument = false
        committed.withLock { $0 = next }
    }

    /// Marks every photo and tag number of `state` as changed, so the next ``commit(_:)``
    /// writes them (the rest of a world is written whole by a database's first commit).
    static func markAll(_ state: inout SandboxState) {
        for id in Array(state.photos.keys) { state.photos[id] = state.photos[id] }
        for clean in Array(state.tagNumbers.keys) { state.tagNumbers[clean] = state.tagNumbers[clean] }
    }
}
