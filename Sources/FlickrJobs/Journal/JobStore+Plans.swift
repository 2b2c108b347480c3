import Foundation
import GRDB

/// A plan written as it is made: the job's row first (state `planning`, held by this process's
/// lock), then its photos batch by batch, then the row's counts and state `planned` in one
/// transaction. Until then no command runs it (``JobEngine`` runs only what is planned or
/// under way), and a plan cut off by a crash or kill -9 is dropped by the next plan.
extension JobStore {
    /// A plan under way: its job id and the lock that says its process is alive.
    struct PlanWriter {
        let job: String
        fileprivate let lock: RunnerLock
        /// The next photo's place in plan order.
        fileprivate(set) var seq = 0
    }

    /// Starts storing a plan: drops plans their process left unfinished, then inserts `job`'s
    /// row as `planning` (its photos come with ``append(_:changes:refusals:detail:)``).
    func beginPlan(_ job: NewJob) throws -> PlanWriter {
        try dropAbandonedPlans()
        let lock = try lock(job.id, command: "plan")
        try insertRow(job, state: "planning")
        return PlanWriter(job: job.id, lock: lock)
    }

    /// Stores a batch of a plan's photos in plan order, in one transaction: `changes` as
    /// planned, then `refused` (each with its journal detail) as refused.
    func append<Change: JobChange>(_ plan: inout PlanWriter, changes: [Change], refused: [(Change, String)]) throws(JobError) {
        let encoder = Self.changeEncoder
        let first = plan.seq
        try write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO photo (job, photo, seq, change, status, detail) VALUES (?, ?, ?, ?, ?, ?)")
            var seq = first
            for change in changes {
                try insert.execute(arguments: [plan.job, change.photoID, seq, String(decoding: try encoder.encode(change), as: UTF8.self),
                                               PhotoStatus.planned.rawValue, nil])
                seq += 1
            }
            for (change, detail) in refused {
                try insert.execute(arguments: [plan.job, change.photoID, seq, String(decoding: try encoder.encode(change), as: UTF8.self),
                                               PhotoStatus.refused.rawValue, detail])
                seq += 1
            }
        }
        plan.seq = first + changes.count + refused.count
    }

    /// Ends a plan: its counts, and state `planned` — from now on it can be applied.
    func finish(_ plan: PlanWriter, enumerated: Int, calls: Int) throws(JobError) {
        try write { db in
            try db.execute(sql: "UPDATE job SET state = 'planned', enumerated = ?, calls = ?, updated = ? WHERE id = ? AND state = 'planning'",
                           arguments: [enumerated, calls, Date().timeIntervalSince1970, plan.job])
        }
        withExtendedLifetime(plan.lock) {}
    }

    /// Drops a plan that failed part-way (nothing of it was ever applied).
    func discard(_ plan: PlanWriter) {
        _ = try? drop(plan.job)
        withExtendedLifetime(plan.lock) {}
    }

    /// Drops the plans whose process ended before finishing them (their lock is free).
    func dropAbandonedPlans() throws(JobError) {
        let planning = try read { db in try String.fetchAll(db, sql: "SELECT id FROM job WHERE state = 'planning'") }
        for id in planning where RunnerLock.probe(id, in: locks) == .free {
            try drop(id)
        }
    }

    private func drop(_ id: String) throws(JobError) {
        try write { db in
            try db.execute(sql: "DELETE FROM photo WHERE job = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM job WHERE id = ? AND state = 'planning'", arguments: [id])
        }
    }

    /// The encoder of the journal's `change` column (sorted keys: the same change, the same text).
    static var changeEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Inserts a job's row.
    func insertRow(_ job: NewJob, state: String) throws(JobError) {
        let encoder = Self.changeEncoder
        try write { db in
            let now = Date().timeIntervalSince1970
            try db.execute(sql: """
                INSERT INTO job (id, kind, undo_of, state, created, updated, owner, endpoint, rules, query, plan_time, enumerated, calls)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [job.id, job.kind.rawValue, job.undoOf, state, now, now, job.owner, job.endpoint,
                                 String(decoding: try encoder.encode(job.rules), as: UTF8.self),
                                 String(decoding: try encoder.encode(job.query), as: UTF8.self),
                                 job.planTime, job.enumerated, job.calls])
        }
    }

    /// A job's photos in plan order, `size` at a time, each page handed to `body` (a plan of
    /// any size is read back in bounded memory: the diff, the JSON, a Lua plan's photos); with
    /// `statuses`, only the photos in one of them.
    public func eachPage<Change: JobChange>(of job: String, as: Change.Type, statuses: Set<PhotoStatus>? = nil, size: Int = 500,
                                            _ body: ([JournalEntry<Change>]) throws -> Void) throws {
        let only = statuses.map { " AND status IN (" + $0.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ") + ")" } ?? ""
        var after = -1
        while true {
            let page = try read { db in
                try Row.fetchAll(db, sql: "SELECT seq, change, status, intent, detail FROM photo WHERE job = ? AND seq > ?\(only) ORDER BY seq LIMIT ?",
                                 arguments: [job, after, size]).map { row in
                    JournalEntry(seq: row["seq"], change: try JSONDecoder().decode(Change.self, from: Data((row["change"] as String).utf8)),
                                 status: PhotoStatus(rawValue: row["status"]) ?? .planned, intent: row["intent"], detail: row["detail"])
                }
            }
            guard let last = page.last else { return }
            try body(page)
            after = last.seq
        }
    }

    /// Writes job `id` as ``exported(_:)`` gives it — one JSON object, its photos' changes as
    /// the journal stores them — a page of photos at a time, to `emit`, at `indent`.
    public func writeExported(_ id: String, indent: String = "", to emit: (String) throws -> Void) throws {
        let head = try read { db -> [String: Any]? in
            guard let job = try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id]) else { return nil }
            return ["id": id, "kind": job["kind"] as String, "undo_of": (job["undo_of"] as String?) as Any? ?? NSNull(),
                    "owner": job["owner"] as String, "endpoint": job["endpoint"] as String, "rules": JSONText.parsed(job["rules"]),
                    "query": JSONText.parsed(job["query"]), "plan_time": job["plan_time"] as Int, "enumerated": job["enumerated"] as Int,
                    "calls": job["calls"] as Int]
        }
        guard let head else { throw JobError("no job \(id)") }
        var members = head.mapValues { JSONText.Member.value($0) }
        members["photos"] = .array { element in
            var after = -1
            while true {
                let rows = try self.read { db in
                    try Row.fetchAll(db, sql: "SELECT photo, seq, change, status, detail FROM photo WHERE job = ? AND seq > ? ORDER BY seq LIMIT 500",
                                     arguments: [id, after])
                }
                guard let last = rows.last else { return }
                for row in rows {
                    // The change is JSON already (sorted keys): written as stored.
                    let fields: [String: Any] = ["photo": row["photo"] as String, "seq": row["seq"] as Int, "status": row["status"] as String,
                                                 "detail": (row["detail"] as String?) as Any? ?? NSNull()]
                    try element(JSONText.object(fields, raw: ["change": row["change"] as String]))
                }
                after = last["seq"]
            }
        }
        try JSONText.write(members, indent: indent, to: emit)
    }
}
