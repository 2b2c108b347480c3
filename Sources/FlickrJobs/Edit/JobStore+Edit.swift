import Foundation
import GRDB

extension JobStore {
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
        try read { db in
            return Dictionary(try Row.fetchAll(db, sql: "SELECT title, id FROM job_set WHERE job = ?", arguments: [job])
                .map { ($0["title"] as String, $0["id"] as String) }, uniquingKeysWith: { a, _ in a })
        }
    }

    func recordCreatedSet(_ job: String, title: String, id: String) throws(JobError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO job_set (job, title, id) VALUES (?, ?, ?)", arguments: [job, title, id])
        }
    }

    /// The sets job `job` was creating when it was cut off: title → the photo each was being
    /// created with (journaled before `photosets.create` was sent; no id recorded since).
    func setsBeingCreated(_ job: String) throws(JobError) -> [String: String] {
        try read { db in
            Dictionary(try Row.fetchAll(db, sql: """
                SELECT c.title, c.photo FROM job_set_create c
                WHERE c.job = ? AND NOT EXISTS (SELECT 1 FROM job_set s WHERE s.job = c.job AND s.title = c.title)
                """, arguments: [job]).map { ($0["title"] as String, $0["photo"] as String) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Journals that job `job` is about to create set `title` with `photo` as its primary.
    func recordCreatingSet(_ job: String, title: String, photo: String) throws(JobError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO job_set_create (job, title, photo) VALUES (?, ?, ?)",
                           arguments: [job, title, photo])
        }
    }

    /// The order job `job` recorded for set `set` before it first took a photo out of it.
    func setOrder(_ job: String, set: String) throws(JobError) -> SetOrder? {
        try setOrders(job)[set]
    }

    /// Every set order job `job` recorded: set id → order.
    func setOrders(_ job: String) throws(JobError) -> [String: SetOrder] {
        try read { db in
            var out: [String: SetOrder] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT photoset, state FROM job_set_order WHERE job = ?", arguments: [job]) {
                out[row["photoset"]] = try JSONDecoder().decode(SetOrder.self, from: Data((row["state"] as String).utf8))
            }
            return out
        }
    }

    /// Records set `set`'s order for job `job` (the first record stands: it is the set before the job).
    func recordSetOrder(_ job: String, set: String, _ order: SetOrder) throws(JobError) {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO job_set_order (job, photoset, state) VALUES (?, ?, ?)",
                           arguments: [job, set, String(decoding: try JSONEncoder().encode(order), as: UTF8.self)])
        }
    }
}
