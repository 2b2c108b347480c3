import FlickrCommandLine
import FlickrJobs
import Foundation

/// `flickr jobs [--json]` and `flickr jobs show JOB [--json]`: the job database, read only.
enum JobsCommand {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "jobs")
        let json = parsed.has("json")
        let words = parsed.positional
        let store = try JobStore(path: JobStore.defaultPath(environment: env))
        if words.first == "show" {
            guard words.count == 2 else { throw Invocation.UsageError(message: "usage: flickr jobs show JOB [--json]") }
            return try show(words[1], store: store, json: json)
        }
        guard words.isEmpty else { throw Invocation.UsageError(message: "usage: flickr jobs [--json] | jobs show JOB [--json]") }
        let jobs = try store.jobs()
        if json {
            let array: [[String: Any]] = jobs.map(object)
            print(String(decoding: try JSONSerialization.data(withJSONObject: array, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self))
            return 0
        }
        if jobs.isEmpty {
            print("no jobs yet (flickr retag plan … makes one); database: \(store.path)")
            return 0
        }
        print("JOB                                STATE        PHOTOS  DONE  FAILED  CONFLICTS  CALLS")
        for j in jobs {
            print(j.id.padding(toLength: 35, withPad: " ", startingAt: 0) + j.state.padding(toLength: 13, withPad: " ", startingAt: 0)
                  + pad(j.photos, 6) + pad(j.done, 6) + pad(j.failed, 8) + pad(j.conflicts, 11) + pad(j.calls, 7))
        }
        return 0
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: " ", count: max(1, width - s.count)) + s
    }

    /// The fields of `flickr jobs --json`.
    static func object(_ j: JobSummary) -> [String: Any] {
        ["id": j.id, "kind": j.kind, "parent": j.parent as Any? ?? NSNull(), "state": j.state, "created": j.created, "rules": j.rules,
         "enumerated": j.enumerated, "photos": j.photos, "done": j.done, "failed": j.failed, "conflicts": j.conflicts, "calls": j.calls]
    }

    static func show(_ id: String, store: JobStore, json: Bool) throws -> Int32 {
        let job: JobSummary
        do { job = try store.job(id) } catch { throw Invocation.UsageError(message: error.message) }
        if try store.isEdit(job.id) { return try showEdit(job, store: store, json: json) }
        let photos = try store.photos(of: job.id)
        if json {
            var o = object(job)
            o["photos_detail"] = photos.map { p -> [String: Any] in
                ["id": p.change.pre.photoID, "status": p.status.rawValue, "detail": p.detail as Any? ?? NSNull(),
                 "removed": p.change.removed, "added": p.change.added]
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self))
            return 0
        }
        print("job \(job.id) (\(job.kind)\(job.parent.map { " of \($0)" } ?? "")): \(job.state)")
        print("rules: \(job.rules.joined(separator: " "))")
        print("endpoint: \(job.endpoint), account \(job.owner)")
        print("\(job.photos) photos: \(job.done) done, \(job.failed) failed, \(job.conflicts) conflicts; \(job.calls) calls; \(job.enumerated) looked at")
        for p in photos where p.status != .done {
            print("  \(p.status.rawValue): photo \(p.change.pre.photoID)\(p.detail.map { ": " + $0 } ?? "")")
        }
        return 0
    }

    /// `jobs show` of an edit job (or its undo): each photo's fields and status.
    static func showEdit(_ job: JobSummary, store: JobStore, json: Bool) throws -> Int32 {
        let photos = try store.editPhotos(of: job.id)
        if json {
            var o = object(job)
            o["photos_detail"] = photos.map { p -> [String: Any] in
                ["id": p.change.pre.photoID, "status": p.status.rawValue, "detail": p.detail as Any? ?? NSNull(),
                 "changes": p.change.targets.map { ["field": $0.field.rawValue, "from": p.change.pre.value($0.field).description,
                                                    "to": $0.description] }]
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self))
            return 0
        }
        print("job \(job.id) (\(job.kind)\(job.parent.map { " of \($0)" } ?? "")): \(job.state)")
        print("changes: \(job.rules.joined(separator: " "))")
        print("endpoint: \(job.endpoint), account \(job.owner)")
        print("\(job.photos) photos: \(job.done) done, \(job.failed) failed, \(job.conflicts) conflicts; \(job.calls) calls; \(job.enumerated) looked at")
        for p in photos where p.status != .done {
            print("  \(p.status.rawValue): photo \(p.change.pre.photoID)\(p.detail.map { ": " + $0 } ?? "")")
        }
        return 0
    }
}
