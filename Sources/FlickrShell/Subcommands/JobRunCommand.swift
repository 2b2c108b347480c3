import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import Foundation
import Synchronization

/// `apply`, `resume` and `undo` of any job (CLI.md): `flickr jobs apply|resume|undo JOB`, and the
/// same commands as `flickr retag …` and `flickr edit …`. A job's kind is stored with it, so one
/// front end runs every kind; what differs by kind — its runner, its undo planner and how an
/// undo is reported — is chosen here from that stored kind, in one place each.
///
/// Exit statuses: 0 when every planned photo is done (or there was nothing to do), 1 when some
/// photo failed or conflicted or the confirmation was declined, 2 for a usage error, 75 when the
/// job could not go on now (the endpoint stayed unreachable, or another process runs it), 130
/// on Ctrl-C.
enum JobRunCommand {
    /// Who is running: the command name in messages and locks (`flickr retag`, `flickr edit`,
    /// `flickr jobs`), and the kind that `last` means (nil: any kind).
    struct Front {
        var name: String
        var scope: JobKind?

        /// `flickr jobs`: every kind.
        static let jobs = Front(name: "jobs", scope: nil)

        /// The usage line of one action.
        func usage(_ action: String, _ arguments: String) -> String {
            "usage: flickr \(name) \(action) \(arguments)"
        }

        /// Whether `last` may mean `job`.
        func covers(_ job: JobSummary) -> Bool { scope.map { job.kind == $0 } ?? true }

        /// Refuses (before anything is sent) a job of another kind than this front's, naming
        /// the commands that run it.
        func check(_ job: JobSummary, _ action: String) throws(Invocation.UsageError) {
            guard !covers(job), let scope else { return }
            throw Invocation.UsageError(message: "job \(job.id) is \(job.kind == .edit ? "an" : "a") \(job.kind.rawValue) job, not \(scope == .edit ? "an" : "a") "
                                        + "\(scope.rawValue) job; run it with: flickr \(job.kind.rawValue) \(action) \(job.id) (or flickr jobs \(action) \(job.id))")
        }
    }

    static func apply(_ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String], front: Front) async throws -> Int32 {
        let words = parsed.positional
        guard words.count == 1 else { throw Invocation.UsageError(message: front.usage("apply", "PLAN [--yes] [--events] [--max-outage SECONDS]")) }
        let maxOutage = try maxOutage(parsed)
        let (opened, store) = try await RetagCommand.open(inv, env, command: front.name)
        defer { opened.close() }
        let planned = try resolvePlan(words[0], store: store, accept: front.covers)
        try front.check(planned, "apply")
        // One runner per job: the lock first, then the state as it is under the lock.
        guard let lock = try take(planned.id, store: store, front: front, action: "apply") else { return RetagCommand.tryLater }
        var job = try store.job(planned.id)
        // Holding its lock, a plan still being stored is one whose planner ended first.
        if job.state == "planning" { job.state = "incomplete" }
        guard job.state == "planned" else {
            throw Invocation.UsageError(message: "job \(job.id) is \(job.state), not planned; "
                                        + (["running", "interrupted", "failed"].contains(job.state)
                                           ? "continue it with: flickr \(front.name) resume \(job.id)"
                                           : job.state == "incomplete" ? "its plan ended before all of it was stored; plan it again (the next plan drops it)"
                                           : "see flickr jobs show \(job.id)"))
        }
        guard try confirm("Apply job \(job.id) to \(job.photos) photo\(job.photos == 1 ? "" : "s")?", parsed) else { return 1 }
        return try await execute(job, lock: lock, opened: opened, store: store, front: front, events: parsed.has("events"),
                                 maxOutage: maxOutage, env: env)
    }

    static func resume(_ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String], front: Front) async throws -> Int32 {
        let words = parsed.positional
        guard words.count <= 1 else { throw Invocation.UsageError(message: front.usage("resume", "[JOB|last] [--events] [--max-outage SECONDS]")) }
        let maxOutage = try maxOutage(parsed)
        let (opened, store) = try await RetagCommand.open(inv, env, command: front.name)
        defer { opened.close() }
        let wanted = words.first ?? "last"
        let mine = try store.jobs().filter(front.covers)
        let resumable: (JobSummary) -> Bool = { front.covers($0) && ["planned", "interrupted", "failed", "running"].contains($0.state) }
        if wanted == "last", let newest = mine.first, !mine.contains(where: resumable) {
            print("nothing to resume: the last \(front.scope.map { $0.rawValue + " " } ?? "")job, \(newest.id), is \(newest.state)")
            return 0
        }
        // `resumable` chooses `last`; a job named by its id is taken whatever its state (a
        // finished one is said so, and nothing is sent).
        let found = try jobOrUsage(store, wanted, where: resumable)
        try front.check(found, "resume")
        guard found.state != "done", found.state != "undone" else {
            print("job \(found.id) is \(found.state); nothing to resume")
            return 0
        }
        guard let lock = try take(found.id, store: store, front: front, action: "resume") else { return RetagCommand.tryLater }
        let job = try store.job(found.id)
        guard job.state != "done", job.state != "undone" else {
            print("job \(job.id) is \(job.state); nothing to resume")
            return 0
        }
        return try await execute(job, lock: lock, opened: opened, store: store, front: front, events: parsed.has("events"),
                                 maxOutage: maxOutage, env: env)
    }

    static func undo(_ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String], front: Front) async throws -> Int32 {
        let words = parsed.positional
        guard words.count <= 1 else {
            throw Invocation.UsageError(message: front.usage("undo", "[JOB|last] [--yes] [--diff] [--force] [--events] [--max-outage SECONDS]"))
        }
        let maxOutage = try maxOutage(parsed)
        let (opened, store) = try await RetagCommand.open(inv, env, command: front.name)
        defer { opened.close() }
        let job = try jobOrUsage(store, words.first ?? "last") { front.covers($0) && $0.undoOf == nil && $0.state != "planned" }
        try front.check(job, "undo")
        if let undone = job.undoOf {
            throw Invocation.UsageError(message: "job \(job.id) is an undo; undo the \(job.kind.rawValue) job it reverses (\(undone)) instead")
        }
        if job.state == "undone" {
            print("nothing to undo: \(job.id) was undone already (see flickr jobs)")
            return 0
        }
        // The job is held while its undo is planned and run: two undos of one job never race.
        guard let jobLock = try take(job.id, store: store, front: front, action: "undo") else { return RetagCommand.tryLater }
        defer { withExtendedLifetime(jobLock) {} }
        // An undo interrupted earlier is resumed rather than planned again.
        if let pending = try store.jobs().first(where: { $0.undoOf == job.id && ["interrupted", "planned", "running"].contains($0.state) }) {
            guard let lock = try take(pending.id, store: store, front: front, action: "undo") else { return RetagCommand.tryLater }
            print("resuming \(pending.id), the undo of \(job.id)")
            return try await execute(pending, lock: lock, opened: opened, store: store, front: front, events: parsed.has("events"),
                                     maxOutage: maxOutage, env: env)
        }
        // Taking back a push's uploads deletes photos: a login known to lack that is refused first.
        if job.kind == .push, try store.pushSteps(of: job.id).contains(where: { $0.change.action == .upload && $0.status != .planned }) {
            try FlickrClient.checkPermission(.delete, for: "flickr.photos.delete", context: opened.session.client.context)
        }
        let (planned, report) = try await planUndo(job, force: parsed.has("force"), diff: parsed.has("diff"), opened: opened, store: store)
        guard let lock = try take(planned.job, store: store, front: front, action: "undo") else { return RetagCommand.tryLater }
        let undo = try store.job(planned.job)
        guard !planned.isEmpty else {
            // The empty undo still runs, so that it is recorded done and the job undone.
            _ = try await runner(undo, opened: opened, store: store, front: front, maxOutage: maxOutage, env: env)(lock, { _ in }, { _ in }, { false })
            print("nothing to undo: " + (job.kind == .retag ? "every photo \(job.id) touched has its tags from before it"
                                                            : "every field \(job.id) changed has its value from before it"))
            return 0
        }
        print(report)
        guard try confirm("Undo job \(job.id) on \(planned.photos) photo\(planned.photos == 1 ? "" : "s")?", parsed) else { return 1 }
        return try await execute(undo, lock: lock, opened: opened, store: store, front: front, events: parsed.has("events"),
                                 maxOutage: maxOutage, env: env)
    }

    /// Plans the undo of `job` with its kind's planner (``JobRunner``); returns it with the
    /// summary (or with `diff`, the per-photo diff) to print before asking.
    static func planUndo(_ job: JobSummary, force: Bool, diff: Bool, opened: Subcommands.OpenSession,
                         store: JobStore) async throws -> (undo: PlannedUndo, report: String) {
        let budget = RetagCommand.budget(opened)
        // A summary by default: an undo of thousands of photos is not read photo by photo.
        let hint = ["(the per-photo diff: --diff)"]
        let undo = try await JobRunner(client: opened.session.client, store: store).planUndo(of: job.id, force: force)
        var report = ""
        switch undo {
        case .retag(let r):
            if diff {
                try RetagCommand.writeDiff(r, store: store, budget: budget) { report += $0 }
            } else {
                report = (RetagCommand.summary(r, tally: try RetagCommand.tally(r, store: store), budget: budget) + hint).joined(separator: "\n")
            }
        case .edit(let r):
            for warning in r.warnings { FileHandleOutput.standardError("flickr \(job.kind.rawValue) undo: warning: \(warning)\n") }
            if diff {
                try EditReport.writeDiff(r, store: store, budget: budget, names: EditReport.Names()) { report += $0 }
            } else {
                report = (EditReport.summary(r, tally: try EditReport.tally(r, store: store), budget: budget) + hint).joined(separator: "\n")
            }
        case .push(let r):
            report = try PushCommand.undoReport(r, store: store, diff: diff)
        }
        if report.hasSuffix("\n") { report.removeLast() }
        return (undo, report)
    }

    /// Runs `job` to its end with its kind's runner (``JobExecution``).
    static func execute(_ job: JobSummary, lock: RunnerLock, opened: Subcommands.OpenSession, store: JobStore, front: Front,
                        events: Bool, maxOutage: Double, env: [String: String]) async throws -> Int32 {
        let run = try runner(job, opened: opened, store: store, front: front, maxOutage: maxOutage, env: env, events: events)
        do {
            return try await execute(job, run: run, lock: lock, store: store, front: front, events: events)
        } catch let busy as PushFolderBusy {
            // Another push of one of its folders runs: the job is as it was, to run later.
            FileHandleOutput.standardError("flickr \(front.name): \(busy)\n")
            return RetagCommand.tryLater
        }
    }

    private static func execute(_ job: JobSummary, run: @escaping Run, lock: RunnerLock, store: JobStore, front: Front,
                                events: Bool) async throws -> Int32 {
        try await JobExecution.execute(job.id, name: front.name, events: events, run: { progress, notice, shouldStop in
            try await run(lock, progress, notice, shouldStop)
        }, problems: { id in
            switch job.kind {
            case .retag: JobExecution.problems(try store.photos(of: id))
            case .edit: JobExecution.problems(try store.editPhotos(of: id))
            case .push: JobExecution.problems(try store.pushSteps(of: id)).map { ($0.status, $0.photo.hasPrefix("file:") ? String($0.photo.dropFirst(5)) : $0.photo, $0.detail) }
            }
        })
    }

    /// One run of `job`: its kind's runner, paced by the shared budget, with the library on
    /// disk as its source when one is synced.
    typealias Run = @Sendable (RunnerLock, @escaping @Sendable (JobProgress) -> Void, @escaping @Sendable (String) -> Void,
                               @escaping @Sendable () -> Bool) async throws -> JobOutcome

    static func runner(_ job: JobSummary, opened: Subcommands.OpenSession, store: JobStore, front: Front, maxOutage: Double,
                       env: [String: String], events: Bool = true) throws -> Run {
        let client = opened.session.client
        var runner = JobRunner(client: client, store: store)
        runner.settings.secondsPerCall = (client.pacer as? SharedBudget)?.secondsPerCall
        runner.settings.maxOutage = maxOutage
        runner.settings.command = "flickr \(front.name)"
        runner.settings.source = LibraryJobSource.synced(for: client, environment: env)
        // A push's uploads show each file's bytes on a terminal, between the job's progress lines.
        if job.kind == .push, !events, Terminal.stderrIsTerminal {
            let uploads = try store.pushSteps(of: job.id).filter { $0.change.action == .upload && $0.status != .done }.count
            let bar = BatchProgress(verb: "uploading", files: uploads, batchTotal: nil)
            let current = Mutex((file: "", index: 0))
            runner.settings.fileProgress = { file, sent, total in
                current.withLock { c in
                    if c.file != file {
                        c = (file, c.index + 1)
                        bar.begin(file, index: c.index)
                    }
                }
                bar.report(sent, total)
            }
        }
        let id = job.id
        return { [runner] lock, progress, notice, shouldStop in
            try await runner.run(id, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
        }
    }

    /// `--max-outage SECONDS` (default 30): how long the endpoint may stay unreachable.
    static func maxOutage(_ parsed: ParsedArguments) throws(Invocation.UsageError) -> Double {
        guard let text = parsed["max-outage"] else { return 30 }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw Invocation.UsageError(message: "--max-outage: '\(text)' is not a number of seconds (e.g. --max-outage 120)")
        }
        return seconds
    }

    /// Asks on a terminal; without one, `--yes` is required.
    static func confirm(_ question: String, _ parsed: ParsedArguments) throws(Invocation.UsageError) -> Bool {
        if parsed.has("yes") { return true }
        guard Terminal.stdinIsTerminal else {
            throw Invocation.UsageError(message: "no terminal to confirm on: add --yes")
        }
        FileHandleOutput.standardError(question + " [y/N] ")
        return (readLine() ?? "").lowercased().hasPrefix("y")
    }

    /// A plan file written by `--out` (its `job`) or a job id.
    /// `last` is the newest job that `accept` takes (a kind's front: its kind), whatever its
    /// state: one held by another process is then said to be held, as when named by its id, and
    /// one already applied is said to be so.
    static func resolvePlan(_ word: String, store: JobStore, accept: (JobSummary) -> Bool = { _ in true }) throws -> JobSummary {
        if FileManager.default.fileExists(atPath: word) {
            guard let data = FileManager.default.contents(atPath: word),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let id = object["job"] as? String else {
                throw Invocation.UsageError(message: "\(word) is not a plan written by flickr retag plan --out, flickr edit plan --out or flickr push plan --out")
            }
            if let held = try? store.job(id) { return held }
            // Planned on another machine (or before this database was made): the file carries the job.
            guard let stored = object["stored"] as? [String: Any], stored["id"] as? String == id else {
                throw Invocation.UsageError(message: "the plan in \(word) (job \(id)) is not in this machine's job database \(store.path), "
                                            + "and the file does not carry it (plan again with --out)")
            }
            do {
                let job = try store.importPlanned(stored)
                FileHandleOutput.standardError("imported job \(job.id) from \(word) into \(store.path)\n")
                return job
            } catch {
                throw Invocation.UsageError(message: "\(word): \(error.message)")
            }
        }
        return try jobOrUsage(store, word, where: accept)
    }

    static func jobOrUsage(_ store: JobStore, _ id: String, where accept: (JobSummary) -> Bool) throws -> JobSummary {
        do { return try store.job(id, where: accept) } catch { throw Invocation.UsageError(message: error.message) }
    }

    /// Takes job `id` for this process, or says who holds it (on stderr) and returns nil.
    static func take(_ id: String, store: JobStore, front: Front, action: String) throws -> RunnerLock? {
        do {
            return try store.lock(id, command: "flickr \(front.name) \(action)")
        } catch let busy as RunnerLock.Busy {
            FileHandleOutput.standardError("flickr \(front.name): job \(busy.description)\n")
            return nil
        }
    }
}
