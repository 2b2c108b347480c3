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
        let document = try planJSON(result, store: store)
        if let out = p.out {
            do { try Data((document + "\n").utf8).write(to: URL(fileURLWithPath: out)) } catch {
                FileHandleOutput.standardError("flickr retag plan: cannot write \(out): \(error.localizedDescription)\n")
                return 2
            }
        }
        if p.json {
            print(document)
        } else {
            print(diff(result, budget: budget(opened)))
            if !result.changes.isEmpty { print("apply it with: flickr retag apply \(result.job)") }
        }
        return result.changes.isEmpty && result.refused.isEmpty ? 0 : 1
    }

    /// The per-photo diff and the summary.
    static func diff(_ r: RetagPlanner.Result, budget: CallBudget?) -> String {
        var lines: [String] = []
        for change in r.changes {
            lines.append("photo \(change.pre.photoID)")
            for raw in change.removed { lines.append("- \(raw)") }
            for raw in change.added { lines.append("+ \(raw)") }
        }
        for (change, reason) in r.refused { lines.append("photo \(change.pre.photoID): not changed: \(reason)") }
        for (change, reason) in r.conflicts { lines.append("photo \(change.pre.photoID): conflict, left as it is: \(reason)") }
        lines.append("")
        lines += summary(r, budget: budget)
        return lines.joined(separator: "\n")
    }

    /// The lines after the diff: what the job will change and what that costs.
    static func summary(_ r: RetagPlanner.Result, budget: CallBudget?) -> [String] {
        let tagChanges = r.changes.reduce(0) { $0 + $1.removed.count + $1.added.count }
        let calls = applyCalls(r.changes)
        var lines: [String] = []
        lines.append("job \(r.job): \(r.changes.count) photo\(r.changes.count == 1 ? "" : "s") to change of \(r.enumerated) looked at, "
                     + "\(tagChanges) tag change\(tagChanges == 1 ? "" : "s")"
                     + (r.refused.isEmpty ? "" : ", \(r.refused.count) refused")
                     + (r.conflicts.isEmpty ? "" : ", \(r.conflicts.count) conflict\(r.conflicts.count == 1 ? "" : "s") (changed since the job; --force to undo them anyway)"))
        // The ETA at the budget actually in force: none applies to a loopback endpoint.
        let pace = budget.map { b in
            "ETA at \(b.calls.formatted()) calls per \(Int(b.seconds).formatted()) s: \(duration(Double(calls) * b.seconds / Double(b.calls)))"
        } ?? "no call budget applies to this endpoint"
        lines.append("apply will cost about \(calls) call\(calls == 1 ? "" : "s") (\(pace)); "
                     + "the plan took \(r.calls) call\(r.calls == 1 ? "" : "s")")
        return lines
    }

    /// The call budget in force for this session's client, if any.
    static func budget(_ opened: Subcommands.OpenSession) -> CallBudget? {
        (opened.session.client.pacer as? SharedBudget)?.budget
    }

    /// Calls an apply of these changes makes: the writes, and one conflict check.
    static func applyCalls(_ changes: [PhotoChange]) -> Int {
        1 + changes.reduce(0) { total, change in
            if case .write(let w) = PhotoStep.next(change, current: nil) { return total + w.calls }
            return total
        }
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3_600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3_600) h \(s % 3_600 / 60) min"
    }

    /// The plan as JSON (`--json`, `--out`).
    static func planJSON(_ r: RetagPlanner.Result, store: JobStore) throws -> String {
        func tags(_ list: [PhotoTag], authors: Bool) -> [[String: String]] {
            list.map { authors ? ["id": $0.id, "author": $0.author, "raw": $0.raw] : ["id": $0.id, "raw": $0.raw] }
        }
        var photos: [[String: Any]] = []
        for change in r.changes {
            photos.append(["id": change.pre.photoID, "lastupdate": change.pre.lastUpdate,
                           "owner_tags": tags(change.pre.ownerTags, authors: false), "other_tags": tags(change.pre.otherTags, authors: true),
                           "target": change.target, "removed": change.removed, "added": change.added])
        }
        let refused: [[String: Any]] = r.refused.map { ["id": $0.0.pre.photoID, "reason": $0.1] }
        let object: [String: Any] = [
            "job": r.job, "database": store.path, "enumerated": r.enumerated, "photos": photos, "refused": refused,
            "stored": try store.exported(r.job),
            "apply_calls": applyCalls(r.changes), "plan_calls": r.calls,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
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
