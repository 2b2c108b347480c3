import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import FlickrMedia
import FlickrProtocol
import Foundation

/// `flickr push plan DIR… [options]`, then `push apply|resume|undo` (the jobs' one front end,
/// as `flickr jobs …`): photo folders kept in step with Flickr (CLI.md). Plan reads only — the
/// folders, the library (an incremental sync) and the files' metadata — prints a line per file
/// (`upload PATH`, `skip PATH`, …) and what apply will cost, and exits as `diff` does: 0 nothing
/// to do, 1 steps planned, 2 an error; 75 while another push of the folder runs.
enum PushCommand {
    static var usage: String { "usage: flickr push " + (CommandLineSpec.subcommand(named: "push")?.synopsis ?? "") }

    /// `push apply|resume|undo` are the jobs' one front end; `last` means the last push.
    static let front = JobRunCommand.Front(name: "push", scope: .push)

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "push")
        switch parsed.action {
        case "plan":
            do { return try await plan(parsed, inv, env) } catch let error as JobError {
                FileHandleOutput.standardError("flickr push plan: \(error)\n")
                return 2
            }
        case "apply": return try await JobRunCommand.apply(parsed, inv, env, front: front)
        case "resume": return try await JobRunCommand.resume(parsed, inv, env, front: front)
        default: return try await JobRunCommand.undo(parsed, inv, env, front: front)
        }
    }

    /// The spec from the words of `push plan`, checked before any request (a licence by name
    /// is resolved later, with Flickr's list).
    static func spec(_ parsed: ParsedArguments) throws -> (spec: PushSpec, license: String?, out: String?) {
        var spec = PushSpec(dirs: parsed.positional)
        var license: String?
        var out: String?
        for option in parsed.given {
            let value = option.values.first ?? ""
            if option.name != "out" { spec.rules.append("--" + option.name + (option.values.isEmpty ? "" : " " + value)) }
            switch option.name {
            case "sets": spec.sets = .parse(value)
            case "tags": spec.tags = value
            case "privacy":
                do { spec.privacy = try Privacy.parse(value) } catch { throw Invocation.UsageError(message: "--privacy: \(error.message)") }
            case "license": license = value
            case "safety":
                do { spec.safety = try EditSpec.safety(value) } catch { throw Invocation.UsageError(message: "--safety: \(error.message)") }
            case "hidden": spec.hidden = true
            case "replace": spec.replace = true
            case "delete": spec.delete = true
            case "ignore": spec.ignore.append(value)
            case "keywords": spec.fullKeywords = value == "full"
            case "title-from-filename": spec.titleFromFilename = true
            case "out": out = value
            default: break
            }
        }
        guard !spec.dirs.isEmpty else { throw Invocation.UsageError(message: "no folder given; \(usage)") }
        do { try spec.check() } catch { throw Invocation.UsageError(message: error.message) }
        return (spec, license, out)
    }

    static func plan(_ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        var (spec, license, out) = try spec(parsed)
        // A missing folder (an unmounted disk) is refused before any request.
        _ = try PushPlanner.roots(spec)
        let (opened, store) = try await RetagCommand.open(inv, env, command: "push")
        defer { opened.close() }
        let client = opened.session.client
        try PushPlanner.checkLogin(spec, client: client)
        if let license {
            spec.license = try EditSpec.license(license, among: try await EditPlanner.licenses(client: client))
        }
        // The library: the account's, synced first when there is none yet.
        let (library, libraryLock) = try await SyncCommand.open(client, env, command: "flickr push plan")
        guard let libraryLock else { return RetagCommand.tryLater }
        defer { withExtendedLifetime(libraryLock) {} }
        // One push of a folder at a time.
        var folderLocks: [RunnerLock] = []
        for root in try PushPlanner.roots(spec) {
            do {
                folderLocks.append(try store.lockPushedFolder(root, command: "flickr push plan"))
            } catch let busy as PushFolderBusy {
                FileHandleOutput.standardError("flickr push: \(busy)\n")
                return RetagCommand.tryLater
            }
        }
        defer { withExtendedLifetime(folderLocks) {} }
        let exifTool = ExifTool()
        defer { exifTool.stop() }
        let planner = PushPlanner(client: client, store: store, ledger: LibraryJobSource(store: library, client: client), exifTool: exifTool)
        let result = try await planner.plan(spec) { line in
            print(line.action + " " + UploadCommand.printable(line.path) + (line.detail.map { "  (\($0))" } ?? ""))
        }
        for warning in result.warnings { FileHandleOutput.standardError("flickr push plan: warning: \(warning)\n") }
        let secondsPerCall = (client.pacer as? SharedBudget)?.secondsPerCall
        var summary = PushAction.allCases.compactMap { a in result.steps[a].map { "\($0) \(a.rawValue)" } }
        summary.append("\(result.skipped) skip")
        if result.reported > 0 { summary.append("\(result.reported) reported (nothing done)") }
        print("plan: " + summary.joined(separator: ", ") + "; \(result.calls) call\(result.calls == 1 ? "" : "s") to plan, "
              + "\(result.hashed) file\(result.hashed == 1 ? "" : "s") hashed (\(ProgressBar.mebibytes(result.hashedBytes))"
              + (result.hashSeconds > 0.05 ? String(format: " in %.1f s, %.0f MB/s", result.hashSeconds, Double(result.hashedBytes) / result.hashSeconds / 1e6) : "")
              + ")")
        if let job = result.job {
            let time = secondsPerCall.map { " (about \(EditReport.duration(Double(result.applyCalls) * $0)) at the budget)" } ?? ""
            print("apply will cost about \(result.applyCalls) call\(result.applyCalls == 1 ? "" : "s")\(time): flickr push apply \(job)")
            if let out {
                do {
                    try PlanDocument.write(out: out, stdout: false) { emit in try writePlanJSON(job, result: result, store: store, to: emit) }
                } catch let failure as PlanDocument.CannotWrite {
                    FileHandleOutput.standardError("flickr push plan: cannot write \(failure.path): \(failure.reason)\n")
                    return 2
                }
            }
        } else {
            print("nothing to push")
        }
        return result.job == nil ? 0 : 1
    }

    /// The plan as JSON (`--out`): the job, and each step with its file and photo.
    static func writePlanJSON(_ job: String, result: PushPlanner.Result, store: JobStore, to emit: (String) throws -> Void) throws {
        try store.writePlanDocument(job: job, as: PushChange.self, enumerated: result.skipped + result.changed, applyCalls: result.applyCalls,
                                    planCalls: result.calls, photo: object, refusal: { object($0.change).merging(["reason": $0.detail ?? ""]) { $1 } },
                                    to: emit)
    }

    /// One step as the plan's JSON gives it.
    static func object(_ c: PushChange) -> [String: Any] {
        var o: [String: Any] = ["action": c.action.rawValue, "root": c.root, "path": c.path, "sha256": c.sha256, "size": c.size,
                                "groups": c.writes.groups]
        if let photo = c.photo { o["photo"] = photo }
        if let from = c.from { o["from"] = from }
        if let set = c.joinSet { o["set"] = set }
        if let set = c.leaveSet, set != c.joinSet { o["leaves_set"] = set }
        return o
    }
}

extension PushCommand {
    /// What the undo of a push will do: a line per step (with `diff`) or the counts, then each
    /// step it cannot take back and why.
    static func undoReport(_ r: PushPlanner.Result, store: JobStore, diff: Bool) throws -> String {
        guard let job = r.job else { return "" }
        var lines: [String] = []
        var counts = PushAction.allCases.compactMap { a in r.steps[a].map { "\($0) \(a.rawValue)" } }
        if counts.isEmpty { counts = ["nothing to change"] }
        lines.append("undo: " + counts.joined(separator: ", ") + "; about \(r.applyCalls) call\(r.applyCalls == 1 ? "" : "s")")
        for step in try store.pushSteps(of: job) {
            let c = step.change
            if step.status == .refused {
                lines.append("  cannot undo: \(c.path): \(step.detail ?? "")")
            } else if diff {
                let what = switch c.action {
                case .delete: "delete photo \(c.photo ?? "") (uploaded from \(c.path))"
                case .move: "sets of photo \(c.photo ?? ""): \(c.leaveSet ?? "none") → \(c.joinSet ?? "none")"
                default: "\(c.action.rawValue) photo \(c.photo ?? ""): " + c.writes.groups.joined(separator: ", ")
                }
                lines.append("  " + what)
            }
        }
        if !diff && r.changed > 0 { lines.append("(every step: --diff)") }
        return lines.joined(separator: "\n")
    }
}
