import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrMedia
import FlickrProtocol
import Foundation
import LuaKit

/// The Swift half of `flickr.push` (the Lua half, in `lua/flickr/core.lua`, makes the plan
/// object):
///
///     flickr.push._plan{ dirs = {…}, sets = "folder", tags =, privacy =, license =, safety =,
///                        hidden =, replace =, delete =, ignore = {…}, keywords = "full",
///                        title_from_filename = } → plan
///
/// The plan is `flickr push plan`'s (``PushPlanner``, the same job database and library): its
/// `job` (nil when there is nothing to do), `steps` (each `{ action, path, photo, from, set,
/// leaves_set, groups }`), `lines` (each file's `{ action, path, detail }`), the counts and calls.
/// Applying, resuming and undoing are `flickr.jobs`' (a push is a job of kind `push`).
extension FlickrModule {
    static let pushFunction = "flickr.push.plan"
    static let pushPlanKeys: Set<String> = ["dirs", "sets", "tags", "privacy", "license", "safety", "hidden", "replace", "delete",
                                            "ignore", "keywords", "title_from_filename"]

    /// Adds `_plan` to `flickr.push`, which is also Flickr's own namespace (`flickr.push.subscribe`
    /// and the other PuSH methods): the table the catalog made is kept, never replaced.
    func installPush(_ state: LuaState, _ flickr: Int32) {
        if state.rawGet(field: "push", in: flickr) != .table {
            state.pop()
            state.newTable(record: 1)
            state.pushCopy(of: -1)
            state.rawSet(field: "push", in: flickr)
        }
        let push = state.top
        define(state, push, "_plan", path: "push.plan") { call in try self.planPush(call) }
        state.pop()
    }

    /// Reads `flickr.push.plan{…}`'s options into a spec, every key checked before any request;
    /// returns it with a licence name still to resolve.
    static func pushSpec(_ options: LuaOptions) throws -> (PushSpec, license: String?) {
        let function = pushFunction
        func words(_ key: String) throws -> [String] {
            switch try raw(options, key) {
            case .nil: return []
            case .string(let s): return [s.description]
            case let v:
                guard let items = v.arrayValue, let strings = Optional(items.compactMap(\.stringValue)), strings.count == items.count else {
                    throw options.bad(key, expected: "a string or a list of strings", got: v.typeName)
                }
                return strings
            }
        }
        var spec = PushSpec(dirs: try words("dirs"))
        if let sets = try options.string("sets", expected: "\"folder\", \"none\" or a set's title") { spec.sets = .parse(sets) }
        spec.tags = try options.string("tags")
        if let privacy = try options.string("privacy") {
            do { spec.privacy = try Privacy.parse(privacy) } catch { throw FlickrError.usage("privacy: \(error.message)", method: function) }
        }
        if let safety = try options.string("safety") {
            do { spec.safety = try EditSpec.safety(safety) } catch { throw FlickrError.usage("safety: \(error.message)", method: function) }
        }
        spec.hidden = try options.boolean("hidden") ?? false
        spec.replace = try options.boolean("replace") ?? false
        spec.delete = try options.boolean("delete") ?? false
        spec.ignore = try words("ignore")
        if let keywords = try options.string("keywords") {
            guard keywords == "full" else { throw options.bad("keywords", expected: "\"full\"") }
            spec.fullKeywords = true
        }
        spec.titleFromFilename = try options.boolean("title_from_filename") ?? false
        let license = Self.word(try raw(options, "license"))
        spec.rules = ["flickr.push.plan"]
        do { try spec.check() } catch { throw FlickrError.usage(error.message, method: function) }
        return (spec, license)
    }

    private func planPush(_ call: LuaCall) throws -> LuaReturn {
        let function = Self.pushFunction
        try call.table(1)
        try Self.checkKeys(call.state, 1, known: Self.pushPlanKeys, noun: "option", function: function)
        let (given, license) = try Self.pushSpec(LuaOptions(state: call.state, index: 1, function: function, known: nil))
        // A missing folder (an unmounted disk) is refused before any request.
        do { _ = try PushPlanner.roots(given) } catch { throw FlickrError.usage(error.message, method: function) }
        let (client, store, environment) = (self.client, try jobStore(), self.environment)
        return asyncReturn(function, {
            try await Self.engineErrors(function) { () async throws -> PushPlanner.Result in
                var spec = given
                try PushPlanner.checkLogin(spec, client: client)
                if let license {
                    spec.license = try EditSpec.license(license, among: try await EditPlanner.licenses(client: client))
                }
                let source = try await LibraryJobSource.opened(for: client, environment: environment)
                let libraryLock = try source.store.lock(command: function, jobs: store)
                let folderLocks = try PushPlanner.roots(spec).map { try store.lockPushedFolder($0, command: function) }
                defer { withExtendedLifetime((libraryLock, folderLocks)) {} }
                let exifTool = ExifTool()
                defer { exifTool.stop() }
                var lines: [PushPlanner.Line] = []
                var result = try await PushPlanner(client: client, store: store, ledger: source, exifTool: exifTool).plan(spec) { lines.append($0) }
                result.lines = lines
                return result
            }
        }, deliver: { state, result in
            try state.push(try Self.pushPlanValue(result, store: store))
            return 1
        })
    }

    /// A push plan as Lua sees it.
    static func pushPlanValue(_ r: PushPlanner.Result, store: JobStore) throws -> LuaValue {
        func text(_ s: String) -> LuaValue { .string(LuaString(s)) }
        var steps: [LuaValue] = []
        if let job = r.job {
            steps = try store.pushSteps(of: job).map { pushStepValue($0) }
        }
        var counts: [LuaValue: LuaValue] = ["skip": .integer(Int64(r.skipped)), "reported": .integer(Int64(r.reported))]
        for action in PushAction.allCases { counts[text(action.rawValue)] = .integer(Int64(r.steps[action] ?? 0)) }
        var m: [LuaValue: LuaValue] = [
            "steps": .array(steps), "counts": .map(counts), "calls": .integer(Int64(r.calls)), "apply_calls": .integer(Int64(r.applyCalls)),
            "hashed": .integer(Int64(r.hashed)), "hashed_bytes": .integer(r.hashedBytes),
            "lines": .array(r.lines.map { l in
                var line: [LuaValue: LuaValue] = ["action": text(l.action), "path": text(l.path)]
                if let d = l.detail { line["detail"] = text(d) }
                return .map(line)
            }),
            "warnings": .array(r.warnings.map(text)),
        ]
        if let job = r.job { m["job"] = text(job) }
        return .map(m)
    }

    /// One step of a push job (or of its undo), with its journal status.
    static func pushStepValue(_ e: JournalEntry<PushChange>) -> LuaValue {
        func text(_ s: String) -> LuaValue { .string(LuaString(s)) }
        let c = e.change
        var m: [LuaValue: LuaValue] = ["action": text(c.action.rawValue), "path": text(c.path), "root": text(c.root),
                                       "sha256": text(c.sha256), "size": .integer(c.size), "status": text(e.status.rawValue),
                                       "groups": .array(c.writes.groups.map(text))]
        if let photo = c.photo { m["photo"] = text(photo) }
        if let from = c.from { m["from"] = text(from) }
        if let set = c.joinSet { m["set"] = text(set) }
        if let set = c.leaveSet, set != c.joinSet { m["leaves_set"] = text(set) }
        if let d = e.detail { m["detail"] = text(d) }
        return .map(m)
    }
}
