import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// Reading `flickr.edit.plan{…}`'s request and what a rule returns: every key checked (an unknown one
/// is a usage error with the nearest names) before any request.
extension FlickrModule {
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
}
