import FlickrProtocol
import Foundation

/// How an edit plan is shown, the one way `flickr edit plan` (its diff, summary, `--json` and
/// `--out`) and `flickr.edit.plan` (the plan's `diff` lines, `summary`, `apply_calls` and
/// `:save`) both write it.
public enum EditReport {
    /// Names to show beside ids in a diff: licences (`photos.licenses.getInfo`) and sets
    /// (`photosets.getList`) when they were read.
    public struct Names: Sendable {
        public var licenses: [Int: String]
        public var sets: [String: String]

        public init(licenses: [Int: String] = [:], sets: [String: String] = [:]) {
            (self.licenses, self.sets) = (licenses, sets)
        }

        /// `5 (Attribution-ShareAlike License)`, or `5` when the list was not read.
        public func license(_ id: Int) -> String { licenses[id].map { "\(id) (\($0))" } ?? String(id) }

        /// `72157… (Iceland)`, or `"Iceland" (created by apply)` for a set `--create-set` makes.
        public func set(_ id: String) -> String {
            if id.hasPrefix("new:") { return "\"\(id.dropFirst(4))\" (created by apply)" }
            return sets[id].map { "\(id) (\($0))" } ?? id
        }
    }

    /// One group's change as diff lines: `title: "IMG_0042" → "2019-07-02 Reykjavík"`,
    /// `license: 0 (All Rights Reserved) → 5 (…)`, `sets: + ID (TITLE)`, `tags: - fog`.
    public static func lines(_ from: EditValue, _ to: EditValue, names: Names) -> [String] {
        func q(_ s: String) -> String { JSONValue.quote(s) }
        switch (from, to) {
        case let (.meta(t0, d0), .meta(t1, d1)):
            return (t0 == t1 ? [] : ["title: \(q(t0)) → \(q(t1))"]) + (d0 == d1 ? [] : ["description: \(q(d0)) → \(q(d1))"])
        case let (.dates(a, g0), .dates(b, g1)):
            // A date known only to the month or year says so on both sides.
            guard g0 != 0 || g1 != 0 else { return ["date_taken: \(q(a)) → \(q(b))"] }
            return ["date_taken: \(q(a)) (\(TakenDate.granularityName(g0))) → \(q(b)) (\(TakenDate.granularityName(g1)))"]
        case let (.perms(a), .perms(b)): return ["privacy: \(a) → \(b)"]
        case let (.license(a), .license(b)): return ["license: \(names.license(a)) → \(names.license(b))"]
        case let (.sets(a), .sets(b)):
            return b.subtracting(a).sorted().map { "sets: + \(names.set($0))" } + a.subtracting(b).sorted().map { "sets: - \(names.set($0))" }
        case let (.tags(a), .tags(b)):
            return a.filter { !b.contains($0) }.map { "tags: - \($0)" } + b.filter { !a.contains($0) }.map { "tags: + \($0)" }
        default:
            return ["\(to.field.rawValue): \(from) → \(to)"]
        }
    }

    /// A photo's diff lines, group after group.
    public static func lines(_ change: EditChange, names: Names) -> [String] {
        change.targets.flatMap { lines(change.pre.value($0.field), $0, names: names) }
    }

    /// What an edit plan's changes add up to (its stored photos read once): photos changed
    /// per field group, and the calls an apply makes.
    public struct Tally: Sendable {
        public var changed = 0
        public var perField: [EditField: Int] = [:]
        /// The writes: one per group per photo (per set joined or left).
        var writes = 0

        public init() {}

        /// Calls an apply makes: the writes, and one `recentlyUpdated` per 500 photos for the
        /// conflict check.
        public var applyCalls: Int { writes + max(1, (changed + 499) / 500) }

        public mutating func add(_ change: EditChange) {
            changed += 1
            writes += change.calls
            for field in change.fields { perField[field, default: 0] += 1 }
        }
    }

    /// The tally of job `r`'s planned photos, read a page at a time.
    public static func tally(_ r: EditPlanner.Result, store: JobStore) throws -> Tally {
        var tally = Tally()
        try store.eachPage(of: r.job, as: EditChange.self, statuses: [.planned]) { page in
            for photo in page { tally.add(photo.change) }
        }
        return tally
    }

    /// `42 s`, `3 min 20 s`, `2 h 5 min`.
    public static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3_600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3_600) h \(s % 3_600 / 60) min"
    }

    /// What the job changes, field by field, and what that costs (with the ETA at `budget`):
    /// two lines.
    public static func summary(_ r: EditPlanner.Result, tally: Tally, budget: CallBudget?) -> [String] {
        let fields = EditField.allCases.compactMap { f in tally.perField[f].map { "\(f.rawValue) \($0)" } }
        let calls = tally.applyCalls
        let pace = budget.map { b in
            "ETA at \(b.calls.formatted()) calls per \(Int(b.seconds).formatted()) s: \(duration(Double(calls) * b.seconds / Double(b.calls)))"
        } ?? "no call budget applies to this endpoint"
        return ["job \(r.job): \(r.changed) photo\(r.changed == 1 ? "" : "s") to change of \(r.enumerated) looked at"
                + (fields.isEmpty ? "" : "; changes per field: " + fields.joined(separator: ", "))
                + (r.refused == 0 ? "" : "; \(r.refused) refused")
                + (r.conflicts == 0 ? "" : "; \(r.conflicts) conflict\(r.conflicts == 1 ? "" : "s") (changed since the job; --force to undo them anyway)"),
                "apply will cost about \(calls) call\(calls == 1 ? "" : "s") (\(pace)); the plan took \(r.calls) call\(r.calls == 1 ? "" : "s")"]
    }

    /// A refused photo's line: `photo ID: not changed: dates: date taken … is before 1900`.
    public static func refusedLine(photo: String, _ refusal: EditRefusal) -> String {
        "photo \(photo): not changed: \(refusal)"
    }

    /// A refused photo's line from its journal entry.
    static func refusedLine(_ entry: EditJobPhoto) -> String {
        let detail = entry.detail ?? ""
        return EditRefusal(journalDetail: detail).map { refusedLine(photo: entry.change.photoID, $0) }
            ?? "photo \(entry.change.photoID): not changed: \(detail)"
    }

    /// The per-photo, per-field diff, the refused photos and the conflicts, then the summary,
    /// read from the store a page at a time and handed to `emit` as lines (each ending in a
    /// newline). Returns the tally.
    @discardableResult
    public static func writeDiff(_ r: EditPlanner.Result, store: JobStore, budget: CallBudget?, names: Names,
                                 to emit: (String) throws -> Void) throws -> Tally {
        var tally = Tally()
        try store.eachPage(of: r.job, as: EditChange.self, statuses: [.planned]) { page in
            for photo in page {
                tally.add(photo.change)
                try emit("photo \(photo.change.pre.photoID)\n" + lines(photo.change, names: names).map { "  " + $0 + "\n" }.joined())
            }
        }
        if r.refused > 0 {
            try store.eachPage(of: r.job, as: EditChange.self, statuses: [.refused]) { page in
                for photo in page { try emit(refusedLine(photo) + "\n") }
            }
        }
        if r.conflicts > 0 {
            try store.eachPage(of: r.job, as: EditChange.self, statuses: [.conflict]) { page in
                for photo in page { try emit("photo \(photo.change.pre.photoID): conflict, left as it is: \(photo.detail ?? "")\n") }
            }
        }
        try emit("\n" + summary(r, tally: tally, budget: budget).map { $0 + "\n" }.joined())
        return tally
    }

    /// The plan as a JSON document (`flickr edit plan --json` and `--out`, `plan:save`), which
    /// `flickr edit apply FILE` takes: `job`, `database`, `enumerated`, `photos` (`id`,
    /// `lastupdate`, `changes` with `field`, `group`, `from`, `to`, and `diff`), `refused`,
    /// `apply_calls`, `plan_calls`, and `stored`, the job as `store` holds it (what another
    /// machine's apply imports). Written a photo at a time to `emit`; no final newline.
    public static func writePlanJSON(_ r: EditPlanner.Result, store: JobStore, names: Names, to emit: (String) throws -> Void) throws {
        try store.writePlanDocument(job: r.job, as: EditChange.self, enumerated: r.enumerated, applyCalls: try tally(r, store: store).applyCalls,
                                    planCalls: r.calls, photo: { change in
            ["id": change.pre.photoID, "lastupdate": change.pre.lastUpdate, "changes": EditFieldChange.changes(of: change).map(\.json),
             "diff": lines(change, names: names)]
        }, refusal: { photo in
            let refusal = photo.detail.flatMap(EditRefusal.init(journalDetail:))
            return ["id": photo.change.pre.photoID, "field": refusal?.field.rawValue ?? "", "reason": refusal?.reason ?? photo.detail ?? ""]
        }, to: emit)
    }
}
