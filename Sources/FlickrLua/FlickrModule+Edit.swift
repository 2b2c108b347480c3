import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// The Swift half of `flickr.edit` (issue 27; the Lua half, in `lua/flickr/core.lua`, makes the
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
    /// The keys of `changes` (and of what a rule returns, with ``editRuleOnlyKeys``).
    static let editChangeKeys: Set<String> = ["title", "description", "privacy", "license", "safety", "content_type", "shift_taken",
                                              "set_taken", "geo", "clear_geo", "add_to_set", "remove_from_set", "create_set",
                                              "rename", "add", "remove"]
    static let editRuleOnlyKeys: Set<String> = ["tags", "date_taken"]

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

    // MARK: Reading the request

    /// What a `changes` table (or a rule's answer) asks for, parsed and checked; licence and set
    /// names stay as given until Flickr's lists resolve them.
    struct EditRequest: Sendable {
        var spec = EditSpec()
        var license: String?
        var addSets: [String] = []
        var removeSets: [String] = []
        var createSet = false
        /// A rule's `tags`: the photo's own tags, in full.
        var tags: [String]?
        /// The changes as given, kept with the job (`title = "…"`).
        var given: [String] = []

        var isEmpty: Bool { spec.isEmpty && license == nil && addSets.isEmpty && removeSets.isEmpty && tags == nil }
    }

    /// Refuses a key of the table at `index` that is not in `known`, naming the nearest and
    /// listing them all: `unknown change 'titel' (did you mean title?); the changes are …`.
    static func checkKeys(_ state: LuaState, _ index: Int32, known: Set<String>, noun: String, function: String) throws {
        let s = state
        try s.forEachRawEntry(inTableAt: index) { (e) throws(FlickrError) -> Bool in
            let key = s.type(at: e.keyIndex) == .string ? s.string(at: e.keyIndex) : nil
            guard let key, known.contains(key) else {
                let shown = key ?? (s.type(at: e.keyIndex) == .number ? "[\(s.string(at: e.keyIndex) ?? "?")]" : s.typeName(at: e.keyIndex))
                let near = key.map { Suggestions.closest(to: $0, among: known) } ?? []
                throw FlickrError.usage("unknown \(noun) '\(shown)'" + Suggestions.phrase(near)
                                        + "; the \(noun)s are \(known.sorted().joined(separator: ", "))", method: function)
            }
            return true
        }
    }

    /// The raw value of `key` in an option table, as data.
    static func raw(_ o: LuaOptions, _ key: String) throws -> LuaValue {
        let type = o.state.rawGet(field: key, in: o.index)
        defer { o.state.pop() }
        guard type != .nil else { return .nil }
        do { return try o.state.value(at: -1) } catch { throw o.bad(key, expected: "strings, numbers and tables of them", got: o.state.typeName(at: -1)) }
    }

    /// One word or number as text.
    static func word(_ v: LuaValue) -> String? {
        switch v {
        case .string(let s): return s.description
        case .integer(let n): return String(n)
        case .number(let d): return ArgumentConversion.format(d)
        default: return nil
        }
    }

    /// A word or a list of words.
    static func words(_ o: LuaOptions, _ key: String, expected: String) throws -> [String]? {
        let v = try raw(o, key)
        switch v {
        case .nil: return nil
        case .array(let a):
            let out = a.compactMap(word)
            guard out.count == a.count, !out.isEmpty else { throw o.bad(key, expected: expected, got: "a table of other things") }
            return out
        default:
            guard let w = word(v) else { throw o.bad(key, expected: expected, got: v.typeName) }
            return [w]
        }
    }

    /// Reads a `changes` table (or, with `rule`, a rule's answer) at `o`: each value checked as
    /// `flickr edit plan`'s options are. An engine message names the CLI option (`--geo: …`); here
    /// it names the key.
    static func readChanges(_ o: LuaOptions, rule: Bool) throws -> EditRequest {
        var r = EditRequest()
        // An engine message names the CLI option (`--geo: …`); here the key is named instead.
        func engine<T>(_ key: String, _ body: () throws -> T) throws -> T {
            do { return try body() } catch {
                var message = (error as? EditSpecError)?.message ?? (error as? RetagRuleError)?.message ?? "\(error)"
                if message.hasPrefix("--"), let colon = message.firstIndex(of: ":") {
                    message = String(message[message.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                }
                throw FlickrError.usage("bad change '\(key)': \(message)", method: o.function)
            }
        }
        func note(_ key: String, _ value: String) { r.given.append("\(key) = \(JSONValue.quote(value))") }
        for key in ["title", "description"] {
            guard let text = try o.string(key) else { continue }
            note(key, text)
            // A rule's text is the title itself; `changes` takes a template of the photo's fields.
            let template = rule ? text.replacingOccurrences(of: "{", with: "{{").replacingOccurrences(of: "}", with: "}}") : text
            let parsed = try engine(key) { try EditTemplate(template, option: key) }
            if key == "title" { r.spec.title = parsed } else { r.spec.description = parsed }
        }
        if let p = try words(o, "privacy", expected: "\"public\", \"private\", \"friends\", \"family\" or {\"friends\", \"family\"}") {
            note("privacy", p.joined(separator: ","))
            r.spec.privacy = try engine("privacy") { try Privacy.parse(p.joined(separator: ",")) }
        }
        // A number is taken as its text (license = 4, safety = 2).
        if let w = try o.string("license", expected: "a licence id or name") {
            note("license", w)
            r.license = w
        }
        if let w = try o.string("safety", expected: "\"safe\", \"moderate\" or \"restricted\"") {
            note("safety", w)
            r.spec.safety = try engine("safety") { try EditSpec.safety(w) }
        }
        if let w = try o.string("content_type", expected: "\"photo\", \"screenshot\" or \"other\"") {
            note("content_type", w)
            r.spec.contentType = try engine("content_type") { try EditSpec.contentType(w) }
        }
        if let shift = try o.string("shift_taken", expected: "a duration such as \"+3h\" or \"-1d2h\"") {
            note("shift_taken", shift)
            r.spec.shiftTaken = try engine("shift_taken") { try TakenDate.shift(shift) }
        }
        for key in rule ? ["set_taken", "date_taken"] : ["set_taken"] {
            guard let date = try o.string(key, expected: "a date such as \"2019-07-02 14:03:00\", \"2019-07\" or \"circa 2019\"") else { continue }
            if r.spec.setTaken != nil { throw FlickrError.usage("set_taken and date_taken say the same thing: give one", method: o.function) }
            note(key, date)
            let (taken, granularity) = try engine(key) { try TakenDate.parse(date) }
            (r.spec.setTaken, r.spec.setTakenGranularity) = (taken, granularity)
        }
        // A rule's location out of Flickr's ranges is the planner's to refuse, for that photo only.
        func point(_ text: String) throws -> GeoPoint {
            if rule, let unchecked = uncheckedGeo(text) { return unchecked }
            return try engine("geo") { try GeoPoint.parse(text) }
        }
        switch try raw(o, "geo") {
        case .nil: break
        case .string(let s):
            note("geo", s.description)
            r.spec.geo = try point(s.description)
        case let v:
            // { lat = …, lon = …, accuracy = … } or { lat, lon [, accuracy] }
            let expected = "\"LAT,LON[,ACCURACY]\" or { lat = …, lon = …, accuracy = … }"
            var parts: [LuaValue]
            switch v {
            case .array(let a) where a.count == 2 || a.count == 3: parts = a
            case .map(let m) where Set(m.keys.compactMap(\.stringValue)).isSubset(of: ["lat", "lon", "accuracy"]) && m.count == m.keys.compactMap(\.stringValue).count:
                parts = [m["lat"] ?? .nil, m["lon"] ?? .nil] + (m["accuracy"].map { [$0] } ?? [])
            default: throw o.bad("geo", expected: expected, got: v.typeName)
            }
            let text = try parts.map { p -> String in
                guard p.numberValue != nil, let w = word(p) else { throw o.bad("geo", expected: expected + " with numbers", got: p.typeName) }
                return w
            }.joined(separator: ",")
            note("geo", text)
            r.spec.geo = try point(text)
        }
        if try o.boolean("clear_geo") == true {
            r.given.append("clear_geo = true")
            r.spec.clearGeo = true
        }
        if let sets = try words(o, "add_to_set", expected: "a set's title or id, or a list of them") {
            for s in sets { note("add_to_set", s) }
            r.addSets = sets
        }
        if let sets = try words(o, "remove_from_set", expected: "a set's title or id, or a list of them") {
            for s in sets { note("remove_from_set", s) }
            r.removeSets = sets
        }
        if try o.boolean("create_set") == true {
            r.given.append("create_set = true")
            r.createSet = true
        }
        // Tag rules, retag's: renames, then removals, then additions.
        func stored(_ raw: String, _ key: String) throws -> String {
            let form = try engine(key) { try RetagRule.storedTag(raw, option: key) }
            if let warning = form.warning { throw FlickrError.usage("bad change '\(key)': \(warning)", method: o.function) }
            return form.tag
        }
        switch try raw(o, "rename") {
        case .nil: break
        case let v:
            let expected = "{ from, to }, { from = …, to = … } or a list of { from, to }"
            var pairs: [LuaValue] = []
            switch v {
            case .array(let a) where a.allSatisfy({ $0.arrayValue != nil || $0.mapValue != nil }): pairs = a
            default: pairs = [v]
            }
            for pair in pairs {
                let from: String?, to: String?
                switch pair {
                case .array(let a) where a.count == 2: (from, to) = (word(a[0]), word(a[1]))
                case .map(let m) where m.count == 2: (from, to) = (m["from"].flatMap(word), m["to"].flatMap(word))
                default: throw o.bad("rename", expected: expected, got: pair.typeName)
                }
                guard let from, let to else { throw o.bad("rename", expected: expected, got: "other values") }
                note("rename", "\(from) → \(to)")
                let target = to.contains("*") ? to : try stored(to, "rename")
                r.spec.tagRules.append(try engine("rename") { try RetagRule.renaming(from, to: target) })
            }
        }
        if let tags = try words(o, "remove", expected: "a tag or a list of tags") {
            for t in tags {
                note("remove", t)
                r.spec.tagRules.append(.remove(t))
            }
        }
        if let tags = try words(o, "add", expected: "a tag or a list of tags") {
            for t in tags {
                note("add", t)
                r.spec.tagRules.append(.add(try stored(t, "add")))
            }
        }
        if rule {
            switch try raw(o, "tags") {
            case .nil: break
            case .array(let a):
                let list = a.compactMap(word)
                guard list.count == a.count else { throw o.bad("tags", expected: "a list of tags", got: "a list of other things") }
                r.tags = try list.map { try stored($0, "tags") }
            case .map(let m) where m.isEmpty: r.tags = []
            case let v: throw o.bad("tags", expected: "a list of tags", got: v.typeName)
            }
        }
        if r.createSet && r.addSets.isEmpty { throw FlickrError.usage("create_set creates the add_to_set set: give add_to_set = \"TITLE\"", method: o.function) }
        // What cannot be meant together (the engine's check, in the keys' names).
        if r.spec.geo != nil && r.spec.clearGeo { throw FlickrError.usage("geo and clear_geo exclude each other", method: o.function) }
        if r.spec.shiftTaken != nil && r.spec.setTaken != nil {
            throw FlickrError.usage("shift_taken and set_taken exclude each other", method: o.function)
        }
        if let both = Set(r.addSets).intersection(r.removeSets).first {
            throw FlickrError.usage("set \(JSONValue.quote(both)) is both in add_to_set and in remove_from_set", method: o.function)
        }
        return r
    }

    /// `LAT,LON[,ACCURACY]` read as numbers, without Flickr's ranges (a rule's value: the
    /// planner refuses that photo when out of range); nil when it is not of that form.
    static func uncheckedGeo(_ text: String) -> GeoPoint? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 || parts.count == 3, let lat = Double(parts[0]), let lon = Double(parts[1]), lat.isFinite, lon.isFinite
        else { return nil }
        guard parts.count == 3 else { return GeoPoint(latitude: lat, longitude: lon) }
        return Int(parts[2]).map { GeoPoint(latitude: lat, longitude: lon, accuracy: $0) }
    }

    /// Flickr's lists a request's names need, read once each (a call apiece) and shared by every
    /// photo a rule answers for.
    actor EditLists {
        let client: FlickrClient
        private var licenses: [(id: Int, name: String)]?
        private var sets: [(id: String, title: String, size: Int)]?
        /// With the lists already read (by `flickr edit plan`), if any.
        init(client: FlickrClient, licenses: [(id: Int, name: String)]? = nil, sets: [(id: String, title: String, size: Int)]? = nil) {
            (self.client, self.licenses, self.sets) = (client, licenses, sets)
        }

        func licenseList() async throws -> [(id: Int, name: String)] {
            if let licenses { return licenses }
            let l = try await EditPlanner.licenses(client: client)
            licenses = l
            return l
        }

        func setList() async throws -> [(id: String, title: String, size: Int)] {
            if let sets { return sets }
            let s = try await EditPlanner.sets(client: client)
            sets = s
            return s
        }

        var licenseNames: [Int: String] { Dictionary((licenses ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a }) }
        var setTitles: [String: String] { Dictionary((sets ?? []).map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a }) }
        var names: EditReport.Names { EditReport.Names(licenses: licenseNames, sets: setTitles) }
        /// The licence ids, when the list was read.
        var licenseIDs: Set<Int>? { licenses.map { Set($0.map(\.id)) } }

        /// `r`'s spec with its licence and sets resolved. An unknown licence or set is a usage
        /// error — or, with `refusing` (a rule's answer), an ``EditRefusal`` for that photo.
        func resolve(_ r: EditRequest, function: String, refusing: Bool = false) async throws -> EditSpec {
            var spec = r.spec
            func message(_ e: EditSpecError) -> String {
                e.message.replacingOccurrences(of: "--license", with: "license").replacingOccurrences(of: "--create-set", with: "create_set = true")
            }
            do {
                if let given = r.license { spec.license = try EditSpec.license(given, among: try await licenseList()) }
            } catch let e as EditSpecError {
                if refusing { throw EditRefusal(field: .license, reason: Self.reason(message(e))) }
                throw FlickrError.usage(message(e), method: function)
            }
            do {
                if !r.addSets.isEmpty || !r.removeSets.isEmpty {
                    let all = try await setList()
                    spec.addToSets = try r.addSets.map { try EditPlanner.resolveSet($0, among: all, create: r.createSet, option: "add_to_set") }
                    spec.removeFromSets = try r.removeSets.map { try EditPlanner.resolveSet($0, among: all, create: false, option: "remove_from_set") }
                }
            } catch let e as EditSpecError {
                if refusing { throw EditRefusal(field: .sets, reason: Self.reason(message(e))) }
                throw FlickrError.usage(message(e), method: function)
            }
            return spec
        }

        /// An engine message without the option it names (`license: there is no licence 99 …`).
        static func reason(_ message: String) -> String {
            for key in ["license: ", "add_to_set: ", "remove_from_set: "] where message.hasPrefix(key) { return String(message.dropFirst(key.count)) }
            return message
        }
    }

    // MARK: Planning

    private func planEdit(_ call: LuaCall) throws -> LuaReturn {
        let function = Self.editFunction
        try call.table(1)
        let s = call.state
        try Self.checkKeys(s, 1, known: Self.editPlanKeys, noun: "option", function: function)
        let options = try LuaOptions(state: s, index: 1, function: function, known: nil)
        // changes
        var request = EditRequest()
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
        let source = LibraryEditSource.synced(for: client, environment: environment)
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
                let spec = try await lists.resolve(chosen.request, function: function)
                var planner = EditPlanner(client: client, store: store)
                planner.licenses = await lists.licenseIDs
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
                return (result: result, names: await lists.names, budget: (client.pacer as? SharedBudget)?.budget, database: store.path)
            } catch let e as JobError {
                throw FlickrError.usage(e.message, method: function)
            } catch let e as EditSpecError {
                throw FlickrError.usage(e.message.replacingOccurrences(of: "--find", with: "find"), method: function)
            }
        }, deliver: { state, planned in
            try state.push(Self.planValue(planned.result, names: planned.names, budget: planned.budget))
            state.push(try EditReport.planJSON(planned.result, database: planned.database, names: planned.names) + "\n")
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
        } catch let e as EditSpecError {
            throw FlickrError.usage(e.message, method: function)
        }
    }

    /// A filter value as `flickr find`'s KEY=VALUE text (how ``EditSource`` takes it).
    static func filterText(_ v: LuaValue) -> String {
        switch v {
        case .boolean(let b): return b ? "true" : "false"
        case .array(let a): return a.compactMap(word).joined(separator: ",")
        case .map(let m): return (m["from"].flatMap(word) ?? "") + ".." + (m["to"].flatMap(word) ?? "")
        default: return word(v) ?? ""
        }
    }

    /// Calls the rule on the Lua thread with the photo's table and turns its answer into the
    /// groups it changes: `base` (the `changes`) with the rule's answer over it.
    static func runRule(_ rule: LuaRef, poster: LuaJobPoster, pre: PhotoMetadata, fields: [String: String], base: EditRequest,
                        lists: EditLists, function: String) async throws -> [EditValue]? {
        let photo = photoValue(pre, fields: fields)
        let answer = await poster.run { state -> Result<EditRequest?, any Error> in
            let top = state.top
            defer { state.setTop(top) }
            do {
                guard state.ensureStack(4) else { throw FlickrError.usage("stack overflow", method: function) }
                rule.push(onto: state)
                try state.push(photo)
                try state.pcall(arguments: 1, results: 1)
                switch state.type(at: -1) {
                case .nil: return .success(nil)
                case .table:
                    try checkKeys(state, state.top, known: editChangeKeys.union(editRuleOnlyKeys), noun: "change", function: function + " (rule)")
                    return .success(try readChanges(LuaOptions(state: state, index: state.top, function: function + " (rule)", known: nil, noun: "change"), rule: true))
                default:
                    throw FlickrError.usage("the rule returned a \(state.typeName(at: -1)); it returns a table of changes, or nil to leave the photo as it is",
                                            method: function + " (rule)")
                }
            } catch let e as FlickrError {
                var e = e
                e.message = "photo \(pre.photoID): " + e.message
                return .failure(e)
            } catch {
                return .failure(error)
            }
        }
        guard let answer else { throw FlickrError.interrupted(function) }
        guard let asked = try answer.get() else { return nil }
        // The rule over the changes: its fields replace theirs, its set and tag rules follow theirs.
        var merged = base
        let r = asked.spec
        if let t = r.title { merged.spec.title = t }
        if let d = r.description { merged.spec.description = d }
        if let p = r.privacy { merged.spec.privacy = p }
        if let l = asked.license { merged.license = l }
        if let s = r.safety { merged.spec.safety = s }
        if let c = r.contentType { merged.spec.contentType = c }
        if r.shiftTaken != nil || r.setTaken != nil {
            (merged.spec.shiftTaken, merged.spec.setTaken, merged.spec.setTakenGranularity) = (r.shiftTaken, r.setTaken, r.setTakenGranularity)
        }
        if r.geo != nil || r.clearGeo { (merged.spec.geo, merged.spec.clearGeo) = (r.geo, r.clearGeo) }
        merged.addSets = merged.addSets.filter { !asked.removeSets.contains($0) } + asked.addSets
        merged.removeSets = merged.removeSets.filter { !asked.addSets.contains($0) } + asked.removeSets
        merged.createSet = merged.createSet || asked.createSet
        merged.spec.tagRules += r.tagRules
        // What Flickr would refuse (a licence or set it does not have, a date before 1900…) refuses
        // this photo only: the planner records it, with the reason, and never sends it.
        let spec = try await lists.resolve(merged, function: function + " (rule)", refusing: true)
        var targets = try spec.targets(for: pre, fields: fields).get()
        if let tags = asked.tags {
            // The whole list of its ordinary tags (the photo table's `tags`): its machine tags stay
            // unless the list names them; the rule's own tag rules then apply to it.
            let named = Set(tags.map(TagString.clean))
            let machine = pre.ownerTags.filter { TagString.isMachineTag($0) && !named.contains(TagString.clean($0)) }
            let list = RetagRule.apply(r.tagRules, to: tags + machine)
            targets.removeAll { $0.field == .tags }
            if !pre.value(.tags).matches(.tags(list)) { targets.append(.tags(list)) }
        }
        // A group the changes set and the rule puts back as it was: the pre-image, so nothing is written.
        let baseSpec = try? await lists.resolve(base, function: function)
        let baseFields = (try? baseSpec?.targets(for: pre, fields: fields).get())?.map(\.field) ?? []
        for field in baseFields where !targets.contains(where: { $0.field == field }) { targets.append(pre.value(field)) }
        return targets
    }

    /// The table a rule is called with: the template fields (`flickr.library`'s forms) with the
    /// tags, machine tags and sets as lists, and what else the pre-image knows.
    static func photoValue(_ m: PhotoMetadata, fields: [String: String]) -> LuaValue {
        var t: [LuaValue: LuaValue] = [:]
        for (key, value) in fields {
            switch key {
            case "tags", "machine_tags": continue
            case "ispublic", "isfriend", "isfamily", "accuracy", "views", "date_upload", "last_update":
                t[.string(LuaString(key))] = Int64(value).map { .integer($0) } ?? .string(LuaString(value))
            case "latitude", "longitude":
                t[.string(LuaString(key))] = Double(value).map { .number($0) } ?? .string(LuaString(value))
            default:
                t[.string(LuaString(key))] = .string(LuaString(value))
            }
        }
        let own = m.ownerTags
        t["tags"] = .array(own.filter { !TagString.isMachineTag($0) }.map { .string(LuaString($0)) })
        t["machine_tags"] = .array(own.filter(TagString.isMachineTag).map { .string(LuaString($0)) })
        t["sets"] = .array((m.sets ?? []).sorted().map { .string(LuaString($0)) })
        t["date_taken_granularity"] = .integer(Int64(m.takenGranularity))
        t["privacy"] = .string(LuaString(m.privacy.description))
        t["safety"] = .string(LuaString(EditValue.safety(m.safety).description))
        if let c = m.contentType { t["content_type"] = .string(LuaString(EditValue.contentType(c).description)) }
        return .map(t)
    }

    // MARK: The plan as Lua sees it

    /// One group's change, field by field as people name them: (field, from, to) in Lua form.
    static func entries(_ from: EditValue, _ to: EditValue) -> [(field: String, from: LuaValue, to: LuaValue)] {
        func s(_ text: String) -> LuaValue { .string(LuaString(text)) }
        func list(_ l: [String]) -> LuaValue { .array(l.map(s)) }
        func geo(_ g: GeoPoint?) -> LuaValue {
            g.map { .map(["lat": .number($0.latitude), "lon": .number($0.longitude), "accuracy": .integer(Int64($0.accuracy))]) } ?? .nil
        }
        switch (from, to) {
        case let (.meta(t0, d0), .meta(t1, d1)):
            return (t0 == t1 ? [] : [("title", s(t0), s(t1))]) + (d0 == d1 ? [] : [("description", s(d0), s(d1))])
        case let (.dates(a, g0), .dates(b, g1)):
            return [("date_taken", s(a), s(b))] + (g0 == g1 ? [] : [("date_taken_granularity", .integer(Int64(g0)), .integer(Int64(g1)))])
        case let (.perms(a), .perms(b)): return [("privacy", s(a.description), s(b.description))]
        case let (.license(a), .license(b)): return [("license", .integer(Int64(a)), .integer(Int64(b)))]
        case (.safety, .safety): return [("safety", s(from.description), s(to.description))]
        case let (.contentType(a), .contentType(b)): return [("content_type", a == nil ? .nil : s(from.description), b == nil ? .nil : s(to.description))]
        case let (.geo(a), .geo(b)): return [("geo", geo(a), geo(b))]
        case let (.sets(a), .sets(b)): return [("sets", list(a.sorted()), list(b.sorted()))]
        case let (.tags(a), .tags(b)): return [("tags", list(a), list(b))]
        default: return [(to.field.rawValue, s(from.description), s(to.description))]
        }
    }

    /// The plan table: `{ job, enumerated, calls, apply_calls, summary, fields = { meta = n, … },
    /// photos = { { id, lastupdate, changes = { { field, from, to }, … }, diff = { line, … } }, … },
    /// refused = { { id, field, reason }, … } }`. The diff lines, the summary (its two lines
    /// joined by "; ") and the calls are ``EditReport``'s, as `flickr edit plan` prints them.
    static func planValue(_ r: EditPlanner.Result, names: EditReport.Names, budget: CallBudget?) -> LuaValue {
        var perField: [LuaValue: LuaValue] = [:]
        for (field, n) in EditReport.perField(r.changes) { perField[.string(LuaString(field.rawValue))] = .integer(Int64(n)) }
        let photos: [LuaValue] = r.changes.map { change in
            var changes: [LuaValue] = []
            for target in change.targets {
                for e in entries(change.pre.value(target.field), target) {
                    var m: [LuaValue: LuaValue] = ["field": .string(LuaString(e.field)), "group": .string(LuaString(target.field.rawValue))]
                    if e.from != .nil { m["from"] = e.from }
                    if e.to != .nil { m["to"] = e.to }
                    changes.append(.map(m))
                }
            }
            return .map(["id": .string(LuaString(change.pre.photoID)), "lastupdate": .integer(Int64(change.pre.lastUpdate)),
                         "changes": .array(changes), "diff": .array(EditReport.lines(change, names: names).map { .string(LuaString($0)) })])
        }
        return .map([
            "job": .string(LuaString(r.job)), "enumerated": .integer(Int64(r.enumerated)), "calls": .integer(Int64(r.calls)),
            "apply_calls": .integer(Int64(EditReport.applyCalls(r.changes))),
            "summary": .string(LuaString(EditReport.summary(r, budget: budget).joined(separator: "; "))), "fields": .map(perField),
            "photos": .array(photos),
            "refused": .array(r.refused.map { .map(["id": .string(LuaString($0.photo)), "field": .string(LuaString($0.refusal.field.rawValue)),
                                                    "reason": .string(LuaString($0.refusal.reason))]) }),
        ])
    }

    /// An edit job's photos for `flickr.jobs._photos`: `{ id, status, detail, changes = {…} }`.
    static func editPhotosValue(_ photos: [EditJobPhoto]) -> LuaValue {
        .array(photos.map { p in
            var changes: [LuaValue] = []
            for target in p.change.targets {
                for e in entries(p.change.pre.value(target.field), target) {
                    var m: [LuaValue: LuaValue] = ["field": .string(LuaString(e.field)), "group": .string(LuaString(target.field.rawValue))]
                    if e.from != .nil { m["from"] = e.from }
                    if e.to != .nil { m["to"] = e.to }
                    changes.append(.map(m))
                }
            }
            var m: [LuaValue: LuaValue] = ["id": .string(LuaString(p.change.pre.photoID)), "status": .string(LuaString(p.status.rawValue)),
                                           "changes": .array(changes)]
            if let d = p.detail { m["detail"] = .string(LuaString(d)) }
            return .map(m)
        })
    }
}

/// `flickr edit plan --lua FILE`: the rule of `flickr.edit.plan{ rule = … }` from a file, run in
/// the command's Lua by the same runner.
extension FlickrLuaSession {
    /// A `--lua` rule ready for ``EditPlanner/plan(_:query:find:rules:custom:)``.
    package struct EditRule: Sendable {
        package let custom: EditPlanner.Custom
        /// The licences and sets read for the options and the rule's answers, to name them in the diff.
        package let names: @Sendable () async -> EditReport.Names
    }

    /// Loads FILE (a chunk returning `function(photo) return { title = …, … } end`) in this
    /// session's Lua and returns the rule that calls it once per photo, on the Lua thread, with
    /// the photo's table: `nil` leaves the photo as the options do; a table is read and checked
    /// as a `flickr.edit.plan` rule's answer is, over the options (`changes`: the options as
    /// given, licence and set names unresolved; `licenses` and `sets` the lists the command has
    /// read already, if any). What Flickr would refuse for a photo refuses that photo
    /// (``EditRefusal``); an error in the file, or an answer of the wrong form, is a
    /// ``JobError`` naming the file and the photo, and stops the plan.
    package func editRule(file: String, changes: EditSpec, license: String?, addSets: [String], removeSets: [String], createSet: Bool,
                          licenses: [(id: Int, name: String)]?, sets: [(id: String, title: String, size: Int)]?) async throws -> EditRule {
        let function = "--lua \(file)"
        let (rule, poster) = try await runtime.perform { state -> (LuaRef, LuaJobPoster) in
            let top = state.top
            defer { state.setTop(top) }
            do {
                try state.loadFile(file)
                try state.pcall(arguments: 0, results: 1)
            } catch let e as LuaError {
                throw JobError("\(function): \(e.message)")
            }
            guard state.type(at: -1) == .function else {
                throw JobError("\(function): the file returns a \(state.typeName(at: -1)); it must return function(photo) … end")
            }
            return (LuaRef(popping: state), state.jobPoster)
        }
        var base = FlickrModule.EditRequest()
        (base.spec, base.license, base.addSets, base.removeSets, base.createSet) = (changes, license, addSets, removeSets, createSet)
        let lists = FlickrModule.EditLists(client: client, licenses: licenses, sets: sets)
        let chosen = base
        let custom: EditPlanner.Custom = { pre, fields in
            do {
                return try await FlickrModule.runRule(rule, poster: poster, pre: pre, fields: fields, base: chosen, lists: lists, function: function)
            } catch let refusal as EditRefusal {
                throw refusal
            } catch let e as LuaError {
                throw JobError("\(function): photo \(pre.photoID): \(e.message)")
            } catch let e as FlickrError where e.kind == .usage {
                throw JobError(e.message.hasPrefix("photo ") ? "\(function): \(e.message)" : "\(function): photo \(pre.photoID): \(e.message)")
            }
        }
        return EditRule(custom: custom, names: { await lists.names })
    }
}

extension LuaValue {
    /// The Lua type name of the value (`table`, `string`, …) for messages.
    var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array, .map: "table"
        }
    }
}
