import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// `flickr retag plan RULES… [--query k=v…] [--out PLAN] [--json]`, `retag apply PLAN [--yes]`,
/// `retag resume [JOB|last]`, `retag undo [JOB|last] [--yes]` (CLI.md). Plan exits as `diff`
/// does: 0 nothing to change, 1 changes planned, 2 an error; apply, resume and undo exit 0 only
/// when every planned photo is done.
enum RetagCommand {
    static var usage: String { "usage: flickr retag " + (CommandLineSpec.subcommand(named: "retag")?.synopsis ?? "") }

    /// Exit status of apply, resume and undo when the job could not go on now and can be
    /// resumed later: the endpoint stayed unreachable, or another process runs the job
    /// (sysexits' EX_TEMPFAIL).
    static let tryLater: Int32 = 75

    /// `retag apply|resume|undo` are the jobs' one front end; `last` means the last retag job.
    static let front = JobRunCommand.Front(name: "retag", scope: .retag)

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "retag")
        switch parsed.action {
        case "plan":
            // plan exits as diff does: 2 for any error, the job database's included.
            do { return try await plan(parsed, inv, env) } catch let error as JobError {
                FileHandleOutput.standardError("flickr retag: \(error)\n")
                return 2
            }
        case "apply": return try await JobRunCommand.apply(parsed, inv, env, front: front)
        case "resume": return try await JobRunCommand.resume(parsed, inv, env, front: front)
        default: return try await JobRunCommand.undo(parsed, inv, env, front: front)
        }
    }

    /// The parsed words of `retag plan`.
    struct PlanArguments {
        var rules: [RetagRule] = []
        var query: [String: String] = [:]
        var out: String?
        var json = false
        /// `--lua FILE`: a chunk returning `function(photo, tags) return new_tags end`.
        var luaFile: String?
        /// Rules' tags that Flickr will store otherwise than typed (shown as stored).
        var warnings: [String] = []
    }

    /// The rules and settings of `retag plan`, from its parsed words: rules are repeatable and
    /// kept in command-line order; each is checked here (a tag that cleans to nothing, a query
    /// key Flickr's search does not take, a --lua file that cannot be read).
    static func planArguments(_ parsed: ParsedArguments) throws(Invocation.UsageError) -> PlanArguments {
        guard parsed.positional.isEmpty else {
            throw Invocation.UsageError(message: "unexpected word '\(parsed.positional[0])'; \(usage)")
        }
        var p = PlanArguments()
        // The tag rules, read by the one reader of changes (`flickr edit plan` and Lua use it too).
        var changes = ChangeRequest(source: .commandLine)
        for option in parsed.given {
            let value = option.values.first ?? ""
            switch option.name {
            case "rename", "add", "remove":
                do { try changes.add(option.name, ChangeRequest.value(of: option.values)) } catch {
                    throw Invocation.UsageError(message: error.message)
                }
            case "query":
                guard let eq = value.firstIndex(of: "="), eq != value.startIndex else {
                    throw Invocation.UsageError(message: "--query: '\(value)' is not key=value")
                }
                let key = String(value[..<eq])
                guard Self.queryKeys.contains(key) else {
                    throw Invocation.UsageError(message: "--query: '\(key)' is not one of \(Self.queryKeys.sorted().joined(separator: ", "))")
                }
                p.query[key] = String(value[value.index(after: eq)...])
            case "out": p.out = value
            case "lua":
                guard FileManager.default.isReadableFile(atPath: value) else { throw Invocation.UsageError(message: "--lua: cannot read \(value)") }
                p.luaFile = value
            case "json": p.json = true
            default: break  // the parser admits only plan's options
            }
        }
        (p.rules, p.warnings) = (changes.spec.tagRules, changes.warnings)
        guard !p.rules.isEmpty || p.luaFile != nil else {
            throw Invocation.UsageError(message: "no rule given (--rename OLD NEW, --add TAG, --remove TAG, --lua FILE)")
        }
        return p
    }

    /// What `--query` accepts: a search of one's own photos, or a set.
    static let queryKeys: Set<String> = [
        "tags", "tag_mode", "machine_tags", "machine_tag_mode", "text", "min_upload_date", "max_upload_date",
        "min_taken_date", "max_taken_date", "photoset_id", "privacy_filter", "media", "content_types", "license",
    ]

    static func plan(_ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let p = try planArguments(parsed)
        for warning in p.warnings { FileHandleOutput.standardError("flickr retag plan: warning: \(warning)\n") }
        let (opened, store) = try await open(inv, env, command: "retag")
        defer { opened.close() }
        let result: RetagPlanner.Result
        do {
            var custom: (@Sendable (PhotoTags, [String]) async throws -> [String])?
            if let file = p.luaFile { custom = try await opened.session.retagRule(file: file) }
            var planner = RetagPlanner(client: opened.session.client, store: store)
            // A synced library answers the selection and the raw tags (after an incremental sync).
            var libraryLock: RunnerLock?
            if let source = LibraryJobSource.synced(for: opened.session.client, environment: env) {
                do {
                    libraryLock = try source.store.lock(command: "flickr retag plan", jobs: store)
                    planner.source = source
                } catch let busy as RunnerLock.Busy {
                    FileHandleOutput.standardError("flickr retag plan: the library is busy (\(busy.holder?.description ?? "another process")); planning from Flickr\n")
                }
            }
            defer { withExtendedLifetime(libraryLock) {} }
            result = try await planner.plan(rules: p.rules, query: p.query, custom: custom)
        } catch {
            // Exit 2 for any error, as diff does; nothing was written.
            FileHandleOutput.standardError(FlickrShell.report(error).replacingOccurrences(of: "flickr: ", with: "flickr retag plan: ") + "\n")
            return 2
        }
        for warning in result.warnings { FileHandleOutput.standardError("flickr retag plan: warning: \(warning)\n") }
        // The plan's JSON (--json, --out) and its diff are read back from the job database a
        // page at a time: a plan of any size is shown in bounded memory.
        do {
            try PlanDocument.write(out: p.out, stdout: p.json) { emit in try writePlanJSON(result, store: store, to: emit) }
        } catch let failure as PlanDocument.CannotWrite {
            FileHandleOutput.standardError("flickr retag plan: cannot write \(failure.path): \(failure.reason)\n")
            return 2
        }
        if !p.json {
            try writeDiff(result, store: store, budget: budget(opened)) { print($0, terminator: "") }
            if result.changed > 0 { print("apply it with: flickr retag apply \(result.job)") }
        }
        return result.changed == 0 && result.refused == 0 ? 0 : 1
    }

    /// What a retag plan's changes add up to (its stored photos read once).
    struct Tally {
        var tagChanges = 0
        /// The writes (one `setTags`, or more when removing other members' tags).
        var writes = 0
        /// Calls an apply makes: the writes, and one conflict check.
        var applyCalls: Int { 1 + writes }

        mutating func add(_ change: PhotoChange) {
            tagChanges += change.removed.count + change.added.count
            if case .write(let w) = PhotoStep.next(change, current: nil) { writes += w.calls }
        }
    }

    /// The tally of job `r`'s planned photos, read a page at a time.
    static func tally(_ r: RetagPlanner.Result, store: JobStore) throws -> Tally {
        var tally = Tally()
        try store.eachPage(of: r.job, as: PhotoChange.self, statuses: [.planned]) { page in
            for photo in page { tally.add(photo.change) }
        }
        return tally
    }

    /// The per-photo diff, the refused photos and the conflicts, then the summary, read from
    /// the store a page at a time and handed to `emit` as lines (each ending in a newline).
    static func writeDiff(_ r: RetagPlanner.Result, store: JobStore, budget: CallBudget?, to emit: (String) throws -> Void) throws {
        var tally = Tally()
        try store.eachPage(of: r.job, as: PhotoChange.self, statuses: [.planned]) { page in
            for photo in page {
                let change = photo.change
                tally.add(change)
                try emit("photo \(change.pre.photoID)\n" + change.removed.map { "- \($0)\n" }.joined() + change.added.map { "+ \($0)\n" }.joined())
            }
        }
        for (status, said, count) in [(PhotoStatus.refused, "not changed", r.refused), (.conflict, "conflict, left as it is", r.conflicts)] where count > 0 {
            try store.eachPage(of: r.job, as: PhotoChange.self, statuses: [status]) { page in
                for photo in page { try emit("photo \(photo.change.pre.photoID): \(said): \(photo.detail ?? "")\n") }
            }
        }
        try emit("\n" + summary(r, tally: tally, budget: budget).map { $0 + "\n" }.joined())
    }

    /// The lines after the diff: what the job will change and what that costs.
    static func summary(_ r: RetagPlanner.Result, tally: Tally, budget: CallBudget?) -> [String] {
        let calls = tally.applyCalls
        var lines: [String] = []
        lines.append("job \(r.job): \(r.changed) photo\(r.changed == 1 ? "" : "s") to change of \(r.enumerated) looked at, "
                     + "\(tally.tagChanges) tag change\(tally.tagChanges == 1 ? "" : "s")"
                     + (r.refused == 0 ? "" : ", \(r.refused) refused")
                     + (r.conflicts == 0 ? "" : ", \(r.conflicts) conflict\(r.conflicts == 1 ? "" : "s") (changed since the job; --force to undo them anyway)"))
        // The ETA at the budget actually in force: none applies to a loopback endpoint.
        let pace = budget.map { b in
            "ETA at \(b.calls.formatted()) calls per \(Int(b.seconds).formatted()) s: \(EditReport.duration(Double(calls) * b.seconds / Double(b.calls)))"
        } ?? "no call budget applies to this endpoint"
        lines.append("apply will cost about \(calls) call\(calls == 1 ? "" : "s") (\(pace)); "
                     + "the plan took \(r.calls) call\(r.calls == 1 ? "" : "s")")
        return lines
    }

    /// The plan as JSON (`--json`, `--out`), written a photo at a time to `emit`: `job`,
    /// `database`, `enumerated`, `photos`, `refused`, `apply_calls`, `plan_calls` and `stored`.
    static func writePlanJSON(_ r: RetagPlanner.Result, store: JobStore, to emit: (String) throws -> Void) throws {
        func tags(_ list: [PhotoTag], authors: Bool) -> [[String: String]] {
            list.map { authors ? ["id": $0.id, "author": $0.author, "raw": $0.raw] : ["id": $0.id, "raw": $0.raw] }
        }
        try store.writePlanDocument(job: r.job, as: PhotoChange.self, enumerated: r.enumerated, applyCalls: try tally(r, store: store).applyCalls,
                                    planCalls: r.calls, photo: { change in
            ["id": change.pre.photoID, "lastupdate": change.pre.lastUpdate, "owner_tags": tags(change.pre.ownerTags, authors: false),
             "other_tags": tags(change.pre.otherTags, authors: true), "target": change.target, "removed": change.removed, "added": change.added]
        }, refusal: { photo in ["id": photo.change.pre.photoID, "reason": photo.detail ?? ""] }, to: emit)
    }

    /// The call budget in force for this session's client, if any.
    static func budget(_ opened: Subcommands.OpenSession) -> CallBudget? {
        (opened.session.client.pacer as? SharedBudget)?.budget
    }

    /// The client session and the job database.
    /// `command` (`retag`, `edit`, `jobs`) names the command in its errors.
    static func open(_ inv: Invocation, _ env: [String: String], command: String) async throws -> (Subcommands.OpenSession, JobStore) {
        let store = try JobStore(path: JobStore.defaultPath(environment: env))
        let opened = try await Subcommands.session(inv, env)
        guard !opened.session.client.context.apiKey.isEmpty else {
            opened.close()
            throw FlickrError.missingCredentials("API key", method: command)
        }
        return (opened, store)
    }
}
