import Foundation
import GRDB

/// One photo of an edit job, with its journal entry.
public struct EditJobPhoto: Sendable, Hashable {
    public var seq: Int
    public var change: EditChange
    public var status: PhotoStatus
    /// The write under way (`meta: flickr.photos.setMeta`), while writing.
    public var intent: String?
    public var detail: String?
}

extension JobStore {
    /// Whether `job` holds edit changes: an edit job, or the undo of one.
    public func isEdit(_ job: String) throws(JobError) -> Bool {
        let header = try header(job)
        if header.kind == "edit" { return true }
        guard header.kind == "undo", let parent = header.parent else { return false }
        return try self.header(parent).kind == "edit"
    }

    /// Stores a planned edit job and its photos in one transaction (``EditChange``s in the
    /// journal's `change` column).
    func createEdit(_ job: NewJob, changes: [EditChange]) throws(JobError) {
        try create(job, changes: changes) { $0.pre.photoID }
    }

    /// The photos of an edit job in plan order.
    public func editPhotos(of job: String) throws(JobError) -> [EditJobPhoto] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT seq, change, status, intent, detail FROM photo WHERE job = ? ORDER BY seq",
                             arguments: [job]).map { row in
                EditJobPhoto(seq: row["seq"], change: try JSONDecoder().decode(EditChange.self, from: Data((row["change"] as String).utf8)),
                             status: PhotoStatus(rawValue: row["status"]) ?? .planned, intent: row["intent"], detail: row["detail"])
            }
        }
    }

    /// The rules (the options as given) and query of a job.
    public func request(_ job: String) throws(JobError) -> (rules: [String], query: [String: String]) {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT rules, query FROM job WHERE id = ?", arguments: [job]) else {
                throw JobError("no job \(job)")
            }
            return ((try? JSONDecoder().decode([String].self, from: Data((row["rules"] as String).utf8))) ?? [],
                    (try? JSONDecoder().decode([String: String].self, from: Data((row["query"] as String).utf8))) ?? [:])
        }
    }

    /// The sets an edit job created (`--create-set`): title → id, so that a resumed run adds to
    /// the set it made instead of making another.
    func createdSets(_ job: String) throws(JobError) -> [String: String] {
        try write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS job_set (job TEXT NOT NULL, title TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (job, title))")
            return Dictionary(try Row.fetchAll(db, sql: "SELECT title, id FROM job_set WHERE job = ?", arguments: [job])
                .map { ($0["title"] as String, $0["id"] as String) }, uniquingKeysWith: { a, _ in a })
        }
    }

    func recordCreatedSet(_ job: String, title: String, id: String) throws(JobError) {
        try write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS job_set (job TEXT NOT NULL, title TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (job, title))")
            try db.execute(sql: "INSERT OR REPLACE INTO job_set (job, title, id) VALUES (?, ?, ?)", arguments: [job, title, id])
        }
    }
}
