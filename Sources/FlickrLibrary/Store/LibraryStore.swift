import FlickrJobs
import Foundation
import GRDB

/// One account's library on disk: `$XDG_DATA_HOME/flickr/library/NSID.sqlite` (default
/// `~/.local/share/flickr/library/`), the folder 0700 and the files 0600, WAL, a schema version
/// with migrations. It holds what Flickr's listings and (with `--deep`) `getInfo` say of every
/// photo and set, and the sync state; never a secret.
public final class LibraryStore: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String
    /// The account (NSID) the library mirrors.
    public let account: String

    /// The folder of the libraries for an environment.
    public static func directory(environment: [String: String]) -> String {
        let base: String
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            base = data
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return base + "/flickr/library"
    }

    /// The database of account `nsid` in `directory`.
    public static func path(for nsid: String, in directory: String) -> String {
        directory + "/" + nsid.replacingOccurrences(of: "/", with: "_") + ".sqlite"
    }

    /// Opens (creating and migrating) the library of `account` at `path`.
    public init(path: String, account: String) throws(LibraryError) {
        self.path = path
        self.account = account
        do {
            try PrivateFile.prepare(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // The triggers that keep the folded title and description call it (v2).
                db.add(function: Self.foldFunction)
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            try pool.write { db in
                try db.execute(sql: "INSERT OR IGNORE INTO sync_state (key, value) VALUES ('account', ?)", arguments: [account])
            }
            // The WAL and shared-memory files are the owner's only too.
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + suffix)
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError("cannot open the library \(path): \(error)")
        }
    }

    /// The schema, version by version (GRDB's migrator records which ran).
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE photo (
                    id TEXT PRIMARY KEY NOT NULL,
                    owner TEXT NOT NULL,
                    secret TEXT, server TEXT, farm INTEGER,
                    title TEXT NOT NULL DEFAULT '',
                    description TEXT NOT NULL DEFAULT '',
                    ispublic INTEGER NOT NULL DEFAULT 0, isfriend INTEGER NOT NULL DEFAULT 0, isfamily INTEGER NOT NULL DEFAULT 0,
                    license TEXT,
                    date_upload INTEGER, date_taken TEXT, date_taken_granularity INTEGER, date_taken_unknown INTEGER,
                    last_update INTEGER,
                    views INTEGER,
                    media TEXT,
                    original_format TEXT, original_secret TEXT, o_width INTEGER, o_height INTEGER,
                    latitude REAL, longitude REAL, accuracy INTEGER,
                    url_o TEXT,
                    tags TEXT NOT NULL DEFAULT '',          -- clean forms, space-separated (extras=tags)
                    machine_tags TEXT NOT NULL DEFAULT '',  -- clean forms (extras=machine_tags)
                    raw_tags TEXT,                          -- JSON [{id, author, raw}] from getInfo (--deep)
                    deep_update INTEGER,                    -- last_update when getInfo was read
                    notes INTEGER, people INTEGER, comments INTEGER,
                    deleted INTEGER                         -- when a complete listing no longer had it
                );
                CREATE INDEX photo_taken ON photo(date_taken);
                CREATE INDEX photo_upload ON photo(date_upload);
                CREATE INDEX photo_update ON photo(last_update);
                CREATE TABLE photo_tag (
                    photo TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                    clean TEXT NOT NULL,
                    raw TEXT,                               -- the owner's raw form, when known (--deep)
                    machine INTEGER NOT NULL,
                    PRIMARY KEY (photo, clean)
                ) WITHOUT ROWID;
                CREATE INDEX photo_tag_clean ON photo_tag(clean, photo);
                CREATE TABLE photoset (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT NOT NULL DEFAULT '',
                    description TEXT NOT NULL DEFAULT '',
                    primary_photo TEXT,
                    photos INTEGER NOT NULL DEFAULT 0,
                    videos INTEGER NOT NULL DEFAULT 0,
                    date_create INTEGER, date_update INTEGER,
                    position INTEGER NOT NULL,
                    members_update INTEGER                  -- date_update when the members were read
                );
                CREATE TABLE set_photo (
                    photoset TEXT NOT NULL REFERENCES photoset(id) ON DELETE CASCADE,
                    photo TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (photoset, photo)
                ) WITHOUT ROWID;
                CREATE INDEX set_photo_photo ON set_photo(photo);
                CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT);
                """)
        }
        m.registerMigration("v2") { db in
            // text= compares these with the text folded the same way: case-insensitive for all of
            // Unicode in one plain SQL condition (instr), with no Swift call per photo in a query.
            // Triggers keep them current whatever writes the photo row.
            try db.execute(sql: """
                ALTER TABLE photo ADD COLUMN title_folded TEXT NOT NULL DEFAULT '';       -- library_fold(title)
                ALTER TABLE photo ADD COLUMN description_folded TEXT NOT NULL DEFAULT ''; -- library_fold(description)
                UPDATE photo SET title_folded = library_fold(title), description_folded = library_fold(description);
                CREATE TRIGGER photo_fold_insert AFTER INSERT ON photo BEGIN
                    UPDATE photo SET title_folded = library_fold(NEW.title), description_folded = library_fold(NEW.description)
                    WHERE id = NEW.id;
                END;
                CREATE TRIGGER photo_fold_update AFTER UPDATE OF title, description ON photo BEGIN
                    UPDATE photo SET title_folded = library_fold(NEW.title), description_folded = library_fold(NEW.description)
                    WHERE id = NEW.id;
                END;
                """)
            // v1 gave a clean tag the first raw form getInfo listed, which could be another
            // member's: the photos with another member's tag get the owner's forms.
            let ids = try String.fetchAll(db, sql: """
                SELECT p.id FROM photo p WHERE p.raw_tags IS NOT NULL
                  AND EXISTS (SELECT 1 FROM json_each(p.raw_tags) j WHERE json_extract(j.value, '$.author') IS NOT p.owner)
                """)
            for id in ids {
                if let photo = try LibraryPhoto.fetchOne(db, key: id) { try LibrarySync.writeTags(photo, db) }
            }
        }
        m.registerMigration("v3") { db in
            // text= finds a tag the way it finds a title: `strasse` in the tag `straße`, `ΑΘΉΝΑ`
            // in `αθήνα`; the clean forms (tags, then machine tags) folded, space-separated.
            try db.execute(sql: """
                ALTER TABLE photo ADD COLUMN tags_folded TEXT NOT NULL DEFAULT '';  -- library_fold(tags || ' ' || machine_tags)
                UPDATE photo SET tags_folded = library_fold(tags || ' ' || machine_tags);
                CREATE TRIGGER photo_tags_fold_insert AFTER INSERT ON photo BEGIN
                    UPDATE photo SET tags_folded = library_fold(NEW.tags || ' ' || NEW.machine_tags) WHERE id = NEW.id;
                END;
                CREATE TRIGGER photo_tags_fold_update AFTER UPDATE OF tags, machine_tags ON photo BEGIN
                    UPDATE photo SET tags_folded = library_fold(NEW.tags || ' ' || NEW.machine_tags) WHERE id = NEW.id;
                END;
                -- order=views with a limit reads the first rows of an index, as the date orders do.
                CREATE INDEX photo_views ON photo(views);
                """)
        }
        m.registerMigration("v4") { db in
            // `flickr push`: every file it has seen (path, size, mtime, SHA-256; a file whose size
            // and mtime did not change is not read again) and, for those on Flickr, the photo, its
            // set and the metadata pushed; and the backup folders this library filled, whose
            // manifests name photos by their originals' hashes.
            try db.execute(sql: """
                CREATE TABLE push_file (
                    root TEXT NOT NULL,
                    path TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime REAL NOT NULL,
                    sha256 TEXT NOT NULL,
                    video INTEGER NOT NULL DEFAULT 0,
                    photo TEXT,
                    photoset TEXT,
                    meta TEXT,            -- JSON: the metadata last pushed
                    sidecar TEXT,         -- the sidecar's SIZE:MTIME when pushed
                    job TEXT,             -- the push that uploaded it
                    PRIMARY KEY (root, path)
                );
                CREATE INDEX push_file_sha ON push_file(sha256);
                CREATE TABLE backup_folder (path TEXT PRIMARY KEY NOT NULL, seen REAL NOT NULL);
                """)
        }
        m.registerMigration("v5") { db in
            // Each order's index holds the tie-break too (ids as numbers: length, then text), so
            // an order is read from its index with no sort, a page stops at its limit, and a
            // page's key (value, id) is one range of it.
            try db.execute(sql: """
                DROP INDEX photo_taken; DROP INDEX photo_upload; DROP INDEX photo_update; DROP INDEX photo_views;
                CREATE INDEX photo_taken ON photo(date_taken, length(id), id);
                CREATE INDEX photo_upload ON photo(date_upload, length(id), id);
                CREATE INDEX photo_update ON photo(last_update, length(id), id);
                CREATE INDEX photo_views ON photo(views, length(id), id);
                -- text= reads the folded columns alone: a scan of this covering index, not of the
                -- photo rows (a fifth of their size). `deleted` comes last: first (or as a partial
                -- index's WHERE) SQLite takes it for a range of every other filter's query, and
                -- reads each of their rows through it.
                CREATE INDEX photo_text ON photo(title_folded, description_folded, tags_folded, deleted);
                """)
        }
        return m
    }

    /// `library_fold(text)`: Unicode case folding (``fold(_:)``), for the folded columns.
    static let foldFunction = DatabaseFunction("library_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(fold)
    }

    /// `s` case-folded for `text=`: full Unicode case folding ("RÉYKJAVÍK" → "réykjavík",
    /// "STRASSE" and "Straße" → "strasse", "ΟΔΟΣ" and "οδος" → "οδοσ"); accents are kept.
    /// ASCII text takes the fast path (Foundation's folding costs microseconds a string).
    public static func fold(_ s: String) -> String {
        s.utf8.allSatisfy { $0 < 0x80 } ? s.lowercased() : s.folding(options: [.caseInsensitive], locale: nil)
    }

    /// The schema version (the number of migrations applied).
    public var schemaVersion: Int {
        (try? pool.read { db in try Self.migrator.appliedMigrations(db).count }) ?? 0
    }

    func write<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try pool.write(body) } catch { throw LibraryError("library database: \(error)") }
    }

    func read<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try pool.read(body) } catch let error as LibraryError { throw error } catch {
            throw LibraryError("library database: \(error)")
        }
    }

    /// A value of the sync state.
    func state(_ key: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM sync_state WHERE key = ?", arguments: [key])
    }

    func setState(_ key: String, _ value: String?, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO sync_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       arguments: [key, value])
    }

    /// The folder of the runners' locks: the same as the jobs' (one lock per library).
    public func lock(command: String, jobs: JobStore) throws -> RunnerLock {
        try jobs.lock("library-" + account.replacingOccurrences(of: "@", with: "_"), command: command)
    }
}

/// Why the library could not be read, synced or backed up.
public struct LibraryError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The disk had no room for what was being written (a file, or the database: SQLite's
    /// "database or disk is full"); a batch stops at once.
    public var diskFull = false
    public init(_ message: String, diskFull: Bool = false) {
        self.message = message
        self.diskFull = diskFull
    }
    public var description: String { message }

    /// `error` from a database write, as a LibraryError: SQLite's SQLITE_FULL marked ``diskFull``.
    static func database(_ what: String, _ error: any Error) -> LibraryError {
        if let e = error as? LibraryError { return e }
        let full = (error as? DatabaseError)?.resultCode == .SQLITE_FULL
        return LibraryError("\(what): " + (full ? "no space left on the disk" : "\(error)"), diskFull: full)
    }

    /// A failed write of `path` (errno `code`): ENOSPC and EDQUOT marked ``diskFull``.
    static func write(_ path: String, errno code: Int32) -> LibraryError {
        let full = code == ENOSPC || code == EDQUOT
        return LibraryError("cannot write \(path): " + (full ? "no space left on the disk" : String(cString: strerror(code))), diskFull: full)
    }
}
