import FlickrProtocol
import Foundation

/// The changes an edit job asks for (`flickr edit plan`'s options, `flickr.edit.plan`'s
/// `changes`), read and checked before any request: each option's value is parsed here, and a
/// combination that cannot be meant (`--geo` with `--clear-geo`) is refused.
public struct EditSpec: Sendable, Hashable, Codable {
    public var title: EditTemplate?
    public var description: EditTemplate?
    public var privacy: Privacy?
    /// A licence id (``license(_:among:)`` resolves names).
    public var license: Int?
    /// 1 safe, 2 moderate, 3 restricted.
    public var safety: Int?
    /// 1 photo, 2 screenshot, 3 other.
    public var contentType: Int?
    /// Seconds added to the date taken (its granularity kept).
    public var shiftTaken: Int?
    /// A date taken and its granularity.
    public var setTaken: String?
    public var setTakenGranularity: Int?
    public var geo: GeoPoint?
    public var clearGeo = false
    /// Set ids to join and to leave.
    public var addToSets: [String] = []
    public var removeFromSets: [String] = []
    /// Retag's rules, applied to the owner's raw tags.
    public var tagRules: [RetagRule] = []

    public init() {}

    /// Whether it asks for anything at all.
    public var isEmpty: Bool { self == EditSpec() }

    /// `safe`, `moderate` or `restricted` (or 1–3).
    public static func safety(_ text: String) throws(EditSpecError) -> Int {
        if let i = ["safe", "moderate", "restricted"].firstIndex(of: text.lowercased()) { return i + 1 }
        if let n = Int(text), (1...3).contains(n) { return n }
        throw EditSpecError("--safety: '\(text)' is not one of safe, moderate, restricted")
    }

    /// `photo`, `screenshot` or `other` (or 1–3).
    public static func contentType(_ text: String) throws(EditSpecError) -> Int {
        if let i = ["photo", "screenshot", "other"].firstIndex(of: text.lowercased()) { return i + 1 }
        if let n = Int(text), (1...3).contains(n) { return n }
        throw EditSpecError("--content-type: '\(text)' is not one of photo, screenshot, other")
    }

    /// A licence by id or by name as `photos.licenses.getInfo` gives them — Flickr's names of
    /// today ("CC BY-SA 4.0") or of its older list ("Attribution-ShareAlike License") — matched
    /// loosely: case, spaces, punctuation and the word "License" aside, Creative Commons' short
    /// forms and long words taken for each other (`by-sa` = Attribution-ShareAlike, `cc0` =
    /// Public Domain Dedication), the newest version when several versions match, and a part of
    /// a name that only one licence has is enough. Refused with the list when none or several
    /// match.
    public static func license(_ given: String, among licenses: [(id: Int, name: String)]) throws(EditSpecError) -> Int {
        let list = licenses.map { "\($0.id) \($0.name)" }.joined(separator: "; ")
        if let id = Int(given) {
            guard licenses.contains(where: { $0.id == id }) else { throw EditSpecError("--license: there is no licence \(id) (\(list))") }
            return id
        }
        func key(_ s: String) -> String {
            String(s.lowercased().replacingOccurrences(of: "license", with: "").replacingOccurrences(of: "licence", with: "")
                .filter { $0.isLetter || $0.isNumber })
        }
        let short = ["by": "attribution", "nc": "noncommercial", "nd": "noderivs", "sa": "sharealike", "cc0": "publicdomaindedicationcc0",
                     "pdm": "publicdomainmark"]
        let words = given.lowercased().split(whereSeparator: { $0 == "-" || $0 == " " || $0 == "_" }).map(String.init)
            .filter { $0 != "cc" }
        let long = Dictionary(short.filter { ["by", "nc", "nd", "sa"].contains($0.key) }.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        // Three spellings of what was asked: the short forms expanded (Flickr's older names,
        // "Attribution-ShareAlike License"), as written (its newer ones, "CC BY-SA 4.0"), and the
        // long words shortened (an older name asked of the newer list).
        let wanted = [key(words.map { short[$0] ?? $0 }.joined()), key(words.joined()), key(words.map { long[$0] ?? $0 }.joined())]
            .filter { !$0.isEmpty }
        guard !wanted.isEmpty else { throw EditSpecError("--license: give a licence id or name (\(list))") }
        func plain(_ name: String) -> String { let k = key(name); return k.hasPrefix("cc") ? String(k.dropFirst(2)) : k }
        // The same licence in several versions (CC BY-SA 2.0 and 4.0): the newest is meant.
        func version(_ name: String) -> (base: String, number: Double) {
            let words = name.split(separator: " ")
            guard let last = words.last, let number = Double(last) else { return (key(name), 0) }
            return (key(words.dropLast().joined(separator: " ")), number)
        }
        func newest(_ hits: [(id: Int, name: String)]) -> Int? {
            guard !hits.isEmpty, Set(hits.map { version($0.name).base }).count == 1 else { return nil }
            return hits.max { version($0.name).number < version($1.name).number }?.id
        }
        // Named whole: "CC BY-NC 4.0", "Attribution-NonCommercial License", or "by-nc" for CC BY-NC
        // in any version (not for BY-NC-SA, which only contains it).
        let exact = licenses.filter { l in
            wanted.contains { $0 == key(l.name) || $0 == plain(l.name) || $0 == plain(String(version(l.name).base)) }
        }
        if let id = exact.count == 1 ? exact[0].id : newest(exact) { return id }
        let hits = licenses.filter { l in wanted.contains { key(l.name).contains($0) } }
        if hits.count == 1 { return hits[0].id }
        if let id = newest(hits) { return id }
        throw EditSpecError(hits.isEmpty ? "--license: no licence is called '\(given)' (\(list))"
                            : "--license: '\(given)' could be \(hits.map { "\($0.id) \($0.name)" }.joined(separator: " or ")); give its id")
    }

    /// Refuses what cannot be meant together.
    public func check() throws(EditSpecError) {
        if geo != nil && clearGeo { throw EditSpecError("--geo and --clear-geo exclude each other") }
        if shiftTaken != nil && setTaken != nil { throw EditSpecError("--shift-taken and --set-taken exclude each other") }
        if let both = Set(addToSets).intersection(removeFromSets).first {
            throw EditSpecError("set \(both) is both joined (--add-to-set) and left (--remove-from-set)")
        }
        if isEmpty { throw EditSpecError("no change asked for: give at least one of --title, --description, --privacy, --license, "
                                         + "--safety, --content-type, --shift-taken, --set-taken, --geo, --clear-geo, --add-to-set, "
                                         + "--remove-from-set, --rename, --add, --remove, --lua") }
    }

    /// The groups a photo's plan changes, or why Flickr would refuse the change for this photo
    /// (a date taken shifted before 1900 or into the future, more than 75 tags: ``EditValue/refusal(on:licenses:now:)``).
    /// `fields` are the photo's fields for the templates (`flickr find`'s names). Groups already
    /// holding their target are left out.
    public func targets(for pre: PhotoMetadata, fields: [String: String], now: Date = Date()) -> Result<[EditValue], EditRefusal> {
        var out: [EditValue] = []
        // The date the photo will have, which a template's {date_taken} reads.
        var dates: EditValue?
        if let shiftTaken {
            guard let shifted = TakenDate.shifted(pre.dateTaken, by: shiftTaken, granularity: pre.takenGranularity) else {
                return .failure(EditRefusal(field: .dates, reason: "its date taken '\(pre.dateTaken)' cannot be read"))
            }
            dates = .dates(taken: shifted, granularity: pre.takenGranularity)
        } else if let setTaken {
            dates = .dates(taken: setTaken, granularity: setTakenGranularity ?? 0)
        }
        if title != nil || description != nil {
            var fields = fields
            if case .dates(let taken, _) = dates { fields["date_taken"] = taken }
            out.append(.meta(title: title?.render(fields) ?? pre.title, description: description?.render(fields) ?? pre.description))
        }
        if let dates { out.append(dates) }
        if let privacy { out.append(.perms(privacy)) }
        if let license { out.append(.license(license)) }
        if let safety { out.append(.safety(safety)) }
        if let contentType { out.append(.contentType(contentType)) }
        if let geo { out.append(.geo(geo)) } else if clearGeo { out.append(.geo(nil)) }
        if !addToSets.isEmpty || !removeFromSets.isEmpty {
            guard let sets = pre.sets else { return .failure(EditRefusal(field: .sets, reason: "its sets were not read")) }
            out.append(.sets(Set(sets).union(addToSets).subtracting(removeFromSets)))
        }
        if !tagRules.isEmpty { out.append(.tags(RetagRule.apply(tagRules, to: pre.ownerTags))) }
        let changed = out.filter { !pre.value($0.field).matches($0) }
        if let refusal = changed.lazy.compactMap({ $0.refusal(on: pre, now: now) }).first { return .failure(refusal) }
        return .success(changed)
    }
}

extension EditValue {
    /// Why Flickr would refuse to write this value on the photo `pre`, or nil: a date taken
    /// before 1900 or in the future or a granularity Flickr does not have, a location out of
    /// range, a safety level or content type other than 1–3 (or none), a licence not among
    /// `licenses` (when they are known), more than 75 tags. The planner asks it of every value
    /// it plans, the options' and a rule's alike.
    public func refusal(on pre: PhotoMetadata, licenses: Set<Int>? = nil, now: Date = Date()) -> EditRefusal? {
        func no(_ why: String) -> EditRefusal { EditRefusal(field: field, reason: why) }
        func number(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }
        switch self {
        case .meta, .perms, .sets:
            return nil
        case .dates(let taken, let granularity):
            if let why = TakenDate.refusal(taken, now: now) { return no(why) }
            if ![0, 4, 6, 8].contains(granularity) { return no("granularity \(granularity) is not one of 0, 4, 6, 8") }
            return nil
        case .license(let id):
            if let licenses, !licenses.contains(id) {
                return no("there is no licence \(id) (Flickr's are \(licenses.sorted().map(String.init).joined(separator: ", ")))")
            }
            return nil
        case .safety(let level):
            return (1...3).contains(level) ? nil : no("safety level \(level) is not 1 (safe), 2 (moderate) or 3 (restricted)")
        case .contentType(let type):
            guard let type else { return no("no content type to write") }
            return (1...3).contains(type) ? nil : no("content type \(type) is not 1 (photo), 2 (screenshot) or 3 (other)")
        case .geo(let point):
            guard let g = point else { return nil }
            if !(-90...90).contains(g.latitude) { return no("latitude \(number(g.latitude)) is outside -90..90") }
            if !(-180...180).contains(g.longitude) { return no("longitude \(number(g.longitude)) is outside -180..180") }
            if !(1...16).contains(g.accuracy) { return no("accuracy \(g.accuracy) is not from 1 (world) to 16 (street)") }
            return nil
        case .tags(let tags):
            let others = pre.tags.count - pre.ownerTags.count
            return tags.count + others > 75 ? no("would carry \(tags.count + others) tags; Flickr allows 75") : nil
        }
    }
}

/// Why one photo's change is refused at plan time (it is recorded, never sent).
public struct EditRefusal: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var field: EditField
    public var reason: String
    public init(field: EditField, reason: String) { (self.field, self.reason) = (field, reason) }
    public var description: String { "\(field.rawValue): \(reason)" }

    /// How the journal records it (a refused photo's `detail`).
    var journalDetail: String { Self.journalPrefix + description }

    /// A refusal read back from its journal detail; nil for any other detail.
    public init?(journalDetail detail: String) {
        guard detail.hasPrefix(Self.journalPrefix) else { return nil }
        let text = detail.dropFirst(Self.journalPrefix.count)
        guard let colon = text.range(of: ": "), let field = EditField(rawValue: String(text[..<colon.lowerBound])) else { return nil }
        self.init(field: field, reason: String(text[colon.upperBound...]))
    }

    private static let journalPrefix = "refused at plan time, never sent: "
}
