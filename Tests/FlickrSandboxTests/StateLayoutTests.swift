@testable import FlickrSandbox
import FlickrTestSupport
import Foundation
import GRDB
import Testing

/// `--state`'s layout: a write stores only the rows it changed, and a database of the earlier
/// layout (everything but photos and tag numbers in one `rest` document) still loads.
@Suite("--state writes what a call changed", .timeLimit(.minutes(3)), .tags(.integration))
struct StateLayoutTests {
    static func seededState() throws -> (URL, SandboxState) {
        let dir = try PersistenceTests.tempDir()
        let seed = dir.appendingPathComponent("seed.json")
        try Data(PersistenceTests.seed.utf8).write(to: seed)
        return (dir, try SeedFile.load(path: seed.path))
    }

    /// Logs every insert, update and delete of the state's tables into `writes` (triggers live
    /// in the database file, so the sandbox's own commits fire them).
    static func recordWrites(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE writes (tbl TEXT NOT NULL, what TEXT NOT NULL)")
            for table in ["photo", "tag_number", "world", "item", "entry"] {
                for op in ["INSERT", "UPDATE", "DELETE"] {
                    try db.execute(sql: """
                        CREATE TRIGGER log_\(table)_\(op.lowercased()) AFTER \(op) ON \(table)
                        BEGIN INSERT INTO writes VALUES ('\(table)', '\(op)'); END
                        """)
                }
            }
        }
    }

    static func writes(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).write { db in
            let rows = try String.fetchAll(db, sql: "SELECT tbl || ' ' || what FROM writes ORDER BY rowid")
            try db.execute(sql: "DELETE FROM writes")
            return rows
        }
    }

    @Test("setTags writes its photo (and tag numbers, counters) but no list or table row; a favourite removed or added, one item row")
    func onlyChangedRows() async throws {
        let (dir, _) = try Self.seededState()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("seed.json").path
        let config = SandboxConfiguration(dataFile: data, stateDirectory: dir.path)
        try await withSandbox(config) { _ in }
        let path = dir.appendingPathComponent("state.sqlite").path
        try Self.recordWrites(path)
        try await withSandbox(config) { server in
            let me = SandboxClient.writer(server)
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", "5000000001"), ("tags", "fresh \"new tag\"")])
            let afterTags = try Self.writes(path)
            #expect(afterTags.allSatisfy { $0.hasPrefix("photo ") || $0.hasPrefix("tag_number ") || $0 == "world INSERT" },
                    "\(afterTags)")
            #expect(afterTags.filter { $0.hasPrefix("photo ") }.count == 1, "\(afterTags)")
            let bob = try await server.issueToken(username: "bob", perms: .write)
            _ = try Self.writes(path)
            let asBob = SandboxClient(server, token: bob.token, tokenSecret: bob.secret)
            _ = try await asBob.ok("flickr.favorites.remove", [("photo_id", "5000000001")])
            #expect(try Self.writes(path) == ["item DELETE"])
            _ = try await asBob.ok("flickr.favorites.add", [("photo_id", "5000000001")])
            #expect(try Self.writes(path) == ["item INSERT"])
        }
    }

    @Test("A database of the earlier layout (one 'rest' document) loads, and its first commit splits it into rows")
    func earlierLayout() async throws {
        let (dir, state) = try Self.seededState()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("state.sqlite").path
        // What the earlier version wrote: photos and tag numbers as rows, the rest as one document.
        var rest = state
        rest.photos = PhotoTable()
        rest.tagNumbers = TrackedTable()
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys]
        let document = try sorted.encode(rest)
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE photo (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                CREATE TABLE tag_number (clean TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
                CREATE TABLE world (key TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                """)
            for (id, photo) in zip(state.photos.keys, state.photos.values) {
                try db.execute(sql: "INSERT INTO photo VALUES (?, ?)", arguments: [id, try JSONEncoder().encode(photo)])
            }
            for (clean, n) in zip(state.tagNumbers.keys, state.tagNumbers.values) {
                try db.execute(sql: "INSERT INTO tag_number VALUES (?, ?)", arguments: [clean, n])
            }
            try db.execute(sql: "INSERT INTO world VALUES ('rest', ?)", arguments: [document])
        }
        let config = SandboxConfiguration(stateDirectory: dir.path)
        for _ in 0..<2 {
            try await withSandbox(config) { server in
                #expect(server.credentials.apiKey == "0123456789abcdef0123456789abcdef")
                let me = SandboxClient.writer(server)
                let sets = try await me.ok("flickr.photosets.getList", verb: "GET")
                #expect(XMLProbe.texts(of: "title", in: sets) == ["Lisbon"])
                let tags = try await me.ok("flickr.tags.getListPhoto", [("photo_id", "5000000001")], verb: "GET")
                #expect(XMLProbe.attributes("raw", of: "tag", in: tags).contains("old town"))
            }
            let keys = try await DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT key FROM world") }
            #expect(keys == ["meta"])
            let lists = try await DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT list FROM item ORDER BY list, seq")
            }
            #expect(lists == ["favorites", "photosets", "users", "users"])
        }
    }
}
