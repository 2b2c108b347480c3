import Foundation
import GRDB

/// What a backup folder holds, in `DIR/.flickr-backup/backup.sqlite`: one row per file (its
/// path, size, SHA-256, the photo or set it belongs to, its kind, and the version of the
/// photo it holds), and the backup's own facts (the account, whether a run is under way).
///
/// The rows are the truth a run decides from: a file whose row holds the photo's current
/// version is left alone. `manifest.json` is written from them when a run ends.
final class BackupState: Sendable {
    let queue: DatabaseQueue

    /// One file of the backup.
    struct FileRow: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "file"
        /// Relative to the backup's folder.
        var path: String
        var size: Int64
        var sha256: String
        /// The photo or set id.
        var owner: String
        var kind: Kind
        /// The version it holds: the original's secret and format, the sidecar's metadata hash,
        /// the XMP's or the set's content hash.
        var key: String

        enum Kind: String, Sendable, Hashable, Codable, DatabaseValueConvertible, CaseIterable {
            case original, sidecar, xmp, set
        }
    }

    /// Opens (creating) the state of the backup at `layout`.
    init(_ layout: BackupLayout) throws(LibraryError) {
        do {
            for dir in [layout.stateDirectory, layout.parts, layout.temporary] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            queue = try DatabaseQueue(path: layout.database, configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT);
                    CREATE TABLE file (
                        path TEXT PRIMARY KEY NOT NULL,
                        size INTEGER NOT NULL,
                        sha256 TEXT NOT NULL,
                        owner TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        key TEXT NOT NULL
                    );
                    CREATE INDEX file_owner ON file(owner, kind);
                    """)
            }
            try migrator.migrate(queue)
        } catch {
            throw LibraryError("cannot open the backup's state \(layout.database): \(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try queue.write(body) } catch { throw LibraryError.database("backup state", error) }
    }

    func read<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try queue.read(body) } catch { throw LibraryError("backup state: \(error)") }
    }

    func meta(_ key: String) throws(LibraryError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    func setMeta(_ key: String, _ value: String?) throws(LibraryError) {
        try write { db in
            if let value {
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
            }
        }
    }

    /// Every file, by owner and kind.
    func files() throws(LibraryError) -> [FileRow] {
        try read { db in try FileRow.fetchAll(db, sql: "SELECT * FROM file ORDER BY path") }
    }

    /// Records `row` in place of the owner's file of the same kind; returns the path it replaced
    /// when that was another.
    @discardableResult
    func record(_ row: FileRow) throws(LibraryError) -> String? {
        try write { db in
            let old = try String.fetchAll(db, sql: "SELECT path FROM file WHERE owner = ? AND kind = ?",
                                          arguments: [row.owner, row.kind.rawValue])
            try db.execute(sql: "DELETE FROM file WHERE owner = ? AND kind = ?", arguments: [row.owner, row.kind.rawValue])
            try row.save(db)
            return old.first { $0 != row.path }
        }
    }

    /// Forgets the files of `owner` (all kinds when nil).
    func forget(owner: String, kind: FileRow.Kind? = nil) throws(LibraryError) {
        try write { db in
            if let kind {
                try db.execute(sql: "DELETE FROM file WHERE owner = ? AND kind = ?", arguments: [owner, kind.rawValue])
            } else {
                try db.execute(sql: "DELETE FROM file WHERE owner = ?", arguments: [owner])
            }
        }
    }
}
