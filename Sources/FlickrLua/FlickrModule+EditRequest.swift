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
    /// What a `changes` table (or a rule's answer) asks for: FlickrJobs' one reader of changes,
    /// which the command line uses too.
    typealias EditRequest = ChangeRequest

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

    /// Reads a `changes` table (or, with `rule`, a rule's answer) at `o`: each value's Lua form
    /// here, what it means in ``ChangeRequest`` (as `flickr edit plan`'s options). An engine
    /// message names the CLI option (`--geo: …`); here it names the key.
    static func readChanges(_ o: LuaOptions, rule: Bool) throws -> EditRequest {
        var r = ChangeRequest(source: rule ? .luaRule : .lua)
        func add(_ key: String, _ value: ChangeRequest.Value) throws {
            do { try r.add(key, value) } catch { throw FlickrError.usage(message(error), method: o.function) }
        }
        func note(_ key: String, _ value: String) { r.given.append("\(key) = \(JSONValue.quote(value))") }
        for key in ["title", "description"] {
            guard let text = try o.string(key) else { continue }
            note(key, text)
            try add(key, .text(text))
        }
        if let p = try words(o, "privacy", expected: "\"public\", \"private\", \"friends\", \"family\" or {\"friends\", \"family\"}") {
            note("privacy", p.joined(separator: ","))
            try add("privacy", .list(p))
        }
        // A number is taken as its text (license = 4, safety = 2).
        for (key, expected) in [("license", "a licence id or name"), ("safety", "\"safe\", \"moderate\" or \"restricted\""),
                                ("content_type", "\"photo\", \"screenshot\" or \"other\""),
                                ("shift_taken", "a duration such as \"+3h\" or \"-1d2h\"")] {
            guard let w = try o.string(key, expected: expected) else { continue }
            note(key, w)
            try add(key, .text(w))
        }
        for key in rule ? ["set_taken", "date_taken"] : ["set_taken"] {
            guard let date = try o.string(key, expected: "a date such as \"2019-07-02 14:03:00\", \"2019-07\" or \"circa 2019\"") else { continue }
            note(key, date)
            try add(key, .text(date))
        }
        switch try raw(o, "geo") {
        case .nil: break
        case .string(let s):
            note("geo", s.description)
            try add("geo", .text(s.description))
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
            try add("geo", .text(text))
        }
        for key in ["clear_geo", "create_set"] where try o.boolean(key) == true {
            r.given.append("\(key) = true")
            try add(key, .flag(true))
        }
        for key in ["add_to_set", "remove_from_set"] {
            guard let sets = try words(o, key, expected: "a set's title or id, or a list of them") else { continue }
            for s in sets { note(key, s) }
            try add(key, .list(sets))
        }
        // Tag rules, retag's: renames, then removals, then additions.
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
                try add("rename", .pair(from, to))
            }
        }
        for key in ["remove", "add"] {
            guard let tags = try words(o, key, expected: "a tag or a list of tags") else { continue }
            for t in tags { note(key, t) }
            try add(key, .list(tags))
        }
        if rule {
            switch try raw(o, "tags") {
            case .nil: break
            case .array(let a):
                let list = a.compactMap(word)
                guard list.count == a.count else { throw o.bad("tags", expected: "a list of tags", got: "a list of other things") }
                try add("tags", .list(list))
            case .map(let m) where m.isEmpty: try add("tags", .list([]))
            case let v: throw o.bad("tags", expected: "a list of tags", got: v.typeName)
            }
        }
        do { try r.check() } catch { throw FlickrError.usage(message(error), method: o.function) }
        return r
    }

    /// A ``ChangeRequestError`` in a Lua caller's words: a refused value names its key
    /// (`bad change 'geo': …`, without the CLI option an engine message starts with).
    static func message(_ error: ChangeRequestError) -> String {
        guard error.kind == .value else { return error.message }
        var message = error.message
        if message.hasPrefix("--"), let colon = message.firstIndex(of: ":") {
            message = String(message[message.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return "bad change '\(error.key)': \(message)"
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
