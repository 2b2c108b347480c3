@testable import FlickrJobs
import FlickrTestSupport
import Foundation
import GRDB
import Testing

/// The job database's schema goes through GRDB's migrator: a database made before it (undos
/// stored as kind `undo` with a `parent`) opens with every job's kind its own.
@Suite(.timeLimit(.minutes(2)), .tags(.unit))
struct JobStoreMigrationTests {
    /// A job database as versions before the migrator made it: a retag job and its undo, an
    /// edit job and its undo, and an undo of the retag undo (which Lua could once plan).
    static func oldDatabase(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE job (id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, parent TEXT, state TEXT NOT NULL,
                    created REAL NOT NULL, updated REAL NOT NULL, owner TEXT NOT NULL, endpoint TEXT NOT NULL,
                    rules TEXT NOT NULL, query TEXT NOT NULL, plan_time INTEGER NOT NULL, enumerated INTEGER NOT NULL,
                    calls INTEGER NOT NULL DEFAULT 0, runner INTEGER);
                CREATE TABLE photo (job TEXT NOT NULL REFERENCES job(id), photo TEXT NOT NULL, seq INTEGER NOT NULL,
                    change TEXT NOT NULL, status TEXT NOT NULL, intent TEXT, detail TEXT, PRIMARY KEY (job, photo));
                CREATE TABLE budget_call (api_key TEXT NOT NULL, t REAL NOT NULL);
                """)
            // undo-4's job is gone (a hand edit): its photos' changes say it undid an edit.
            let jobs: [(String, String, String?)] = [
                ("retag-1", "retag", nil), ("undo-1", "undo", "retag-1"), ("edit-1", "edit", nil), ("undo-2", "undo", "edit-1"),
                ("undo-3", "undo", "undo-1"), ("undo-4", "undo", "edit-0"),
            ]
            for (n, (id, kind, parent)) in jobs.enumerated() {
                try db.execute(sql: """
                    INSERT INTO job (id, kind, parent, state, created, updated, owner, endpoint, rules, query, plan_time, enumerated)
                    VALUES (?, ?, ?, 'done', ?, ?, 'alice', 'http://127.0.0.1/rest', '[]', '{}', 0, 0)
                    """, arguments: [id, kind, parent, Double(n), Double(n)])
            }
            try db.execute(sql: "INSERT INTO budget_call (api_key, t) VALUES ('k', 1)")
            try db.execute(sql: """
                INSERT INTO photo (job, photo, seq, change, status) VALUES
                  ('undo-4', '7', 0, '{"pre":{"photoID":"7"},"targets":[]}', 'done'),
                  ('undo-1', '8', 0, '{"pre":{"photoID":"8"},"target":["a"]}', 'done')
                """)
        }
    }

    @Test func anOldDatabaseOpensWithEachJobsKindItsOwn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("jobs.sqlite").path
        try Self.oldDatabase(at: path)
        let store = try JobStore(path: path)
        let byID = Dictionary(uniqueKeysWithValues: try store.jobs().map { ($0.id, $0) })
        #expect(byID.mapValues(\.kind) == ["retag-1": .retag, "undo-1": .retag, "edit-1": .edit, "undo-2": .edit, "undo-3": .retag,
                                           "undo-4": .edit])
        #expect(byID.mapValues(\.undoOf) == ["retag-1": nil, "undo-1": "retag-1", "edit-1": nil, "undo-2": "edit-1", "undo-3": "undo-1",
                                             "undo-4": "edit-0"])
        #expect(try store.kind(of: "undo-2") == .edit)
        // What was there stays; a second open (another process, later) changes nothing.
        let again = try JobStore(path: path)
        #expect(try again.jobs() == store.jobs())
        let (migrations, calls, kinds) = try DatabaseQueue(path: path).read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM budget_call") ?? -1,
             try String.fetchAll(db, sql: "SELECT DISTINCT kind FROM job ORDER BY kind"))
        }
        #expect(migrations == ["v1", "v2", "v3", "v4"] && calls == 1 && kinds == ["edit", "retag"], "\(migrations) \(calls) \(kinds)")
        // A kind this version does not know (a newer version's) is an error, never taken for another.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE job SET kind = 'export' WHERE id = 'retag-1'") }
        #expect(throws: JobError.self) { try JobStore(path: path).jobs() }
        #expect(throws: JobError.self) { try JobStore(path: path).kind(of: "retag-1") }
    }

    @Test func connectionsOpeningAnOldDatabaseAtOnceAllGetIt() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("jobs.sqlite").path
        try Self.oldDatabase(at: path)
        let kinds = try await withThrowingTaskGroup(of: [JobKind].self) { group in
            for _ in 0..<6 {
                group.addTask { try JobStore(path: path).jobs().map(\.kind) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(kinds.count == 6 && Set(kinds.map { $0.map(\.rawValue) }).count == 1 && kinds.first?.count == 6)
        let raw = try await DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT kind FROM job") }
        #expect(!raw.contains("undo") && raw.count == 6, "\(raw)")
    }
}
