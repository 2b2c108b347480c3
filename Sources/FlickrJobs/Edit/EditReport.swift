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

    /// Photos changed per field group.
    public static func perField(_ changes: [EditChange]) -> [EditField: Int] {
        var out: [EditField: Int] = [:]
        for change in changes { for field in change.fields { out[field, default: 0] += 1 } }
        return out
    }

    /// Calls an apply makes: one per group per photo (per set joined or left), and one
    /// `recentlyUpdated` per 500 photos for the conflict check.
    public static func applyCalls(_ changes: [EditChange]) -> Int {
        changes.reduce(0) { $0 + $1.calls } + max(1, (changes.count + 499) / 500)
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
    public static func summary(_ r: EditPlanner.Result, budget: CallBudget?) -> [String] {
        let counts = perField(r.changes)
        let fields = EditField.allCases.compactMap { f in counts[f].map { "\(f.rawValue) \($0)" } }
        let calls = applyCalls(r.changes)
        let pace = budget.map { b in
            "ETA at \(b.calls.formatted()) calls per \(Int(b.seconds).formatted()) s: \(duration(Double(calls) * b.seconds / Double(b.calls)))"
        } ?? "no call budget applies to this endpoint"
        return ["job \(r.job): \(r.changes.count) photo\(r.changes.count == 1 ? "" : "s") to change of \(r.enumerated) looked at"
                + (fields.isEmpty ? "" : "; changes per field: " + fields.joined(separator: ", "))
                + (r.refused.isEmpty ? "" : "; \(r.refused.count) refused")
                + (r.conflicts.isEmpty ? "" : "; \(r.conflicts.count) conflict\(r.conflicts.count == 1 ? "" : "s") (changed since the job; --force to undo them anyway)"),
                "apply will cost about \(calls) call\(calls == 1 ? "" : "s") (\(pace)); the plan took \(r.calls) call\(r.calls == 1 ? "" : "s")"]
    }

    /// A refused photo's line: `photo ID: not changed: dates: date taken … is before 1900`.
    public static func refusedLine(photo: String, _ refusal: EditRefusal) -> String {
        "photo \(photo): not changed: \(refusal)"
    }

    /// The per-photo, per-field diff, the refused photos and the conflicts, then the summary.
    public static func diff(_ r: EditPlanner.Result, budget: CallBudget?, names: Names) -> String {
        var out: [String] = []
        for change in r.changes {
            out.append("photo \(change.pre.photoID)")
            out += lines(change, names: names).map { "  " + $0 }
        }
        for (photo, refusal) in r.refused { out.append(refusedLine(photo: photo, refusal)) }
        for (photo, reason) in r.conflicts { out.append("photo \(photo): conflict, left as it is: \(reason)") }
        out.append("")
        out += summary(r, budget: budget)
        return out.joined(separator: "\n")
    }

    /// The plan as a JSON document (`flickr edit plan --json` and `--out`, `plan:save`), which
    /// `flickr edit apply FILE` takes: `job`, `database`, `enumerated`, `photos` (`id`,
    /// `lastupdate`, `changes` with `field`, `group`, `from`, `to`, and `diff`), `refused`,
    /// `apply_calls`, `plan_calls`, and `stored`, the job as `store` holds it (what another
    /// machine's apply imports). No final newline.
    public static func planJSON(_ r: EditPlanner.Result, store: JobStore, names: Names) throws -> String {
        let photos: [[String: Any]] = r.changes.map { change in
            ["id": change.pre.photoID, "lastupdate": change.pre.lastUpdate,
             "changes": EditFieldChange.changes(of: change).map(\.json),
             "diff": lines(change, names: names)]
        }
        let object: [String: Any] = [
            "job": r.job, "database": store.path, "enumerated": r.enumerated, "photos": photos, "stored": try store.exported(r.job),
            "refused": r.refused.map { ["id": $0.photo, "field": $0.refusal.field.rawValue, "reason": $0.refusal.reason] },
            "apply_calls": applyCalls(r.changes), "plan_calls": r.calls,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
