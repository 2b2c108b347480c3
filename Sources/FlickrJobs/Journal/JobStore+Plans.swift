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
        try write { db in try Self.insertRow(job, state: "planning", in: db) }
        return PlanWriter(job: job.id, lock: lock)
    }

    /// Stores a batch of a plan's photos in plan order, in one transaction: `changes` as
    /// planned, then `refused` (each with its journal detail) as refused.
    func append<Change: JobChange>(_ plan: inout PlanWriter, changes: [Change], refused: [(Change, String)]) throws(JobError) {
        let (job, first) = (plan.job, plan.seq)
        plan.seq = try write { db in
            try Self.insertPhotos(changes.map { ($0, .planned, nil) } + refused.map { ($0.0, .refused, $0.1) }, job: job, from: first, in: db)
        }
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

    /// Inserts a job's row in `state` (one of the store's transactions).
    static func insertRow(_ job: NewJob, state: String, in db: Database) throws {
        let encoder = changeEncoder
        let now = Date().timeIntervalSince1970
        try db.execute(sql: """
            INSERT INTO job (id, kind, undo_of, state, created, updated, owner, endpoint, rules, query, plan_time, enumerated, calls)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [job.id, job.kind.rawValue, job.undoOf, state, now, now, job.owner, job.endpoint,
                             String(decoding: try encoder.encode(job.rules), as: UTF8.self),
                             String(decoding: try encoder.encode(job.query), as: UTF8.self),
                             job.planTime, job.enumerated, job.calls])
    }

    /// Inserts `photos` of `job` in plan order from place `first` (one of the store's
    /// transactions); returns the place after the last.
    static func insertPhotos<Change: JobChange>(_ photos: [(change: Change, status: PhotoStatus, detail: String?)], job: String, from first: Int,
                                                in db: Database) throws -> Int {
        let encoder = changeEncoder
        let insert = try db.cachedStatement(sql: "INSERT INTO photo (job, photo, seq, change, status, detail) VALUES (?, ?, ?, ?, ?, ?)")
        for (i, photo) in photos.enumerated() {
            try insert.execute(arguments: [job, photo.change.photoID, first + i, String(decoding: try encoder.encode(photo.change), as: UTF8.self),
                                           photo.status.rawValue, photo.detail])
        }
        return first + photos.count
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
                                 arguments: [job, after, size]).map { try JournalEntry<Change>(row: $0) }
            }
            guard let last = page.last else { return }
            try body(page)
            after = last.seq
        }
    }

    /// A plan as one JSON document, the shape every kind writes (`--json`, `--out`, Lua's
    /// `plan:save`) and `apply FILE` takes: `job`, `database`, `enumerated`, `apply_calls`,
    /// `plan_calls`, `photos` (an object per planned photo, made by `photo`), `refused` (an
    /// object per refused one, made by `refusal`) and `stored`, the job as this database holds
    /// it (``writeExported(_:indent:to:)``). Written to `emit` a photo at a time; no final newline.
    public func writePlanDocument<Change: JobChange>(job: String, as: Change.Type, enumerated: Int, applyCalls: Int, planCalls: Int,
                                                     photo: @escaping (Change) -> [String: Any],
                                                     refusal: @escaping (JournalEntry<Change>) -> [String: Any],
                                                     to emit: (String) throws -> Void) throws {
        func each(_ status: PhotoStatus, _ object: @escaping (JournalEntry<Change>) -> [String: Any]) -> JSONText.Member {
            .array { element in
                try self.eachPage(of: job, as: Change.self, statuses: [status]) { page in
                    for entry in page { try element(JSONText.text(object(entry))) }
                }
            }
        }
        try JSONText.write([
            "job": .value(job), "database": .value(path), "enumerated": .value(enumerated),
            "apply_calls": .value(applyCalls), "plan_calls": .value(planCalls),
            "photos": each(.planned) { photo($0.change) }, "refused": each(.refused, refusal),
            "stored": .object { emit, indent in try self.writeExported(job, indent: indent, to: emit) },
        ], to: emit)
    }

    /// Writes job `id` as this database holds it — one JSON object, its record and each photo's
    /// change (as the journal stores it), status and detail — a page of photos at a time, to
    /// `emit`, at `indent`: the `stored` part of a plan file (`--out`), which
    /// ``importPlanned(_:)`` stores in another machine's job database.
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
