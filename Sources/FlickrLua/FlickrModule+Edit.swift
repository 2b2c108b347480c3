import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// The Swift half of `flickr.edit` (the Lua half, in `lua/flickr/core.lua`, makes the
/// plan object):
///
///     flickr.edit._plan{ find = {…} | query = {…}, changes = {…}, rule = fn } → plan, json
///     flickr.edit._apply(job, { progress = fn })                          → the job's summary
///
/// The options and every change are read and checked before any request (an unknown key is a
/// usage error with the nearest names); names of licences and sets are then resolved with one
/// call each, and ``EditPlanner`` plans the job into the same database as `flickr edit`'s. The
/// `rule` function runs on the Lua thread, once per photo, while the planner waits.
extension FlickrModule {
    static let editFunction = "flickr.edit.plan"
    /// The keys of `flickr.edit.plan{…}`.
    static let editPlanKeys: Set<String> = ["find", "query", "changes", "rule"]
    /// The keys of `changes` (and of what a rule returns, with ``editRuleOnlyKeys``): the
    /// command line's, read by the same ``ChangeRequest``.
    static let editChangeKeys = ChangeRequest.keys
    static let editRuleOnlyKeys = ChangeRequest.ruleOnlyKeys

    func installEdit(_ state: LuaState, _ flickr: Int32) {
        state.newTable(record: 4)
        let edit = state.top
        define(state, edit, "_plan", path: "edit.plan") { call in try self.planEdit(call) }
        define(state, edit, "_apply", path: "edit.apply") { call in
            let job = try call.string(1)
            var relay: ProgressRelay?
            if let options = try LuaOptions.read(call, at: 2, function: "flickr.edit.apply", known: ["progress"]),
               let callback = try options.function("progress", expected: "a function(done, total)") {
                relay = ProgressRelay(poster: call.state.jobPoster, callback: callback)
            }
            return try self.runJob(job, relay: relay)
        }
        state.rawSet(field: "edit", in: flickr)
    }

    // MARK: Planning

    private func planEdit(_ call: LuaCall) throws -> LuaReturn {
        let function = Self.editFunction
        try call.table(1)
        let s = call.state
        try Self.checkKeys(s, 1, known: Self.editPlanKeys, noun: "option", function: function)
        let options = try LuaOptions(state: s, index: 1, function: function, known: nil)
        // changes
        var request = ChangeRequest(source: .lua)
        if s.rawGet(field: "changes", in: 1) != .nil {
            guard s.type(at: -1) == .table else {
                defer { s.pop() }
                throw options.bad("changes", expected: "a table of changes", got: s.typeName(at: -1))
            }
            defer { s.pop() }
            try Self.checkKeys(s, s.top, known: Self.editChangeKeys, noun: "change", function: function)
            request = try Self.readChanges(LuaOptions(state: s, index: s.top, function: function, known: nil, noun: "change"), rule: false)
        } else {
            s.pop()
        }
        let rule = try options.function("rule", expected: "a function(photo) returning a table of changes or nil")
        guard !request.isEmpty || rule != nil else {
            throw FlickrError.usage("no change asked for: give changes = { … } (" + Self.editChangeKeys.sorted().joined(separator: ", ")
                                    + ") or rule = function(photo) … end", method: function)
        }
        // find | query
        var find: [String: String]?
        var query: [String: String] = [:]
        switch try Self.raw(options, "find") {
        case .nil: break
        case .map(let m):
            var given: [String: LibraryFilter.Value] = [:]
            var text: [String: String] = [:]
            for (k, v) in m {
                guard let key = k.stringValue else { throw FlickrError.usage("find: filter keys are names (tags = …, taken = …)", method: function) }
                given[key] = try Self.value(v, key: key, function: function)
                text[key] = Self.filterText(v)
            }
            // The library's own check: a key that does not exist (with a suggestion), a bad value.
            do { _ = try LibraryFilter(given) } catch { throw FlickrError.usage("find: " + error.message, method: function) }
            find = text
        case .array(let a) where a.isEmpty: find = [:]
        case let v: throw options.bad("find", expected: "a filter table (flickr.library's keys)", got: v.typeName)
        }
        switch try Self.raw(options, "query") {
        case .nil: break
        case .map(let m):
            if find != nil { throw FlickrError.usage("find and query exclude each other: select from the library (find) or from Flickr (query)", method: function) }
            // flickr.photos.search's arguments (photoset_id lists a set instead), checked before any request.
            let known = Set((MethodCatalog.shared.method("flickr.photos.search")?.arguments.map(\.name) ?? []) + ["photoset_id"])
                .subtracting(["api_key"])
            for (k, v) in m {
                guard let key = k.stringValue, let w = Self.word(v) else {
                    throw options.bad("query", expected: "a table of flickr.photos.search arguments (names to strings or numbers)")
                }
                guard known.isEmpty || known.contains(key) else {
                    throw FlickrError.usage("query: '\(key)' is not an argument of flickr.photos.search"
                                            + Suggestions.phrase(Suggestions.closest(to: key, among: known)), method: function)
                }
                query[key] = w
            }
        case .array(let a) where a.isEmpty: break
        case let v: throw options.bad("query", expected: "a table of flickr.photos.search arguments", got: v.typeName)
        }
        let (client, store, environment) = (self.client, try jobStore(), self.environment)
        let source = LibraryJobSource.synced(for: client, environment: environment)
        if find != nil, source == nil {
            throw FlickrError.usage("find needs the library on disk, and there is none for this account: "
                                    + "run flickr.library.sync{} (or flickr sync) first, or select with query = { … }", method: function)
        }
        let poster = s.jobPoster
        let lists = EditLists(client: client)
        let chosen = (request: request, find: find, query: query)
        var custom: EditPlanner.Custom?
        if let rule {
            custom = { pre, fields in
                try await Self.runRule(rule, poster: poster, pre: pre, fields: fields, base: chosen.request, lists: lists, function: function)
            }
        }
        let rules = request.given + (rule != nil ? ["rule = function"] : [])
        let ruleGiven = custom
        return asyncReturn(function, {
            do {
                let sentAtStart = client.requestsSent
                let spec = try await lists.resolve(chosen.request, function: function)
                var planner = EditPlanner(client: client, store: store)
                planner.licenses = await lists.licenseIDs
                planner.lookupCalls = client.requestsSent - sentAtStart
                // A synced library answers the selection and the pre-images (after an incremental sync).
                var lock: RunnerLock?
                if let source {
                    do {
                        lock = try source.store.lock(command: function, jobs: store)
                        planner.source = source
                    } catch let busy as RunnerLock.Busy {
                        if chosen.find != nil {
                            throw FlickrError.usage("find needs the library, and \(busy.holder?.description ?? "another process") holds it; try again when it is done", method: function)
                        }
                    }
                }
                defer { withExtendedLifetime(lock) {} }
                let result = try await planner.plan(spec, query: chosen.query, find: chosen.find, rules: rules, custom: ruleGiven)
                return (result: result, names: await lists.names, budget: (client.pacer as? SharedBudget)?.budget, store: store)
            } catch let e as JobError {
                throw FlickrError.usage(e.message, method: function)
            } catch let e as EditSpecError {
                throw FlickrError.usage(e.message.replacingOccurrences(of: "--find", with: "find"), method: function)
            }
        }, deliver: { state, planned in
            try state.push(Self.planValue(planned.result, store: planned.store, names: planned.names, budget: planned.budget))
            var document = ""
            try EditReport.writePlanJSON(planned.result, store: planned.store, names: planned.names) { document += $0 }
            state.push(document + "\n")
            return 2
        })
    }

    /// Runs an edit engine's work with its refusals (a job's state, a held lock, a spec) raised
    /// as the module's `usage` errors rather than as text.
    static func engineErrors<T: Sendable>(_ function: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as JobError {
            throw FlickrError.usage(e.message, method: function)
        } catch let e as RunnerLock.Busy {
            throw FlickrError.usage(e.description, method: function)
        } catch let e as PushFolderBusy {
            throw FlickrError.usage(e.description, method: function)
        } catch let e as EditSpecError {
            throw FlickrError.usage(e.message, method: function)
        }
    }

    /// A filter value as `flickr find`'s KEY=VALUE text (how ``JobSource`` takes it).
    static func filterText(_ v: LuaValue) -> String {
        switch v {
        case .boolean(let b): return b ? "true" : "false"
        case .array(let a): return a.compactMap(word).joined(separator: ",")
        case .map(let m): return (m["from"].flatMap(word) ?? "") + ".." + (m["to"].flatMap(word) ?? "")
        default: return word(v) ?? ""
        }
    }
}
