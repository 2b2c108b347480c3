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
            try queue.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: Self.schema)
            }
        } catch {
            throw JobError("cannot open the job database \(path): \(error)")
        }
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS job (
            id TEXT PRIMARY KEY NOT NULL,
            kind TEXT NOT NULL,              -- retag | undo
            parent TEXT,                     -- the job an undo reverses
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
            change TEXT NOT NULL,            -- JSON PhotoChange: pre-image and target
            status TEXT NOT NULL,            -- planned | writing | done | conflict | failed
            intent TEXT,                     -- the write under way (journal), while writing
            detail TEXT,
            PRIMARY KEY (job, photo)
        );
        CREATE INDEX IF NOT EXISTS photo_status ON photo(job, status);
        """

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
