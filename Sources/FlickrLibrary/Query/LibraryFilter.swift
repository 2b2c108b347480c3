import FlickrProtocol
import Foundation
import GRDB

/// A query of the library, from `flickr find KEY=VALUE…` or `flickr.library.photos{…}`. It
/// becomes one SQL statement over the mirror; it never makes a call.
public struct LibraryFilter: Sendable, Hashable {
    /// A value as given: text (the command line), a flag, a number, a list, or a range.
    public enum Value: Sendable, Hashable {
        case text(String)
        case flag(Bool)
        case number(Double)
        case list([String])
        case range(from: String?, to: String?)
    }

    /// The keys a filter takes.
    public static let keys = ["tags", "any_tags", "untagged", "machine_tags", "text", "taken", "uploaded", "updated", "set",
                              "privacy", "license", "media", "has_geo", "order", "limit"]

    /// The SQL `WHERE` clause (after `p.deleted IS NULL`) and its arguments.
    var conditions: [String] = []
    var arguments: [DatabaseValue] = []
    var orderBy = "p.date_upload DESC, " + Self.idOrder("DESC")

    /// Ties in id order as numbers: ids are digit strings without leading zeros, so a shorter
    /// one is smaller (`999` before `8000000000`).
    static func idOrder(_ direction: String) -> String { "length(p.id) \(direction), p.id \(direction)" }
    public var limit: Int?

    public static func == (a: LibraryFilter, b: LibraryFilter) -> Bool { a.sql == b.sql && a.limit == b.limit }
    public func hash(into h: inout Hasher) { h.combine(sql) }

    /// Reads the filter; an unknown key or a bad value is a ``LibraryError`` a person can act on.
    public init(_ given: [String: Value]) throws(LibraryError) {
        for key in given.keys.sorted() {
            let value = given[key]!
            switch key {
            // Tag, machine tag and set conditions are `p.id IN (…)`, not a correlated EXISTS:
            // SQLite then reads the matching rows of photo_tag (or set_photo) once instead of
            // probing them for every photo of the library (at 100,000 photos, 3-5× faster).
            case "tags":
                for tag in try Self.tags(value, key) {
                    conditions.append("p.id IN (SELECT t.photo FROM photo_tag t WHERE t.clean = ?)")
                    bind(tag)
                }
            case "any_tags":
                let tags = try Self.tags(value, key)
                guard !tags.isEmpty else { throw LibraryError("any_tags: give at least one tag") }
                conditions.append("p.id IN (SELECT t.photo FROM photo_tag t WHERE t.clean IN (\(Self.marks(tags.count))))")
                for tag in tags { bind(tag) }
            case "untagged":
                // The photo's own tag columns hold exactly what its photo_tag rows do (both are
                // written from them): no subquery per photo.
                let yes = try Self.flag(value, key)
                conditions.append(yes ? "(p.tags = '' AND p.machine_tags = '')" : "(p.tags <> '' OR p.machine_tags <> '')")
            case "machine_tags":
                for pattern in try Self.strings(value, key) {
                    // ns:pred=value, any part * (or left out: "ns:" or "ns:pred=") matches all.
                    guard let colon = pattern.firstIndex(of: ":"), colon != pattern.startIndex else {
                        throw LibraryError("machine_tags: '\(pattern)' is not a machine tag pattern (ns:, ns:pred=, ns:pred=value; * for any part)")
                    }
                    var like = pattern.lowercased()
                    if let eq = like.firstIndex(of: "=") {
                        let v = String(like[like.index(after: eq)...])
                        like = String(like[...eq]) + (v == "*" || v.isEmpty ? "*" : TagString.clean("x:x=" + v).dropFirst(4))
                    } else if like.hasSuffix(":") {
                        like += "*"
                    }
                    conditions.append("p.id IN (SELECT t.photo FROM photo_tag t WHERE t.machine = 1 AND t.clean LIKE ? ESCAPE '\\')")
                    bind(Self.escapeLike(like).replacingOccurrences(of: "*", with: "%"))
                }
            case "text":
                let text = try Self.string(value, key)
                let folded = LibraryStore.fold(text)
                let clean = LibraryStore.fold(TagString.clean(text))
                // Title, description and tags: case-insensitive for all of Unicode, as the folded
                // columns (schema v2, v3) hold them folded the same way; instr, not LIKE, whose case
                // blindness is ASCII's only (and which would read % and _ in the text).
                // A clean form has no space, so it is inside one of the photo's clean tags exactly
                // when it is inside their space-joined folded column (`strasse` in `straße`'s).
                conditions.append("(instr(p.title_folded, ?) > 0 OR instr(p.description_folded, ?) > 0"
                                  + (clean.isEmpty ? ")" : " OR instr(p.tags_folded, ?) > 0)"))
                bind(folded, folded)
                if !clean.isEmpty { bind(clean) }
            case "taken":
                let (from, to) = try Self.dateRange(value, key)
                conditions.append("p.date_taken >= ? AND p.date_taken < ?")
                bind(DateBound.text(from), DateBound.text(to))
            case "uploaded", "updated":
                let (from, to) = try Self.dateRange(value, key)
                let column = key == "uploaded" ? "p.date_upload" : "p.last_update"
                conditions.append("\(column) >= ? AND \(column) < ?")
                bind(DateBound.unix(from), DateBound.unix(to))
            case "set":
                let set = try Self.string(value, key)
                conditions.append("p.id IN (SELECT sp.photo FROM set_photo sp JOIN photoset s ON s.id = sp.photoset WHERE s.id = ? OR s.title = ?)")
                bind(set, set)
            case "privacy":
                switch try Self.string(value, key) {
                case "public": conditions.append("p.ispublic = 1")
                case "private": conditions.append("p.ispublic = 0 AND p.isfriend = 0 AND p.isfamily = 0")
                case "friends": conditions.append("p.ispublic = 0 AND p.isfriend = 1")
                case "family": conditions.append("p.ispublic = 0 AND p.isfamily = 1")
                case let other: throw LibraryError("privacy: '\(other)' is not one of public, private, friends, family")
                }
            case "license":
                let ids = try Self.strings(value, key)
                if let bad = ids.first(where: { !$0.allSatisfy(\.isASCII) || Int($0) == nil || $0.hasPrefix("-") }) {
                    throw LibraryError("license: '\(bad)' is not a licence id (whole numbers, as flickr.photos.licenses.getInfo gives them: license=4,5)")
                }
                conditions.append("p.license IN (\(Self.marks(ids.count)))")
                for id in ids { bind(id) }
            case "media":
                let media = try Self.string(value, key)
                guard media == "photo" || media == "video" else { throw LibraryError("media: '\(media)' is not photo or video") }
                conditions.append("p.media = ?")
                bind(media)
            case "has_geo":
                conditions.append(try Self.flag(value, key) ? "p.latitude IS NOT NULL" : "p.latitude IS NULL")
            case "order":
                let word = try Self.string(value, key)
                let descending = word.hasPrefix("-")
                let name = descending ? String(word.dropFirst()) : word
                let columns = ["taken": "p.date_taken", "uploaded": "p.date_upload", "updated": "p.last_update", "views": "p.views"]
                guard let column = columns[name] else {
                    throw LibraryError("order: '\(word)' is not one of taken, uploaded, updated, views (with - for descending)")
                }
                let direction = descending ? "DESC" : "ASC"
                orderBy = "\(column) \(direction), \(Self.idOrder(direction))"
            case "limit":
                let n: Int?
                switch value {
                case .number(let d): n = d == d.rounded() ? Int(d) : nil
                case .text(let t): n = Int(t)
                default: n = nil
                }
                guard let n, n >= 0 else { throw LibraryError("limit: expected a whole number ≥ 0") }
                limit = n
            default:
                throw LibraryError("'\(key)' is not a filter key" + (Self.suggestion(for: key).map { "; did you mean '\($0)'?" } ?? "")
                                   + " (keys: \(Self.keys.joined(separator: ", ")))")
            }
        }
    }

    mutating func bind(_ values: any DatabaseValueConvertible...) {
        arguments += values.map(\.databaseValue)
    }

    /// The statement selecting the matching photos' ids, in order.
    var sql: String {
        "SELECT p.id FROM photo p WHERE p.deleted IS NULL" + conditions.map { " AND " + $0 }.joined()
            + " ORDER BY " + orderBy + (limit.map { " LIMIT \($0)" } ?? "")
    }

    /// The statement counting them.
    var countSQL: String {
        "SELECT COUNT(*) FROM (SELECT p.id FROM photo p WHERE p.deleted IS NULL" + conditions.map { " AND " + $0 }.joined()
            + (limit.map { " LIMIT \($0)" } ?? "") + ")"
    }

    // MARK: Values

    static func marks(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ", ") }

    static func escapeLike(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    static func string(_ value: Value, _ key: String) throws(LibraryError) -> String {
        switch value {
        case .text(let s):
            // `tags=` is a slip, not "every photo".
            guard !s.trimmingCharacters(in: .whitespaces).isEmpty else { throw LibraryError("\(key): give a value (\(key)=…)") }
            return s
        case .number(let d): return d == d.rounded() ? String(Int(d)) : String(d)
        default: throw LibraryError("\(key): expected a string")
        }
    }

    /// A list, or a comma-separated string.
    static func strings(_ value: Value, _ key: String) throws(LibraryError) -> [String] {
        let items: [String]
        switch value {
        case .list(let l): items = l.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .text(let s): items = s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .number: items = [try string(value, key)]
        default: throw LibraryError("\(key): expected a list or a comma-separated string")
        }
        guard !items.isEmpty else { throw LibraryError("\(key): give at least one value (\(key)=a,b)") }
        return items
    }

    static func tags(_ value: Value, _ key: String) throws(LibraryError) -> [String] {
        try strings(value, key).map { tag throws(LibraryError) -> String in
            let clean = TagString.clean(tag)
            guard !clean.isEmpty else { throw LibraryError("\(key): '\(tag)' is not a tag") }
            return clean
        }
    }

    static func flag(_ value: Value, _ key: String) throws(LibraryError) -> Bool {
        switch value {
        case .flag(let b): return b
        case .text(let t) where ["true", "1", "yes", ""].contains(t): return true
        case .text(let t) where ["false", "0", "no"].contains(t): return false
        default: throw LibraryError("\(key): expected true or false")
        }
    }

    /// `"2019"`, `"2019-03"`, `"2019-03-01"`, `"A..B"` (either side may be left out) or
    /// `{from, to}` → [from, to) as calendar bounds.
    static func dateRange(_ value: Value, _ key: String) throws(LibraryError) -> (DateBound, DateBound) {
        let from: String?, to: String?
        switch value {
        case .range(let a, let b): (from, to) = (a, b)
        case .list(let l) where l.count == 2: (from, to) = (l[0], l[1])
        case .number, .text:
            let text = try string(value, key)
            if let dots = text.range(of: "..") {
                (from, to) = (String(text[..<dots.lowerBound]), String(text[dots.upperBound...]))
            } else {
                (from, to) = (text, text)
            }
        default: throw LibraryError("\(key): expected \"2019\", \"2019-03\", \"2019-03-01..2019-06-30\" or {from, to}")
        }
        func bound(_ s: String?, end: Bool) throws(LibraryError) -> DateBound {
            guard let s, !s.isEmpty else { return end ? .max : .min }
            guard let d = DateBound(s, end: end) else {
                throw LibraryError("\(key): '\(s)' is not a date (YYYY, YYYY-MM or YYYY-MM-DD, a day that exists: 2019, 2019-03, 2019-03-01)")
            }
            return d
        }
        return (try bound(from, end: false), try bound(to, end: true))
    }

    /// The closest key to a misspelt one (edit distance ≤ 2), for the error.
    static func suggestion(for key: String) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var row = Array(0...b.count)
            for i in 1...max(1, a.count) where !a.isEmpty {
                var previous = row[0]
                row[0] = i
                for j in stride(from: 1, through: b.count, by: 1) {
                    let old = row[j]
                    row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                    previous = old
                }
            }
            return a.isEmpty ? b.count : row[b.count]
        }
        let best = keys.map { ($0, distance(Array(key.lowercased()), Array($0))) }.min { $0.1 < $1.1 }
        return best.flatMap { $0.1 <= 2 || $0.0.hasPrefix(key.lowercased()) ? $0.0 : nil }
    }
}

/// A calendar bound of a date filter: the first second of a year, month or day (UTC), or the
/// first second after it for an upper bound.
struct DateBound: Sendable {
    var year: Int, month: Int, day: Int

    static let min = DateBound(year: 0, month: 1, day: 1)
    static let max = DateBound(year: 9999, month: 12, day: 31)

    init(year: Int, month: Int, day: Int) {
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// Parses `YYYY`, `YYYY-MM` or `YYYY-MM-DD`; an upper bound is the day after the period.
    init?(_ text: String, end: Bool) {
        // YYYY, YYYY-MM, YYYY-MM-DD with exactly those digits (`19`, `2019-2` are slips).
        let pieces = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count), zip(pieces, [4, 2, 2]).allSatisfy({ $0.count == $1 && $0.allSatisfy(\.isASCII) }) else {
            return nil
        }
        let parts = pieces.map { Int($0) }
        guard parts.allSatisfy({ $0 != nil }), let y = parts[0], (1...9999).contains(y) else { return nil }
        var m = parts.count > 1 ? parts[1]! : 1
        var d = parts.count > 2 ? parts[2]! : 1
        guard (1...12).contains(m), (1...Self.days(inMonth: m, of: y)).contains(d) else { return nil }
        var year = y
        if end {
            switch parts.count {
            case 1: (year, m, d) = (y + 1, 1, 1)
            case 2: (year, m, d) = m == 12 ? (y + 1, 1, 1) : (y, m + 1, 1)
            default:
                // The next day, through the calendar.
                var c = Calendar(identifier: .gregorian)
                c.timeZone = TimeZone(identifier: "UTC")!
                guard let date = c.date(from: DateComponents(year: y, month: m, day: d)),
                      let next = c.date(byAdding: .day, value: 1, to: date) else { return nil }
                let n = c.dateComponents([.year, .month, .day], from: next)
                (year, m, d) = (n.year!, n.month!, n.day!)
            }
        }
        self.init(year: year, month: m, day: d)
    }

    /// The days of month `m` of year `y` (Gregorian): `2019-02-30` is no date.
    static func days(inMonth m: Int, of y: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `YYYY-MM-DD 00:00:00` (compares with Flickr's `datetaken` as text).
    static func text(_ b: DateBound) -> String {
        String(format: "%04d-%02d-%02d 00:00:00", b.year, b.month, b.day)
    }

    /// Unix seconds (UTC).
    static func unix(_ b: DateBound) -> Int {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return Int(c.date(from: DateComponents(year: b.year, month: b.month, day: b.day))?.timeIntervalSince1970 ?? 0)
    }
}
