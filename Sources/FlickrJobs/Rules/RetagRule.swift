import FlickrProtocol

/// One rewrite of a photo's own tags. Rules apply in the order given; each sees the result of
/// the previous one.
public enum RetagRule: Sendable, Hashable, Codable {
    /// Every tag whose clean form equals `from`'s (Flickr's clean form: case-folded, letters and
    /// digits only, so `Reykjavík` matches `reykjavík`) becomes `to`, written exactly as given.
    /// Several renames to one `to` merge into one tag.
    case rename(from: String, to: String)
    /// Adds `tag` unless a tag with its clean form is there.
    case add(String)
    /// Removes every tag with `tag`'s clean form.
    case remove(String)
    /// Machine tags matching `ns:pred=value` (any part `*`) become `replacement`, whose `*`
    /// parts take the matched tag's parts: `--rename 'camera:make=*' 'cam:make=*'`.
    case machineRename(pattern: String, replacement: String)

    /// `rename`, or `machineRename` when `from` is a machine-tag pattern with a wildcard.
    public static func renaming(_ from: String, to: String) throws(RetagRuleError) -> RetagRule {
        guard !TagString.clean(from).isEmpty || from.contains("*") else { throw RetagRuleError("--rename: '\(from)' is not a tag") }
        guard !TagString.clean(to).isEmpty || to.contains("*") else { throw RetagRuleError("--rename: '\(to)' is not a tag") }
        if from.contains("*") || to.contains("*") {
            guard let p = MachinePattern(from), MachinePattern(to) != nil else {
                throw RetagRuleError("--rename: a * wildcard works only in machine tags ns:pred=value ('\(from)' → '\(to)')")
            }
            _ = p
            return .machineRename(pattern: from, replacement: to)
        }
        return .rename(from: from, to: to)
    }

    /// `raw` as Flickr will store it when a rule writes it (``TagString/stored(_:)``), with a
    /// warning when that differs from what was typed (a double quote dropped); an error when
    /// Flickr would store nothing (no letter or digit). `option` names the rule for messages.
    public static func storedTag(_ raw: String, option: String) throws(RetagRuleError) -> (tag: String, warning: String?) {
        guard let stored = TagString.stored(raw) else {
            throw RetagRuleError("\(option): '\(raw)' has no letter or digit, so Flickr would not store it as a tag")
        }
        guard stored != raw else { return (raw, nil) }
        let why = raw.contains("\"") ? "a Flickr tag cannot hold a double quote" : "Flickr trims the spaces around a tag"
        return (stored, "\(option): '\(raw)' will be stored as '\(stored)' (\(why))")
    }

    /// Applies the rule to the raw forms of a photo's own tags.
    public func apply(to tags: [String]) -> [String] {
        switch self {
        case .rename(let from, let to):
            let old = TagString.clean(from)
            return tags.map { TagString.clean($0) == old ? to : $0 }
        case .add(let tag):
            let clean = TagString.clean(tag)
            return tags.contains { TagString.clean($0) == clean } ? tags : tags + [tag]
        case .remove(let tag):
            let clean = TagString.clean(tag)
            return tags.filter { TagString.clean($0) != clean }
        case .machineRename(let pattern, let replacement):
            guard let p = MachinePattern(pattern), let r = MachinePattern(replacement) else { return tags }
            return tags.map { raw in
                guard let parts = TagString.machineTagParts(raw), p.matches(parts) else { return raw }
                return r.fill(with: parts)
            }
        }
    }

    /// Whether the rule can change a photo whose tags have these clean forms (a cheap test on
    /// listing data, before the photo's raw forms are read).
    public func mayAffect(cleanTags: Set<String>) -> Bool {
        switch self {
        case .rename(let from, _): return cleanTags.contains(TagString.clean(from))
        case .remove(let tag): return cleanTags.contains(TagString.clean(tag))
        case .add(let tag): return !cleanTags.contains(TagString.clean(tag))
        case .machineRename(let pattern, _):
            guard let p = MachinePattern(pattern) else { return false }
            return cleanTags.contains { TagString.machineTagParts($0).map(p.matches) ?? false }
        }
    }

    /// The rule as a person wrote it.
    public var description: String {
        switch self {
        case .rename(let a, let b), .machineRename(let a, let b): return "--rename \(a) \(b)"
        case .add(let t): return "--add \(t)"
        case .remove(let t): return "--remove \(t)"
        }
    }
}

extension RetagRule {
    /// Applies `rules` in order to a photo's own raw tags, then keeps one tag per clean form
    /// (the first; merges of several renames into one tag, and of a rename into a tag the photo
    /// already has).
    public static func apply(_ rules: [RetagRule], to tags: [String]) -> [String] {
        var out = tags
        for rule in rules { out = rule.apply(to: out) }
        var seen = Set<String>()
        return out.filter { seen.insert(TagString.clean($0)).inserted }
    }
}

/// A machine tag with `*` parts: `ns:pred=value`.
struct MachinePattern {
    var namespace: String
    var predicate: String
    var value: String

    init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let rest = text[text.index(after: colon)...]
        guard let eq = rest.firstIndex(of: "=") else { return nil }
        namespace = String(text[..<colon])
        predicate = String(rest[..<eq])
        value = String(rest[rest.index(after: eq)...])
        guard !namespace.isEmpty, !predicate.isEmpty, !value.isEmpty else { return nil }
    }

    func matches(_ parts: (namespace: String, predicate: String, value: String)) -> Bool {
        (namespace == "*" || namespace.lowercased() == parts.namespace.lowercased())
            && (predicate == "*" || predicate.lowercased() == parts.predicate.lowercased())
            && (value == "*" || TagString.clean("x:x=" + value) == TagString.clean("x:x=" + parts.value))
    }

    func fill(with parts: (namespace: String, predicate: String, value: String)) -> String {
        (namespace == "*" ? parts.namespace : namespace) + ":" + (predicate == "*" ? parts.predicate : predicate) + "="
            + (value == "*" ? parts.value : value)
    }
}

/// A rule that cannot be understood.
public struct RetagRuleError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
