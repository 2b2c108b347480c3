import Foundation
import GRDB

/// Where jobs live: one SQLite database (WAL) under `$XDG_STATE_HOME/flickr/` (default
/// `~/.local/state/flickr/jobs.sqlite`), the directory 0700 and the files 0600. It holds plans,
/// pre-images and the journal; never a secret (the endpoint and the account's NSID identify
/// where a job belongs).
public final class JobStore: Sendable {
    let queue: DatabaseQueue
    /// The database file.
    public let path: String

    /// The default location for an environment.
    public static func defaultPath(environment: [String: String]) -> String {
        let base: String
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
            base = state
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        }
        return base + "/flickr/jobs.sqlite"
    }

    /// Opens (creating) the job database at `path`.
    public init(path: String) throws(JobError) {
        self.path = path
        do {
            try PrivateFile.prepare(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.useWAL(queue)
            try Self.migrate(queue)
        } catch {
            throw JobError("cannot open the job database \(path): \(error)")
        }
    }

    /// The schema, version by version (GRDB's migrator records which ran in `grdb_migrations`).
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        // v1: the tables as databases made before the migrator have them (hence IF NOT EXISTS:
        // such a database has the tables and no record of this migration), including those
        // that were made on first use (sets an edit created, set orders, the shared budget).
        // Foreign keys are checked as each statement runs (.immediate), not over the whole
        // database after a migration: one stray row left by a hand edit must not make the job
        // database, and with it every budgeted call, impossible to open.
        m.registerMigration("v1", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS job (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    parent TEXT,
                    state TEXT NOT NULL,             -- planned | running | done | failed | undone
                    created REAL NOT NULL,
                    updated REAL NOT NULL,
                    owner TEXT NOT NULL,             -- the account's NSID
                    endpoint TEXT NOT NULL,
                    rules TEXT NOT NULL,             -- JSON
                    query TEXT NOT NULL,             -- JSON
                    plan_time INTEGER NOT NULL,      -- Unix time the plan's reads began
                    enumerated INTEGER NOT NULL,     -- photos looked at
                    calls INTEGER NOT NULL DEFAULT 0,
                    runner INTEGER                   -- pid of the process applying it
                );
                CREATE TABLE IF NOT EXISTS photo (
                    job TEXT NOT NULL REFERENCES job(id),
                    photo TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    change TEXT NOT NULL,            -- JSON: the kind's change (pre-image and target)
                    status TEXT NOT NULL,            -- planned | writing | done | conflict | failed
                    intent TEXT,                     -- the write under way (journal), while writing
                    detail TEXT,
                    PRIMARY KEY (job, photo)
                );
                CREATE INDEX IF NOT EXISTS photo_status ON photo(job, status);
                CREATE TABLE IF NOT EXISTS job_set (job TEXT NOT NULL, title TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (job, title));
                CREATE TABLE IF NOT EXISTS job_set_order (job TEXT NOT NULL, photoset TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (job, photoset));
                CREATE TABLE IF NOT EXISTS budget_call (api_key TEXT NOT NULL, t REAL NOT NULL);
                CREATE INDEX IF NOT EXISTS budget_call_key ON budget_call(api_key, t);
                CREATE TABLE IF NOT EXISTS budget_block (api_key TEXT PRIMARY KEY NOT NULL, until REAL NOT NULL);
                """)
        }
        // v2: a job's kind is its own. An undo was stored as kind 'undo' with its `parent`, and
        // whether it undid a retag or an edit was found by reading the parent; now it has the
        // kind of the job it takes back and names that job in `undo_of`. (An undo of an undo,
        // which Lua could once plan, takes the kind at the end of its chain.)
        m.registerMigration("v2", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "ALTER TABLE job RENAME COLUMN parent TO undo_of")
            for _ in 0..<64 {
                try db.execute(sql: """
                    UPDATE job SET kind = (SELECT p.kind FROM job p WHERE p.id = job.undo_of)
                    WHERE kind = 'undo' AND (SELECT p.kind FROM job p WHERE p.id = job.undo_of) IN ('retag', 'edit')
                    """)
                if db.changesCount == 0 { break }
            }
            // An undo whose job is gone (a database edited by hand) has the kind its own photos
            // say: an edit's changes have `targets`, a retag's do not.
            try db.execute(sql: """
                UPDATE job SET kind = CASE WHEN EXISTS (SELECT 1 FROM photo p WHERE p.job = job.id
                                                        AND json_extract(p.change, '$.targets') IS NOT NULL)
                                           THEN 'edit' ELSE 'retag' END
                WHERE kind = 'undo'
                """)
        }
        // v3: a set `--create-set` asks for is journaled before `photosets.create` is sent —
        // its title and the photo it is created with (its primary) — so that a run cut off
        // before the answer finds that set again by reading instead of making a second one.
        m.registerMigration("v3", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: """
                CREATE TABLE job_set_create (job TEXT NOT NULL, title TEXT NOT NULL, photo TEXT NOT NULL,
                                             PRIMARY KEY (job, title))
                """)
        }
        // v4: a job's photos are read back in plan order a page at a time (the diff, the plan's
        // JSON, a Lua plan), each page from where the last ended.
        m.registerMigration("v4", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "CREATE INDEX photo_seq ON photo(job, seq)")
        }
        return m
    }

    /// Puts the database in WAL mode. Switching a database made in rollback mode takes an
    /// exclusive lock, and processes opening it at once can deadlock on the upgrade: SQLite then
    /// answers SQLITE_BUSY at once instead of waiting (its busy handler cannot help a deadlock).
    /// One of them gets through; the others try again, a few milliseconds apart, for up to 30 s.
    private static func useWAL(_ queue: DatabaseQueue) throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                return try queue.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(UInt32.random(in: 2_000...20_000))
            }
        }
    }

    /// Brings the database to the newest schema. Two processes may open a database made by an
    /// older version at once (a job and a budgeted call): GRDB reads which migrations ran before
    /// taking the write lock, so the second may try one the first just applied, and fails on it
    /// (the migration's record exists, or its column was renamed already). Each such failure
    /// means another process applied a migration, so it is tried again, at most once per
    /// migration; any other error is the caller's.
    private static func migrate(_ queue: DatabaseQueue) throws {
        let migrator = Self.migrator
        for _ in 0...migrator.migrations.count {
            do {
                return try migrator.migrate(queue)
            } catch let error as DatabaseError where error.extendedResultCode != .SQLITE_CONSTRAINT_FOREIGNKEY
                                                  && [.SQLITE_ERROR, .SQLITE_CONSTRAINT].contains(error.resultCode) {
                if try queue.read({ try migrator.hasCompletedMigrations($0) }) { return }
            }
        }
        try migrator.migrate(queue)
    }

    /// Runs `body` in one IMMEDIATE write transaction (the write lock is taken at the start, so
    /// processes sharing the database wait their turn instead of failing on a stale read); a
    /// failure is a ``JobError``.
    func write<T>(_ body: (Database) throws -> T) throws(JobError) -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw JobError("job database: \(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(JobError) -> T {
        do { return try queue.read(body) } catch { throw JobError("job database: \(error)") }
    }
}

/// Why a job could not be planned, applied, resumed or undone.
public struct JobError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
