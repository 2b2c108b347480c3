import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit

/// The Swift half of `flickr.retag` and `flickr.jobs` (the Lua half, in `lua/flickr/core.lua`,
/// builds plan objects on these):
///
///     flickr.jobs._plan(rules, query) → job id     rules: { {"rename", old, new}, {"add", t}, {"remove", t} }
///     flickr.jobs._undo(job [, force]) → undo job id (planned; conflicts recorded unless force)
///     flickr.jobs._run(job [, fn])    → the job's summary; fn(done, total) after each photo
///     flickr.jobs._photos(job)        → { {id =, status =, removed = {…}, added = {…}, detail =}, … }
///     flickr.jobs.list()              → the jobs' summaries, newest first
///
/// An edit job (`flickr.edit.plan`, `flickr edit`; kind `edit`, and so is its undo) is run,
/// undone and listed by the same functions, with the edit engine (FlickrModule+Edit.swift).
/// Each job's kind is stored with it: an undo has the kind of the job it takes back and names
/// that job in `undo_of`.
///
/// Jobs live in the same database as `flickr retag`'s ($XDG_STATE_HOME/flickr/jobs.sqlite).
extension FlickrModule {
    func installJobs(_ state: LuaState, _ flickr: Int32) {
        state.newTable(record: 8)
        let jobs = state.top
        define(state, jobs, "_plan", path: "jobs.plan") { call in try self.planJob(call) }
        define(state, jobs, "_undo", path: "jobs.undo") { call in
            let job = try call.string(1)
            let force = call.type(2) == .boolean && call.state.boolean(at: 2)
            let (client, store) = (self.client, try self.jobStore())
            // Each kind is undone by its own planner (JobRunner picks it); an undo is not undone.
            let summary = try store.job(job)
            if let undone = summary.undoOf {
                throw FlickrError.usage("job \(job) is an undo; undo the \(summary.kind.rawValue) job it reverses (\(undone)) instead", method: "jobs.undo")
            }
            return self.asyncReturn("flickr.jobs.undo", {
                try await Self.engineErrors("flickr.jobs.undo") {
                    // The job is held while its undo is planned, as `flickr retag|edit undo` does.
                    let lock = try store.lock(job, command: "flickr.jobs.undo")
                    defer { withExtendedLifetime(lock) {} }
                    return try await JobRunner(client: client, store: store).planUndo(of: job, force: force).job
                }
            }, deliver: { state, id in state.push(id); return 1 })
        }
        define(state, jobs, "_run", path: "jobs.run") { call in try self.runJob(call) }
        define(state, jobs, "_photos", path: "jobs.photos") { call in
            let job = try call.string(1), store = try self.jobStore()
            switch try store.kind(of: job) {
            case .edit:
                try call.state.push(Self.editPhotosValue(try store.editPhotos(of: job)))
                return .results(1)
            case .push:
                try call.state.push(LuaValue.array(try store.pushSteps(of: job).map(Self.pushStepValue)))
                return .results(1)
            case .retag: break
            }
            let photos = try store.photos(of: job)
            try call.state.push(LuaValue.array(photos.map { p in
                var m: [LuaValue: LuaValue] = [
                    "id": .string(LuaString(p.change.pre.photoID)), "status": .string(LuaString(p.status.rawValue)),
                    "removed": .array(p.change.removed.map { .string(LuaString($0)) }),
                    "added": .array(p.change.added.map { .string(LuaString($0)) }),
                ]
                if let d = p.detail { m["detail"] = .string(LuaString(d)) }
                return .map(m)
            }))
            return .results(1)
        }
        define(state, jobs, "list", path: "jobs.list") { call in
            try call.state.push(LuaValue.array(try self.jobStore().jobs().map(Self.summaryValue)))
            return .results(1)
        }
        state.rawSet(field: "jobs", in: flickr)
    }

    /// The job database of this environment.
    func jobStore() throws -> JobStore {
        try JobStore(path: JobStore.defaultPath(environment: environment))
    }

    private func planJob(_ call: LuaCall) throws -> LuaReturn {
        // Retag's rules, read by the one reader of changes (as `edit.plan`'s `rename`, `add`, `remove`).
        var changes = ChangeRequest(source: .lua)
        for (n, item) in (try call.value(1).arrayValue ?? []).enumerated() {
            let words = (item.arrayValue ?? []).compactMap(\.stringValue)
            let change: (String, ChangeRequest.Value)
            switch (words.first, words.count) {
            case ("rename"?, 3): change = ("rename", .pair(words[1], words[2]))
            case ("add"?, 2): change = ("add", .text(words[1]))
            case ("remove"?, 2): change = ("remove", .text(words[1]))
            default:
                throw FlickrError.usage("rule \(n + 1): expected {\"rename\", old, new}, {\"add\", tag} or {\"remove\", tag}", method: "retag.plan")
            }
            do { try changes.add(change.0, change.1) } catch {
                throw FlickrError.usage("rule \(n + 1): \(error.message)", method: "retag.plan")
            }
        }
        let rules = changes.spec.tagRules
        guard !rules.isEmpty else { throw FlickrError.usage("no rules given", method: "retag.plan") }
        var query: [String: String] = [:]
        if case .map(let m) = try call.value(2) {
            for (k, v) in m {
                guard let key = k.stringValue else { continue }
                query[key] = v.stringValue ?? (v.integerValue.map { String($0) })
            }
        }
        let (client, store) = (self.client, try jobStore())
        let chosen = (rules, query)
        let source = LibraryJobSource.synced(for: client, environment: environment)
        return asyncReturn("flickr.retag.plan", {
            var planner = RetagPlanner(client: client, store: store)
            // A synced library answers the selection and the raw tags (after an incremental sync).
            let lock = source.flatMap { try? $0.store.lock(command: "flickr.retag.plan", jobs: store) }
            defer { withExtendedLifetime(lock) {} }
            if lock != nil { planner.source = source }
            return try await planner.plan(rules: chosen.0, query: chosen.1).job
        }, deliver: { state, id in state.push(id); return 1 })
    }

    private func runJob(_ call: LuaCall) throws -> LuaReturn {
        let job = try call.string(1)
        var relay: ProgressRelay?
        if call.type(2) == .function {
            call.state.pushCopy(of: 2)
            relay = ProgressRelay(poster: call.state.jobPoster, callback: LuaRef(popping: call.state))
        }
        return try runJob(job, relay: relay)
    }

    /// Runs (applies, resumes) `job` with the engine of its kind: retag's, or the edit engine for
    /// an edit job and its undo.
    func runJob(_ job: String, relay: ProgressRelay?) throws -> LuaReturn {
        var runner = JobRunner(client: client, store: try jobStore())
        runner.settings.secondsPerCall = (client.pacer as? SharedBudget)?.secondsPerCall
        runner.settings.command = "flickr.jobs.run"
        runner.settings.source = LibraryJobSource.synced(for: client, environment: environment)
        let chosen = runner
        let progressRelay = relay
        return asyncReturn("flickr.jobs.run", {
            try await Self.engineErrors("flickr.jobs.run") {
                try await chosen.run(job, progress: { p in progressRelay?.report(sent: Int64(p.done + p.failed + p.conflicts), total: Int64(p.total)) }).job
            }
        }, deliver: { state, summary in
            try progressRelay?.finish(state)
            try state.push(Self.summaryValue(summary))
            return 1
        })
    }

    static func summaryValue(_ j: JobSummary) -> LuaValue {
        var m: [LuaValue: LuaValue] = [
            "id": .string(LuaString(j.id)), "kind": .string(LuaString(j.kind.rawValue)), "state": .string(LuaString(j.state)),
            "photos": .integer(Int64(j.photos)), "done": .integer(Int64(j.done)), "failed": .integer(Int64(j.failed)),
            "conflicts": .integer(Int64(j.conflicts)), "refused": .integer(Int64(j.refused)), "calls": .integer(Int64(j.calls)), "enumerated": .integer(Int64(j.enumerated)),
            "rules": .array(j.rules.map { .string(LuaString($0)) }),
        ]
        if let undone = j.undoOf {
            m["undo_of"] = .string(LuaString(undone))
            m["parent"] = .string(LuaString(undone))  // the name before undo_of, kept for scripts that read it
        }
        return .map(m)
    }
}
