import FlickrCommandLine
import FlickrJobs
import Foundation

/// `flickr jobs [--json]` and `flickr jobs show JOB [--all] [--json]`: the job database, read only;
/// `flickr jobs apply|resume|undo JOB`: any job, whatever its kind (``JobRunCommand``).
enum JobsCommand {
    /// The options each word takes (the spec lists them all, for `jobs`'s help and completion):
    /// `--json` for the list and `show`, and for `apply`, `resume` and `undo` those of the run
    /// actions that `retag` and `edit` share.
    static let optionsOf: [String: Set<String>] = CommandLineSpec.runActions.reduce(into: ["": ["json"], "show": ["json", "all"]]) {
        $0[$1.name] = Set($1.options.map(\.name))
    }

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        var parsed = try CommandLineParser.parse(args, for: "jobs")
        let json = parsed.has("json")
        let words = parsed.positional
        let word = words.first ?? ""
        if let option = parsed.given.first(where: { !(optionsOf[word] ?? []).contains($0.name) }) {
            throw Invocation.UsageError(message: "--\(option.name) does not go with flickr jobs\(word.isEmpty ? "" : " " + word); "
                                        + "usage: flickr jobs \(CommandLineSpec.subcommand(named: "jobs")?.synopsis ?? "")")
        }
        switch word {
        case "apply", "resume", "undo":
            guard words.count == 2 else {
                throw Invocation.UsageError(message: "usage: flickr jobs \(word) JOB (an id, a plan file or last)")
            }
            parsed.positional.removeFirst()
            switch word {
            case "apply": return try await JobRunCommand.apply(parsed, inv, env, front: .jobs)
            case "resume": return try await JobRunCommand.resume(parsed, inv, env, front: .jobs)
            default: return try await JobRunCommand.undo(parsed, inv, env, front: .jobs)
            }
        default:
            break
        }
        let store = try JobStore(path: JobStore.defaultPath(environment: env))
        if word == "show" {
            guard words.count == 2 else { throw Invocation.UsageError(message: "usage: flickr jobs show JOB [--all] [--json]") }
            return try show(words[1], store: store, json: json, all: parsed.has("all"))
        }
        guard words.isEmpty else { throw Invocation.UsageError(message: "usage: flickr jobs [--json] | jobs show JOB [--all] [--json]") }
        let jobs = try store.jobs()
        if json {
            let array: [[String: Any]] = jobs.map(object)
            print(String(decoding: try JSONSerialization.data(withJSONObject: array, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self))
            return 0
        }
        if jobs.isEmpty {
            print("no jobs yet (flickr retag plan or flickr edit plan makes one); database: \(store.path)")
            return 0
        }
        print("JOB                                KIND   STATE        PHOTOS  DONE  FAILED  CONFLICTS  CALLS")
        for j in jobs {
            print(j.id.padding(toLength: 35, withPad: " ", startingAt: 0) + j.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
                  + j.state.padding(toLength: 13, withPad: " ", startingAt: 0)
                  + pad(j.photos, 6) + pad(j.done, 6) + pad(j.failed, 8) + pad(j.conflicts, 11) + pad(j.calls, 7))
        }
        return 0
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: " ", count: max(1, width - s.count)) + s
    }

    /// The fields of `flickr jobs --json`: `kind` is what the job changes (an undo has the kind
    /// of the job it takes back); `undo_of`, for an undo and only for one, names that job
    /// (`parent`, its name before, stays: null but for an undo).
    static func object(_ j: JobSummary) -> [String: Any] {
        var o: [String: Any] = [
            "id": j.id, "kind": j.kind.rawValue, "parent": j.undoOf as Any? ?? NSNull(), "state": j.state, "created": j.created,
            "rules": j.rules, "enumerated": j.enumerated, "photos": j.photos, "done": j.done, "failed": j.failed,
            "conflicts": j.conflicts, "refused": j.refused, "calls": j.calls,
        ]
        if let undone = j.undoOf { o["undo_of"] = undone }
        return o
    }

    /// One photo of a job as `jobs show` gives it: its status, the reason, and its changes
    /// (a retag's tags removed and added, an edit's fields).
    struct ShownPhoto {
        var id: String
        var status: PhotoStatus
        var detail: String?
        var changes: [String: Any]
    }

    /// `jobs show`: the job, its photos counted by status, and what a person acts on — each
    /// photo that failed, conflicted or was refused at plan time, with its reason; `all`
    /// lists every photo; `json` gives the job with every photo (`photos_detail`) and the counts.
    static func show(_ id: String, store: JobStore, json: Bool, all: Bool) throws -> Int32 {
        let job: JobSummary
        do { job = try store.job(id) } catch { throw Invocation.UsageError(message: error.message) }
        let photos: [ShownPhoto] = switch job.kind {
        case .retag:
            try store.photos(of: job.id).map { ShownPhoto(id: $0.change.pre.photoID, status: $0.status, detail: $0.detail,
                                                          changes: ["removed": $0.change.removed, "added": $0.change.added]) }
        case .edit:
            try store.editPhotos(of: job.id).map { ShownPhoto(id: $0.change.pre.photoID, status: $0.status, detail: $0.detail,
                                                              changes: ["changes": EditFieldChange.changes(of: $0.change).map(\.json)]) }
        case .push:
            try store.pushSteps(of: job.id).map { ShownPhoto(id: $0.change.photo ?? $0.change.path, status: $0.status, detail: $0.detail,
                                                             changes: PushCommand.object($0.change)) }
        }
        var counts: [String: Int] = [:]
        for status in PhotoStatus.allCases { counts[status.rawValue] = 0 }
        for p in photos { counts[p.status.rawValue, default: 0] += 1 }
        if json {
            var o = object(job)
            o["counts"] = counts
            o["photos_detail"] = photos.map { p -> [String: Any] in
                ["id": p.id, "status": p.status.rawValue, "detail": p.detail as Any? ?? NSNull()].merging(p.changes) { a, _ in a }
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self))
            return 0
        }
        print("job \(job.id) (\(job.kind.rawValue)\(job.undoOf.map { ", the undo of \($0)" } ?? "")): \(job.state)")
        print("\(job.kind == .retag ? "rules" : "changes"): \(job.rules.joined(separator: " "))")
        print("endpoint: \(job.endpoint), account \(job.owner)")
        print("\(job.calls) calls; \(job.enumerated) photos looked at")
        print(PhotoStatus.allCases.filter { counts[$0.rawValue, default: 0] > 0 || [.planned, .done, .failed, .conflict].contains($0) }
            .map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(separator: ", "))
        let shown = all ? photos : photos.filter { [.failed, .conflict, .refused].contains($0.status) }
        for p in shown { print("  \(p.status.rawValue): photo \(p.id)\(p.detail.map { ": " + $0 } ?? "")") }
        if !all, shown.count < photos.count { print("(every photo: flickr jobs show \(job.id) --all)") }
        return 0
    }
}
