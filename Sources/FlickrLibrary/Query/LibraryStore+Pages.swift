import FlickrProtocol
import Foundation
import GRDB
import GRDBSQLite

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
///
/// Text comes as SQLite's own UTF-8 bytes where the row has it (``field(_:text:)``,
/// ``field(_:words:)``): a reader that copies bytes anyway (into Lua strings) makes no Swift
/// string on the way. The defaults give them to ``field(_:_:)`` as strings.
public protocol LibraryPageReader {
    /// The fields that follow are photo `n`'s (0, 1, … of the page as they come; an earlier `n`
    /// again adds fields to that photo).
    mutating func photo(_ n: Int)
    /// Field `name`, an index into ``LibraryRecord/fieldNames``.
    mutating func field(_ name: Int, _ value: LibraryValue)
    /// Text field `name` as UTF-8 bytes, valid only during the call.
    mutating func field(_ name: Int, text: UnsafeRawBufferPointer)
    /// List field `name` (tags, sets) as its items' UTF-8 bytes, valid only during the call.
    mutating func field(_ name: Int, words: [UnsafeRawBufferPointer])
}

extension LibraryPageReader {
    /// The bytes as ``LibraryValue/string(_:)``.
    public mutating func field(_ name: Int, text: UnsafeRawBufferPointer) {
        field(name, .string(String(decoding: text, as: UTF8.self)))
    }

    /// The items as ``LibraryValue/list(_:)``.
    public mutating func field(_ name: Int, words: [UnsafeRawBufferPointer]) {
        field(name, .list(words.map { String(decoding: $0, as: UTF8.self) }))
    }
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
        let keyColumn = Self.orderColumn(order.column)
        return try read { db in
            var deep: [(n: Int, id: String, tags: String, machineTags: String)] = []
            var last: LibraryPageKey?
            var n = 0
            var words = PageWords()
            // The rows after the key as one or two ranges an index can walk in order and stop
            // at the limit (an OR of them would make SQLite collect and sort every row left).
            for (condition, values) in key.map({ Self.after($0, order) }) ?? [("", [])] where n < max {
                let filtered = "p.deleted IS NULL" + filter.conditions.map { " AND " + $0 }.joined() + condition
                // With no filter the order's index gives the rows in order (it holds the tie-break
                // too). With one, the page's rowids in the filter's order come first, then the
                // columns of those rows only: where SQLite sorts instead of walking an index (a
                // tag's photos by date), the sets' subquery then runs for the page's photos, not
                // for every candidate.
                let sql = filter.conditions.isEmpty ? """
                    SELECT \(Self.pageColumns),
                           (SELECT group_concat(sp.photoset, ' ') FROM set_photo sp WHERE sp.photo = p.id)
                    FROM photo p WHERE \(filtered) ORDER BY \(filter.orderBy) LIMIT ?
                    """ : """
                    SELECT \(Self.pageColumns),
                           (SELECT group_concat(sp.photoset, ' ') FROM set_photo sp WHERE sp.photo = p.id)
                    FROM (SELECT p.rowid AS r FROM photo p WHERE \(filtered) ORDER BY \(filter.orderBy) LIMIT ?) k
                    JOIN photo p ON p.rowid = k.r
                    ORDER BY \(filter.orderBy)
                    """
                let statement = try db.cachedStatement(sql: sql)
                let rows = try Row.fetchCursor(statement, arguments: StatementArguments(filter.arguments + values + [(max - n).databaseValue]))
                // The columns are read from SQLite's statement, not through `Row`: the text is
                // handed over as SQLite's bytes (valid until the next step), no String made.
                let row = statement.sqliteStatement
                while try rows.next() != nil {
                    reader.photo(n)
                    let id = Self.text(row, 0)
                    reader.field(0, text: id)
                    for (column, field, kind) in Self.pageFields {
                        switch kind {
                        // SQLite gives no text for NULL: one call, not a type check first.
                        case .string: if let text = sqlite3_column_text(row, column) {
                            reader.field(field, text: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(row, column))))
                        }
                        case .integer: if sqlite3_column_type(row, column) != SQLITE_NULL {
                            reader.field(field, .integer(Int(sqlite3_column_int64(row, column))))
                        }
                        case .number: if sqlite3_column_type(row, column) != SQLITE_NULL {
                            reader.field(field, .number(sqlite3_column_double(row, column)))
                        }
                        }
                    }
                    let tags = Self.text(row, Self.tagsColumn), machineTags = Self.text(row, Self.tagsColumn + 1)
                    if sqlite3_column_type(row, Self.tagsColumn + 2) == SQLITE_NULL {
                        // No raw forms: the tags are the clean forms, in the listing's order (as
                        // sync writes photo_tag from these columns: a word once, a tag before a
                        // machine tag).
                        words.cleanTags(tags, machineTags)
                        reader.field(Self.tagsField, words: words.plain)
                        reader.field(Self.machineTagsField, words: words.machine)
                    } else {
                        deep.append((n, Self.string(id), Self.string(tags), Self.string(machineTags)))
                    }
                    words.setIDs(Self.text(row, Self.tagsColumn + 3))
                    reader.field(Self.setsField, words: words.sets)
                    n += 1
                    // Only the page's last photo is a key (a page ends at `max` or with the rows).
                    if n == max { last = LibraryPageKey(value: Self.keyValue(row, keyColumn), id: Self.string(id)) }
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
    /// ascending, last descending; ids break ties as numbers, by length then text), each one
    /// range of the order's index.
    static func after(_ key: LibraryPageKey, _ order: LibraryFilter.Order) -> [(String, [DatabaseValue])] {
        let c = "p.\(order.column)", id = key.id.databaseValue, length = key.id.count.databaseValue
        let value: DatabaseValue? = switch key.value {
        case .string(let s): s.databaseValue
        case .integer(let i): i.databaseValue
        case .number(let d): d.databaseValue
        case .list, nil: nil
        }
        switch (order.descending, value) {
        case (false, nil): return [(" AND \(c) IS NULL AND (length(p.id), p.id) > (?, ?)", [length, id]), (" AND \(c) IS NOT NULL", [])]
        case (false, let v?): return [(" AND (\(c), length(p.id), p.id) > (?, ?, ?)", [v, length, id])]
        case (true, nil): return [(" AND \(c) IS NULL AND (length(p.id), p.id) < (?, ?)", [length, id])]
        case (true, let v?): return [(" AND (\(c), length(p.id), p.id) < (?, ?, ?)", [v, length, id]), (" AND \(c) IS NULL", [])]
        }
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
    static let pageFields: [(column: Int32, field: Int, kind: Kind)] = pageScalars.enumerated().map { i, s in (Int32(i + 1), field(s.column), s.kind) }
    static let tagsColumn = Int32(pageScalars.count + 1)
    static let pageColumns = (["id"] + pageScalars.map(\.column) + ["tags", "machine_tags", "raw_tags"]).map { "p." + $0 }.joined(separator: ", ")

    /// The statement's column holding an order column's value.
    static func orderColumn(_ name: String) -> Int32 {
        Int32(1 + pageScalars.firstIndex { $0.column == name }!)
    }

    /// Column `column` of the row `statement` stands on as SQLite's UTF-8 bytes, valid until
    /// the statement steps or is reset (empty for NULL). `sqlite3_column_text` comes before
    /// `sqlite3_column_bytes`, as SQLite asks, so the length is of the text form.
    static func text(_ statement: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer {
        guard let bytes = sqlite3_column_text(statement, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    static func string(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The order column's value on the row `statement` stands on, as a page key holds it.
    static func keyValue(_ statement: SQLiteStatement, _ column: Int32) -> LibraryValue? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: .integer(Int(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: .number(sqlite3_column_double(statement, column))
        case SQLITE_TEXT: .string(string(text(statement, column)))
        default: nil
        }
    }
}

extension LibraryFilter {
    /// The order as a column of `photo` and a direction (the id, as a number, breaks ties the
    /// same way).
    struct Order {
        var column: String
        var descending: Bool
    }

    /// `orderBy` read back: `p.COLUMN ASC|DESC, length(p.id) ASC|DESC, p.id ASC|DESC`.
    var order: Order {
        let words = orderBy.split(separator: ",")[0].split(separator: " ")
        return Order(column: String(words[0].dropFirst(2)), descending: words[1] == "DESC")
    }
}
