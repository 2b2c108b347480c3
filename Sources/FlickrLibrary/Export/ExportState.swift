import FlickrJobs
import Foundation
import GRDB

/// What an export folder holds, in `DIR/.flickr-export/export.sqlite`: one row per photo (the
/// paths it was written to, the copy's size and SHA-256, the original's SHA-256 it was made
/// from, and the fingerprint of what was written), and the export's own facts (the backup it
/// reads, its layout). Only files these rows name are ever replaced or removed: a person's own
/// files in the tree are left alone.
final class ExportState: Sendable {
    let queue: DatabaseQueue

    struct Row: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "photo"
        var id: String
        /// ``ExportPhoto/fingerprint`` plus the options, `pending:` first while its files are
        /// being put in place (a kill then leaves each path holding a whole old or new file).
        var fingerprint: String
        /// JSON array of relative paths: the copy, then its hard links.
        var paths: String
        var size: Int64
        var sha256: String
        /// The backup original's SHA-256 the copy was made from.
        var source: String
        /// Whether each path has an XMP sidecar (`PATH.xmp`) beside it.
        var xmp: Bool
        /// The copy's modification time as written (seconds): with the size, what a run checks
        /// to know the file is still the one it wrote, without reading it.
        var mtime: Int64

        var pathList: [String] {
            (try? JSONDecoder().decode([String].self, from: Data(paths.utf8))) ?? []
        }

        static func encode(_ paths: [String]) -> String {
            String(decoding: (try? JSONEncoder().encode(paths)) ?? Data("[]".utf8), as: UTF8.self)
        }
    }

    /// Opens (creating) the state at `path`.
    init(path: String) throws(LibraryError) {
        do {
            try PrivateFile.prepare(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            queue = try DatabaseQueue(path: path, configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT);
                    CREATE TABLE photo (
                        id TEXT PRIMARY KEY NOT NULL,
                        fingerprint TEXT NOT NULL,
                        paths TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        sha256 TEXT NOT NULL,
                        source TEXT NOT NULL,
                        xmp INTEGER NOT NULL,
                        mtime INTEGER NOT NULL
                    );
                    """)
            }
            try migrator.migrate(queue)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError.database("export state \(path)", error)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try queue.write(body) } catch { throw LibraryError.database("export state", error) }
    }

    func read<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try queue.read(body) } catch { throw LibraryError("export state: \(error)") }
    }

    func meta(_ key: String) throws(LibraryError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    func setMeta(_ key: String, _ value: String) throws(LibraryError) {
        try write { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }

    /// Every photo's row, by id.
    func rows() throws(LibraryError) -> [String: Row] {
        try read { db in Dictionary(try Row.fetchAll(db).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
    }

    func save(_ row: Row) throws(LibraryError) {
        try write { db in try row.save(db) }
    }

    /// Marks the photos owning `paths` to be written again by the next run (their paths kept,
    /// so the new copies replace the damaged ones).
    func invalidate(owning paths: Set<String>) throws(LibraryError) {
        try write { db in
            for row in try Row.fetchAll(db) where !paths.isDisjoint(with: row.pathList) {
                try db.execute(sql: "UPDATE photo SET fingerprint = '' WHERE id = ?", arguments: [row.id])
            }
        }
    }

    func forget(_ id: String) throws(LibraryError) {
        try write { db in try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [id]) }
    }
}
