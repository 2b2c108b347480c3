import Foundation
import GRDB
import Synchronization

/// `--state DIR`'s durable store: `DIR/state.sqlite`, in WAL mode with `synchronous=FULL`, so a
/// write is on disk before its answer leaves and `kill -9` at any moment keeps every answered
/// write. One row per photo (a request rewrites only the photos it changed), one per tag
/// number, and one JSON document for the rest of the world (users, sets, favourites, tokens,
/// groups, galleries …), rewritten only when it changed.
final class SandboxDatabase: Sendable {
    private let queue: DatabaseQueue
    /// The rest-of-the-world document last written (to skip unchanged rewrites).
    private let lastRest = Mutex<Data?>(nil)

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
                """)
        }
    }

    /// The stored world, or nil when the database is new.
    func load() throws -> SandboxState? {
        try queue.read { db -> SandboxState? in
            guard let rest = try Data.fetchOne(db, sql: "SELECT body FROM world WHERE key = 'rest'") else { return nil }
            let decoder = JSONDecoder()
            var state = try decoder.decode(SandboxState.self, from: rest)
            lastRest.withLock { $0 = rest }
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
        let rest = try Self.restDocument(state)
        let restChanged = lastRest.withLock { $0 != rest }
        guard restChanged || !photoKeys.isEmpty || !tagKeys.isEmpty else { return }
        let encoder = JSONEncoder()
        let photos = state.photos
        let numbers = state.tagNumbers
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
            if restChanged {
                try db.execute(sql: "INSERT OR REPLACE INTO world (key, body) VALUES ('rest', ?)", arguments: [rest])
            }
        }
        if restChanged { lastRest.withLock { $0 = rest } }
    }

    /// Everything but the photos and tag numbers, as JSON (keys sorted, so equal worlds give
    /// equal documents).
    static func restDocument(_ state: SandboxState) throws -> Data {
        var rest = state
        rest.photos = PhotoTable()
        rest.tagNumbers = TrackedTable()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(rest)
    }

    /// Marks every record of `state` as changed, so the next ``commit(_:)`` writes it whole.
    static func markAll(_ state: inout SandboxState) {
        for id in Array(state.photos.keys) { state.photos[id] = state.photos[id] }
        for clean in Array(state.tagNumbers.keys) { state.tagNumbers[clean] = state.tagNumbers[clean] }
    }
}
