import FlickrProtocol
import Foundation

/// What a job is asked to change, read from key/value pairs: the one reader of changes for the
/// command line (`--title T`, `--rename OLD NEW`, `--clear-geo`: keys `title`, `rename`,
/// `clear_geo`) and for Lua (`changes = { title = "T", rename = { "old", "new" } }`, a rule's
/// answer, `retag.plan`'s rules). Each value is checked as it is added, before any request, by
/// the engine's own parsers; licence and set names stay as given until Flickr's lists resolve
/// them (``EditSpec/license(_:among:)``, `EditPlanner.resolveSet`).
///
/// The source decides only how a value is named in messages and three things a person writing
/// Lua cannot be asked about: the command line warns when Flickr will store a tag otherwise than
/// typed, Lua refuses it; a rule's title and description are the text itself, not a template; a
/// rule's location outside Flickr's ranges is left for the planner to refuse for that photo.
public struct ChangeRequest: Sendable {
    /// Who wrote the request.
    public enum Source: Sendable, Equatable {
        /// `flickr edit plan` / `flickr retag plan` options: a key is named `--shift-taken`.
        case commandLine
        /// `flickr.edit.plan{ changes = … }` and `flickr.retag.plan`'s rules: named `shift_taken`.
        case lua
        /// What a `rule` function returns for one photo (Lua names, and `tags`, `date_taken`).
        case luaRule
    }

    /// One value as the source gave it.
    public enum Value: Sendable, Equatable {
        /// One word or text (`--title T`, `title = "T"`; a number as its text).
        case text(String)
        /// Several words (`privacy = { "friends", "family" }`, `add = { "a", "b" }`).
        case list([String])
        /// A rename's old and new tag.
        case pair(String, String)
        /// A flag (`--clear-geo`, `create_set = true`).
        case flag(Bool)
    }

    /// The keys a command line or a `changes` table takes.
    public static let keys: Set<String> = [
        "title", "description", "privacy", "license", "safety", "content_type", "shift_taken", "set_taken", "geo", "clear_geo",
        "add_to_set", "remove_from_set", "create_set", "rename", "add", "remove",
    ]
    /// The keys only a rule's answer takes: the photo's own tags in full, and `date_taken`
    /// (as `set_taken`).
    public static let ruleOnlyKeys: Set<String> = ["tags", "date_taken"]

    public let source: Source
    public var spec = EditSpec()
    /// `license` as given (a name needs Flickr's list to resolve).
    public var license: String?
    /// `add_to_set` / `remove_from_set` as given (titles need the account's sets).
    public var addSets: [String] = []
    public var removeSets: [String] = []
    public var createSet = false
    /// A rule's `tags`: the photo's own tags, in full.
    public var tags: [String]?
    /// What the command line warns about (a tag Flickr will store otherwise than typed).
    public private(set) var warnings: [String] = []
    /// The changes as the caller recorded them, kept with the job (`title = "…"`).
    public var given: [String] = []

    public init(source: Source) {
        self.source = source
    }

    /// Nothing asked for.
    public var isEmpty: Bool { spec.isEmpty && license == nil && addSets.isEmpty && removeSets.isEmpty && tags == nil }

    /// `key` as the source names it: `--shift-taken` on the command line, `shift_taken` in Lua.
    public func name(of key: String) -> String {
        source == .commandLine ? "--" + key.replacingOccurrences(of: "_", with: "-") : key
    }

    /// An option's words as a value: none a flag, two a pair (`--rename OLD NEW`), one a text.
    public static func value(of words: [String]) -> Value {
        switch words.count {
        case 0: return .flag(true)
        case 2: return .pair(words[0], words[1])
        default: return .text(words.first ?? "")
        }
    }

    /// Reads one change. Throws a ``ChangeRequestError`` naming the key for a key the source
    /// does not take, a value of the wrong form, or one the engine refuses.
    public mutating func add(_ key: String, _ value: Value) throws(ChangeRequestError) {
        guard Self.keys.contains(key) || (source == .luaRule && Self.ruleOnlyKeys.contains(key)) else {
            throw ChangeRequestError(key: key, message: "unknown change '\(key)'", kind: .request)
        }
        do {
            try read(key, value)
        } catch let error as EditSpecError {
            throw ChangeRequestError(key: key, message: error.message, kind: .value)
        } catch let error as RetagRuleError {
            throw ChangeRequestError(key: key, message: error.message, kind: .value)
        } catch let error as ChangeRequestError {
            throw error
        } catch {
            throw ChangeRequestError(key: key, message: "\(error)", kind: .value)
        }
    }

    /// Refuses what cannot be meant together, in the source's names. (The command line's
    /// remaining checks are the engine's ``EditSpec/check()``, once the whole request is read.)
    public func check() throws(ChangeRequestError) {
        if createSet && addSets.isEmpty {
            throw ChangeRequestError(key: "create_set", message: source == .commandLine
                                     ? "--create-set creates the --add-to-set set: give --add-to-set TITLE"
                                     : "create_set creates the add_to_set set: give add_to_set = \"TITLE\"", kind: .request)
        }
        guard source != .commandLine else { return }
        if spec.geo != nil && spec.clearGeo {
            throw ChangeRequestError(key: "geo", message: "geo and clear_geo exclude each other", kind: .request)
        }
        if spec.shiftTaken != nil && spec.setTaken != nil {
            throw ChangeRequestError(key: "shift_taken", message: "shift_taken and set_taken exclude each other", kind: .request)
        }
        if let both = Set(addSets).intersection(removeSets).first {
            throw ChangeRequestError(key: "add_to_set", message: "set \(JSONValue.quote(both)) is both in add_to_set and in remove_from_set",
                                     kind: .request)
        }
    }

    // MARK: - Reading

    /// Reads `value` for `key` into the request; the engine's errors go through as they are.
    private mutating func read(_ key: String, _ value: Value) throws {
        let option = name(of: key)
        switch key {
        case "title", "description":
            let text = try self.text(key, value)
            // A rule's text is the title itself; elsewhere it is a template of the photo's fields.
            let template = source == .luaRule ? text.replacingOccurrences(of: "{", with: "{{").replacingOccurrences(of: "}", with: "}}") : text
            let parsed = try EditTemplate(template, option: option)
            if key == "title" { spec.title = parsed } else { spec.description = parsed }
        case "privacy":
            spec.privacy = try Privacy.parse(try words(key, value).joined(separator: ","))
        case "license":
            license = try text(key, value)
        case "safety":
            spec.safety = try EditSpec.safety(try text(key, value))
        case "content_type":
            spec.contentType = try EditSpec.contentType(try text(key, value))
        case "shift_taken":
            spec.shiftTaken = try TakenDate.shift(try text(key, value))
        case "set_taken", "date_taken":
            if source != .commandLine && spec.setTaken != nil {
                throw ChangeRequestError(key: key, message: "set_taken and date_taken say the same thing: give one", kind: .request)
            }
            (spec.setTaken, spec.setTakenGranularity) = try TakenDate.parse(try text(key, value))
        case "geo":
            let text = try text(key, value)
            spec.geo = try (source == .luaRule ? Self.uncheckedGeo(text) : nil) ?? GeoPoint.parse(text)
        case "clear_geo":
            if try flag(key, value) { spec.clearGeo = true }
        case "add_to_set":
            addSets += try words(key, value)
        case "remove_from_set":
            removeSets += try words(key, value)
        case "create_set":
            if try flag(key, value) { createSet = true }
        case "rename":
            guard case .pair(let from, let to) = value else { throw shape(key, "an old and a new tag") }
            // A `*` pattern's replacement is stored as the match makes it.
            spec.tagRules.append(try RetagRule.renaming(from, to: to.contains("*") ? to : try stored(to, key: key)))
        case "add":
            for tag in try words(key, value) { spec.tagRules.append(.add(try stored(tag, key: key))) }
        case "remove":
            for tag in try words(key, value) {
                guard !TagString.clean(tag).isEmpty else { throw ChangeRequestError(key: key, message: "\(option): '\(tag)' is not a tag", kind: .value) }
                spec.tagRules.append(.remove(tag))
            }
        case "tags":
            var own: [String] = []
            for tag in try words(key, value, allowEmpty: true) { own.append(try stored(tag, key: key)) }
            tags = own
        default:
            throw ChangeRequestError(key: key, message: "unknown change '\(key)'", kind: .request)
        }
    }

    /// A tag as Flickr will store it: a warning on the command line, refused in Lua (where
    /// nobody reads a warning before the job runs).
    private mutating func stored(_ raw: String, key: String) throws -> String {
        let form = try RetagRule.storedTag(raw, option: name(of: key))
        if let warning = form.warning {
            guard source == .commandLine else { throw ChangeRequestError(key: key, message: warning, kind: .value) }
            warnings.append(warning)
        }
        return form.tag
    }

    private func text(_ key: String, _ value: Value) throws(ChangeRequestError) -> String {
        guard case .text(let text) = value else { throw shape(key, "one value") }
        return text
    }

    private func words(_ key: String, _ value: Value, allowEmpty: Bool = false) throws(ChangeRequestError) -> [String] {
        switch value {
        case .text(let word): return [word]
        case .list(let words) where allowEmpty || !words.isEmpty: return words
        default: throw shape(key, "a word or a list of words")
        }
    }

    private func flag(_ key: String, _ value: Value) throws(ChangeRequestError) -> Bool {
        guard case .flag(let on) = value else { throw shape(key, "true or false") }
        return on
    }

    private func shape(_ key: String, _ expected: String) -> ChangeRequestError {
        ChangeRequestError(key: key, message: "\(name(of: key)) takes \(expected)", kind: .value)
    }

    /// `LAT,LON[,ACCURACY]` read as numbers, without Flickr's ranges (a rule's value: the
    /// planner refuses that photo when out of range); nil when it is not of that form.
    public static func uncheckedGeo(_ text: String) -> GeoPoint? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 || parts.count == 3, let lat = Double(parts[0]), let lon = Double(parts[1]), lat.isFinite, lon.isFinite
        else { return nil }
        guard parts.count == 3 else { return GeoPoint(latitude: lat, longitude: lon) }
        return Int(parts[2]).map { GeoPoint(latitude: lat, longitude: lon, accuracy: $0) }
    }
}

/// A change the request cannot take, naming its key.
public struct ChangeRequestError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The value of one key is refused; ``message`` is the engine's, naming the key as the
        /// source spells it (`--geo: …`).
        case value
        /// The request as a whole (keys that exclude each other, a tag Lua cannot store as
        /// written): ``message`` is complete.
        case request
    }

    public let key: String
    public let message: String
    public let kind: Kind

    public init(key: String, message: String, kind: Kind) {
        (self.key, self.message, self.kind) = (key, message, kind)
    }

    public var description: String { message }
}
