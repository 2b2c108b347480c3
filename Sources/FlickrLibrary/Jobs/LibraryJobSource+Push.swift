import FlickrJobs
import Foundation
import GRDB

/// The library as a push's memory: the `push_file` rows (every file a push has seen, and the
/// photo each pushed file is) and the backups' manifests (`backup_folder`).
extension LibraryJobSource: PushLedger {
    public func pushRecords(roots: [String]) throws -> [PushRecord] {
        try store.read { db in
            var out: [PushRecord] = []
            for root in roots {
                out += try Row.fetchAll(db, sql: "SELECT * FROM push_file WHERE root = ?", arguments: [root]).map(Self.record)
            }
            return out
        }
    }

    public func pushedHashes() throws -> [String: PushRecord] {
        try store.read { db in
            var out: [String: PushRecord] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM push_file WHERE photo IS NOT NULL ORDER BY root, path") {
                let r = Self.record(row)
                if out[r.sha256] == nil { out[r.sha256] = r }
            }
            return out
        }
    }

    public func remember(_ records: [PushRecord]) throws {
        guard !records.isEmpty else { return }
        try store.write { db in
            for r in records {
                let meta = r.meta.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
                try db.execute(sql: """
                    INSERT OR REPLACE INTO push_file (root, path, size, mtime, sha256, video, photo, photoset, meta, sidecar, job)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [r.root, r.path, r.size, r.mtime, r.sha256, r.video ? 1 : 0, r.photo, r.set, meta, r.sidecar, r.job])
            }
        }
    }

    public func forget(root: String, path: String) throws {
        try store.write { db in try db.execute(sql: "DELETE FROM push_file WHERE root = ? AND path = ?", arguments: [root, path]) }
    }

    public func backupHashes() throws -> [String: String] {
        let folders = try store.read { db in try String.fetchAll(db, sql: "SELECT path FROM backup_folder") }
        var out: [String: String] = [:]
        for folder in folders {
            let layout = BackupLayout(root: folder)
            guard FileManager.default.fileExists(atPath: layout.database), let state = try? BackupState(layout),
                  (try? state.meta("account")) == account, let files = try? state.files() else { continue }
            for file in files where file.kind == .original { out[file.sha256] = file.owner }
        }
        return out
    }

    public func setIDs() throws -> [String: String] {
        var out: [String: String] = [:]
        for set in try store.sets() where out[set.title] == nil { out[set.title] = set.id }
        return out
    }

    static func record(_ row: Row) -> PushRecord {
        let meta = (row["meta"] as String?).flatMap { try? JSONDecoder().decode(PushMeta.self, from: Data($0.utf8)) }
        return PushRecord(root: row["root"], path: row["path"], size: row["size"], mtime: row["mtime"], sha256: row["sha256"],
                          video: (row["video"] as Int) != 0, photo: row["photo"], set: row["photoset"], meta: meta,
                          sidecar: row["sidecar"], job: row["job"])
    }
}

extension LibraryStore {
    /// Notes that a backup of this account is kept in `folder` (a push matches files by the
    /// hashes its manifest records).
    func registerBackup(_ folder: String) throws(LibraryError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO backup_folder (path, seen) VALUES (?, ?)",
                           arguments: [folder, Date().timeIntervalSince1970])
        }
    }
}
