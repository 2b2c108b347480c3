import FlickrProtocol
import Foundation
import GRDB

/// Where a page of a query ended: the last photo's value of the filter's order column and its
/// id. The next page starts after it (keyset pagination): a photo deleted or changed between two
/// pages moves no other photo, and each page is one statement in the filter's order, not a
/// list of every id first.
public struct LibraryPageKey: Sendable, Hashable {
    /// The order column's value: `.string` (`date_taken`) or `.integer`; nil when it is NULL.
    public var value: LibraryValue?
    public var id: String

    public init(value: LibraryValue?, id: String) {
        (self.value, self.id) = (value, id)
    }
}

/// What reads a page of photos field by field, with no ``LibraryRecord`` in between (FlickrLua
/// builds its Lua tables from it). A field the library does not know is not given.
public protocol LibraryPageReader {
    /// The fields that follow are photo `n`'s (0, 1, … of the page as they come; an earlier `n`
    /// again adds fields to that photo).
    mutating func photo(_ n: Int)
    /// Field `name`, an index into ``LibraryRecord/fieldNames``.
    mutating func field(_ name: Int, _ value: LibraryValue)
}

extension LibraryStore {
    /// The photos `filter` selects after `key` (from the first when nil), at most `max`, in the
    /// filter's order, given to `reader`; the key the next page starts after (nil when this one
    /// was the last). One statement for the photos, one for the deep photos' tags; the fields
    /// equal ``records(_:)``'s. `filter.limit` is the caller's to count across pages.
    public func page(_ filter: LibraryFilter, after key: LibraryPageKey?, max: Int, into reader: inout some LibraryPageReader)
        throws(LibraryError) -> LibraryPageKey?
    {
        guard max > 0 else { return nil }
        let order = filter.order
        let direction = order.descending ? "DESC" : "ASC"
        let orderBy = "p.\(order.column) \(direction), p.id \(direction)"
        let keyColumn = Self.orderColumn(order.column)
        return try read { db in
            var deep: [(n: Int, id: String, tags: String, machineTags: String)] = []
            var last: LibraryPageKey?
            var n = 0
            // The rows after the key as one or two ranges an index can walk in order and stop
            // at the limit (an OR of them would make SQLite collect and sort every row left).
            for (condition, values) in key.map({ Self.after($0, order) }) ?? [("", [])] where n < max {
                // The page's rowids in the filter's order first, then the columns of those rows
                // only: with a sort instead of an index (order=views), the sets' subquery then
                // runs for the page's photos, not for every candidate.
                let sql = """
                    SELECT \(Self.pageColumns),
                           (SELECT group_concat(sp.photoset, ' ') FROM set_photo sp WHERE sp.photo = p.id)
                    FROM (SELECT p.rowid AS r FROM photo p WHERE p.deleted IS NULL\(filter.conditions.map { " AND " + $0 }.joined())\(condition)
                          ORDER BY \(orderBy) LIMIT ?) k
                    JOIN photo p ON p.rowid = k.r
                    ORDER BY \(orderBy)
                    """
                let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(filter.arguments + values + [(max - n).databaseValue]))
                while let row = try rows.next() {
                    reader.photo(n)
                    let id: String = row[0]
                    reader.field(0, .string(id))
                    for (column, field, kind) in Self.pageFields {
                        if row.hasNull(atIndex: column) { continue }
                        switch kind {
                        case .string: reader.field(field, .string(row[column]))
                        case .integer: reader.field(field, .integer(row[column]))
                        case .number: reader.field(field, .number(row[column]))
                        }
                    }
                    let tags: String = row[Self.tagsColumn], machineTags: String = row[Self.tagsColumn + 1]
                    if row.hasNull(atIndex: Self.tagsColumn + 2) {
                        // No raw forms: the tags are the clean forms, in the listing's order (as
                        // sync writes photo_tag from these columns: a word once, a tag before a
                        // machine tag).
                        let (plain, machine) = Self.cleanTags(tags, machineTags)
                        reader.field(Self.tagsField, .list(plain))
                        reader.field(Self.machineTagsField, .list(machine))
                    } else {
                        deep.append((n, id, tags, machineTags))
                    }
                    let sets: String? = row[Self.tagsColumn + 3]
                    reader.field(Self.setsField, .list(sets.map { Self.sortedIDs($0) } ?? []))
                    last = LibraryPageKey(value: Self.keyValue(row, keyColumn), id: id)
                    n += 1
                }
            }
            // The deep photos' tags: their raw forms from photo_tag, one statement.
            var start = 0
            while start < deep.count {
                let chunk = deep[start..<min(deep.count, start + 500)]
                start += chunk.count
                var forms: [String: (tags: [(clean: String, form: String)], machine: [(clean: String, form: String)])] = [:]
                let tagRows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT photo, clean, raw, machine FROM photo_tag WHERE photo IN (\(LibraryFilter.marks(chunk.count)))"),
                                                  arguments: StatementArguments(chunk.map(\.id)))
                while let row = try tagRows.next() {
                    let id: String = row[0], clean: String = row[1]
                    let form: String = (row[2] as String?) ?? clean
                    if (row[3] as Int) == 1 { forms[id, default: ([], [])].machine.append((clean, form)) } else { forms[id, default: ([], [])].tags.append((clean, form)) }
                }
                for photo in chunk {
                    reader.photo(photo.n)
                    reader.field(Self.tagsField, .list(Self.tagOrder(photo.tags, forms[photo.id]?.tags ?? [])))
                    reader.field(Self.machineTagsField, .list(Self.tagOrder(photo.machineTags, forms[photo.id]?.machine ?? [])))
                }
            }
            return n == max ? last : nil
        }
    }

    /// The rows after `key` in `order`, as conditions to run in turn (SQLite puts NULL first
    /// ascending, last descending; the id breaks ties), each one index range.
    static func after(_ key: LibraryPageKey, _ order: LibraryFilter.Order) -> [(String, [DatabaseValue])] {
        let c = "p.\(order.column)", id = key.id.databaseValue
        let value: DatabaseValue? = switch key.value {
        case .string(let s): s.databaseValue
        case .integer(let i): i.databaseValue
        case .number(let d): d.databaseValue
        case .list, nil: nil
        }
        switch (order.descending, value) {
        case (false, nil): return [(" AND \(c) IS NULL AND p.id > ?", [id]), (" AND \(c) IS NOT NULL", [])]
        case (false, let v?): return [(" AND \(c) >= ? AND (\(c) > ? OR p.id > ?)", [v, v, id])]
        case (true, nil): return [(" AND \(c) IS NULL AND p.id < ?", [id])]
        case (true, let v?): return [(" AND \(c) <= ? AND (\(c) < ? OR p.id < ?)", [v, v, id]), (" AND \(c) IS NULL", [])]
        }
    }

    /// Space-separated clean forms as ``LibrarySync/writeTags(_:_:)`` stores them and
    /// ``records(_:)`` reads them back: each word once, in order; a word of both lists a tag.
    static func cleanTags(_ tags: String, _ machineTags: String) -> (tags: [String], machine: [String]) {
        var plain: [String] = [], machine: [String] = []
        for word in tags.split(separator: " ") {
            let s = String(word)
            if !plain.contains(s) { plain.append(s) }
        }
        for word in machineTags.split(separator: " ") {
            let s = String(word)
            if !plain.contains(s), !machine.contains(s) { machine.append(s) }
        }
        return (plain, machine)
    }

    /// Set ids as `ORDER BY photoset` sorts them (bytewise).
    static func sortedIDs(_ joined: String) -> [String] {
        let ids = joined.split(separator: " ").map(String.init)
        return ids.count < 2 ? ids : ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    static func field(_ name: String) -> Int { LibraryRecord.fieldNames.firstIndex(of: name)! }
    static let tagsField = field("tags"), machineTagsField = field("machine_tags"), setsField = field("sets")

    enum Kind { case string, integer, number }

    /// The columns a page reads: id, the scalar fields, then tags, machine_tags, raw_tags IS
    /// NULL's witness, and (the statement's last) the sets.
    static let pageScalars: [(column: String, kind: Kind)] = [
        ("title", .string), ("description", .string), ("date_taken", .string), ("date_upload", .integer), ("last_update", .integer),
        ("ispublic", .integer), ("isfriend", .integer), ("isfamily", .integer), ("license", .string), ("media", .string),
        ("latitude", .number), ("longitude", .number), ("accuracy", .integer), ("views", .integer), ("owner", .string),
        ("secret", .string), ("server", .string), ("farm", .integer), ("original_format", .string), ("o_width", .integer),
        ("o_height", .integer), ("url_o", .string), ("date_taken_granularity", .integer),
    ]
    static let pageFields: [(column: Int, field: Int, kind: Kind)] = pageScalars.enumerated().map { i, s in (i + 1, field(s.column), s.kind) }
    static let tagsColumn = pageScalars.count + 1
    static let pageColumns = (["id"] + pageScalars.map(\.column) + ["tags", "machine_tags", "raw_tags"]).map { "p." + $0 }.joined(separator: ", ")

    /// The statement's column holding an order column's value.
    static func orderColumn(_ name: String) -> Int {
        1 + pageScalars.firstIndex { $0.column == name }!
    }

    static func keyValue(_ row: Row, _ column: Int) -> LibraryValue? {
        switch row[column] as DatabaseValue {
        case let v where v.isNull: return nil
        case let v: switch v.storage {
            case .int64(let i): return .integer(Int(i))
            case .string(let s): return .string(s)
            case .double(let d): return .number(d)
            default: return nil
            }
        }
    }
}

extension LibraryFilter {
    /// The order as a column of `photo` and a direction (the id breaks ties the same way).
    struct Order {
        var column: String
        var descending: Bool
    }

    /// `orderBy` read back: `p.COLUMN ASC|DESC, p.id ASC|DESC`.
    var order: Order {
        let words = orderBy.split(separator: ",")[0].split(separator: " ")
        return Order(column: String(words[0].dropFirst(2)), descending: words[1] == "DESC")
    }
}
