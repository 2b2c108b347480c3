import Foundation
import GRDB

/// Where a photo of a job stands (the journal).
public enum PhotoStatus: String, Sendable, Codable, CaseIterable {
    /// Not yet touched.
    case planned
    /// A write was (or was about to be) sent: its outcome is unknown until recorded. Resume
    /// settles it by reading the photo, never by replaying the write blindly.
    case writing
    case done
    /// Changed by someone else since the plan: skipped, never overwritten.
    case conflict
    /// Failed after retries (the reason is in `detail`).
    case failed
    /// Refused at plan time — what Flickr would refuse for this photo (the reason is in
    /// `detail`): never sent, not a failure of the run.
    case refused
}

/// A job as `flickr jobs` lists it.
public struct JobSummary: Sendable, Hashable, Codable {
    public var id: String
    /// What the job changes; an undo has the kind of the job it takes back.
    public var kind: JobKind
    /// For an undo, and only for one: the job it takes back.
    public var undoOf: String?
    /// planned | running | interrupted | done | failed | undone, and while a plan is being
    /// stored: planning (incomplete: its planner ended first)
    public var state: String
    public var created: Double
    public var owner: String
    public var endpoint: String
    public var rules: [String]
    public var enumerated: Int
    /// The photos it changes (those refused at plan time are not among them).
    public var photos: Int
    public var done: Int
    public var failed: Int
    public var conflicts: Int
    /// Photos refused at plan time (never sent).
    public var refused: Int
    public var calls: Int
}

/// What a new job records.
struct NewJob {
    var id: String
    var kind: JobKind
    var undoOf: String?
    var owner: String
    var endpoint: String
    var rules: [String]
    var query: [String: String]
    var planTime: Int
    var enumerated: Int
    var calls: Int
    var changes: [PhotoChange]
}

extension JobStore {
    /// A fresh job id: `KIND-YYYYMMDD-HHMMSS-xxxx`.
    static func newID(kind: String, now: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return "\(kind)-\(f.string(from: now))-\(String(UInt16.random(in: 0...UInt16.max), radix: 16).leftPadded(4))"
    }

    /// Stores a planned job and its photos in one transaction.
    func create(_ job: NewJob) throws(JobError) {
        try create(job, changes: job.changes)
    }

    /// Stores a planned job and its photos' changes (a retag's ``PhotoChange``s or an edit's
    /// ``EditChange``s, as JSON in the journal's `change` column) in one transaction.
    func create<Change: JobChange>(_ job: NewJob, changes: [Change]) throws(JobError) {
        try write { db in
            try Self.insertRow(job, state: "planned", in: db)
            _ = try Self.insertPhotos(changes.map { ($0, PhotoStatus.planned, nil) }, job: job.id, from: 0, in: db)
        }
    }

    /// Every job, newest first.
    public func jobs() throws(JobError) -> [JobSummary] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT j.*, (SELECT COUNT(*) FROM photo p WHERE p.job = j.id AND p.status != 'refused') AS photos,
                  (SELECT COUNT(*) FROM photo p WHERE p.job = j.id AND p.status = 'refused') AS refused,
                  (SELECT COUNT(*) FROM photo p WHERE p.job = j.id AND p.status = 'done') AS done,
                  (SELECT COUNT(*) FROM photo p WHERE p.job = j.id AND p.status = 'failed') AS failed,
                  (SELECT COUNT(*) FROM photo p WHERE p.job = j.id AND p.status = 'conflict') AS conflicts
                FROM job j ORDER BY j.created DESC, j.id DESC
                """)
            return try rows.map(summary)
        }
    }

    /// A job's kind from its row; a kind this version does not know (a newer version's) is an
    /// error, never taken for another.
    static func kind(_ row: Row) throws(JobError) -> JobKind {
        let text: String = row["kind"]
        guard let kind = JobKind(rawValue: text) else {
            throw JobError("job \(row["id"] as String? ?? "?") is of kind '\(text)', which this version of flickr does not know")
        }
        return kind
    }

    func summary(_ row: Row) throws(JobError) -> JobSummary {
        var state: String = row["state"]
        // Running means a process holds the job's lock; a run that ended without saying so
        // (kill -9, a power cut) left it interrupted.
        if state == "running", RunnerLock.probe(row["id"], in: locks) == .free { state = "interrupted" }
        // Planning means its planner holds the lock; one that ended first left the plan incomplete
        // (never run; the next plan drops it).
        if state == "planning", RunnerLock.probe(row["id"], in: locks) == .free { state = "incomplete" }
        let rules = (try? JSONDecoder().decode([String].self, from: Data((row["rules"] as String).utf8))) ?? []
        return JobSummary(id: row["id"], kind: try Self.kind(row), undoOf: row["undo_of"], state: state, created: row["created"],
                          owner: row["owner"], endpoint: row["endpoint"], rules: rules, enumerated: row["enumerated"],
                          photos: row["photos"], done: row["done"], failed: row["failed"], conflicts: row["conflicts"],
                          refused: row["refused"], calls: row["calls"])
    }

    /// The folder of the runners' locks (``RunnerLock``), beside the database.
    public var locks: String { RunnerLock.directory(forDatabase: path) }

    /// Takes job `id` for this process: exactly one runner per job. Throws
    /// ``RunnerLock/Busy`` (naming the holder) when another process runs it.
    public func lock(_ id: String, command: String) throws -> RunnerLock {
        try RunnerLock.acquire(id, in: locks, command: command)
    }

    /// The job `id`, or for `last` the newest job that `accept` takes.
    public func job(_ id: String, where accept: (JobSummary) -> Bool = { _ in true }) throws(JobError) -> JobSummary {
        let all = try jobs()
        if id == "last" {
            guard let job = all.first(where: accept) else { throw JobError("no job to take as 'last' (see flickr jobs)") }
            return job
        }
        guard let job = all.first(where: { $0.id == id }) else { throw JobError("no job \(id) (see flickr jobs)") }
        return job
    }

    /// Records a photo's status (and, while writing, the write under way) durably.
    func record(job: String, photo: String, _ status: PhotoStatus, intent: String? = nil, detail: String? = nil,
                calls: Int = 0) throws(JobError) {
        try write { db in
            try db.execute(sql: "UPDATE photo SET status = ?, intent = ?, detail = ? WHERE job = ? AND photo = ?",
                           arguments: [status.rawValue, intent, detail, job, photo])
            if calls > 0 {
                try db.execute(sql: "UPDATE job SET calls = calls + ?, updated = ? WHERE id = ?",
                               arguments: [calls, Date().timeIntervalSince1970, job])
            }
        }
    }

    /// Counts calls made for a job (reads that settle or check).
    func count(calls: Int, job: String) throws(JobError) {
        guard calls > 0 else { return }
        try write { db in
            try db.execute(sql: "UPDATE job SET calls = calls + ?, updated = ? WHERE id = ?", arguments: [calls, Date().timeIntervalSince1970, job])
        }
    }

    /// Sets a job's state (and the pid applying it).
    func setState(_ state: String, job: String, runner: Int32? = nil) throws(JobError) {
        try write { db in
            try db.execute(sql: "UPDATE job SET state = ?, runner = ?, updated = ? WHERE id = ?",
                           arguments: [state, runner, Date().timeIntervalSince1970, job])
        }
    }

    /// The plan time, owner, endpoint, kind and (for an undo) the job it takes back.
    func header(_ job: String) throws(JobError) -> (planTime: Int, owner: String, endpoint: String, kind: JobKind, undoOf: String?) {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, plan_time, owner, endpoint, kind, undo_of FROM job WHERE id = ?", arguments: [job]) else {
                throw JobError("no job \(job)")
            }
            return (row["plan_time"], row["owner"], row["endpoint"], try Self.kind(row), row["undo_of"])
        }
    }

    /// The selection a job recorded (a push: its folders, `dirs`, one per line).
    public func query(of job: String) throws(JobError) -> [String: String] {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT query FROM job WHERE id = ?", arguments: [job]) else { throw JobError("no job \(job)") }
            return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
        }
    }

    /// What job `id` changes (an undo: what the job it takes back changed).
    public func kind(of id: String) throws(JobError) -> JobKind {
        try header(id).kind
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension JobStore {
    /// Stores a planned job a plan file carries (``writeExported(_:indent:to:)``'s object), as planned, when
    /// this database does not hold it yet; returns it. What cannot be a planned job of a known
    /// kind — a job already run, a change that does not read as its kind's — is refused
    /// whole, nothing stored.
    public func importPlanned(_ stored: [String: Any]) throws(JobError) -> JobSummary {
        guard let id = stored["id"] as? String, let kindName = stored["kind"] as? String, let kind = JobKind(rawValue: kindName),
              let owner = stored["owner"] as? String, let endpoint = stored["endpoint"] as? String,
              let planTime = stored["plan_time"] as? Int, let photos = stored["photos"] as? [[String: Any]] else {
            throw JobError("the plan file's job is incomplete (id, kind, owner, endpoint, plan_time and photos are needed)")
        }
        if let held = try? job(id) { return held }
        var rows: [(photo: String, seq: Int, change: String, status: String, detail: String?)] = []
        for p in photos {
            guard let photo = p["photo"] as? String, let seq = p["seq"] as? Int, let change = p["change"],
                  let status = (p["status"] as? String).flatMap(PhotoStatus.init(rawValue:)), status == .planned || status == .refused,
                  let data = try? JSONSerialization.data(withJSONObject: change, options: [.sortedKeys]) else {
                throw JobError("the plan file's photo \(p["photo"] as? String ?? "?") is not a planned photo of job \(id)")
            }
            // Each change must read as its kind's: what apply will decode.
            let readable = switch kind {
            case .retag: (try? JSONDecoder().decode(PhotoChange.self, from: data)) != nil
            case .edit: (try? JSONDecoder().decode(EditChange.self, from: data)) != nil
            case .push: (try? JSONDecoder().decode(PushChange.self, from: data)) != nil
            }
            guard readable else { throw JobError("the plan file's photo \(photo) has no \(kind.rawValue) change that can be read") }
            rows.append((photo, seq, String(decoding: data, as: UTF8.self), status.rawValue, p["detail"] as? String))
        }
        func text(_ value: Any?) -> String {
            value.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .fragmentsAllowed]) }
                .map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
        try write { db in
            let now = Date().timeIntervalSince1970
            try db.execute(sql: """
                INSERT INTO job (id, kind, undo_of, state, created, updated, owner, endpoint, rules, query, plan_time, enumerated, calls)
                VALUES (?, ?, ?, 'planned', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, kind.rawValue, stored["undo_of"] as? String, now, now, owner, endpoint, text(stored["rules"]),
                                 stored["query"] == nil ? "{}" : text(stored["query"]), planTime, stored["enumerated"] as? Int ?? rows.count,
                                 stored["calls"] as? Int ?? 0])
            for row in rows {
                try db.execute(sql: "INSERT INTO photo (job, photo, seq, change, status, detail) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [id, row.photo, row.seq, row.change, row.status, row.detail])
            }
        }
        return try job(id)
    }
}
