import FlickrProtocol
import Foundation
import GRDB

/// A value of a photo's field as queries give it.
public enum LibraryValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case number(Double)
    case list([String])
}

/// A value `sql` binds or gives: one of SQLite's storage classes.
public enum LibrarySQLValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let n): self = .integer(n)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .blob(Array(b))
        }
    }

    /// As SQL would write it (text quoted).
    public var description: String { databaseValue.description }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let n): n.databaseValue
        case .real(let d): d.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let b): Data(b).databaseValue
        }
    }
}

/// One photo as a query gives it: fields named like the search extras.
public struct LibraryRecord: Sendable, Hashable {
    public var photo: LibraryPhoto
    /// Raw forms where a deep sync read them, clean forms otherwise; machine tags left out.
    public var tags: [String]
    public var machineTags: [String]
    /// Ids of the sets it is in.
    public var sets: [String]

    /// The field names, in the order `--json`, `--csv` and `--fields` use.
    public static let fieldNames = [
        "id", "title", "description", "tags", "machine_tags", "date_taken", "date_upload", "last_update", "ispublic", "isfriend",
        "isfamily", "license", "media", "latitude", "longitude", "accuracy", "views", "sets", "owner", "secret", "server", "farm",
        "original_format", "o_width", "o_height", "url_o", "date_taken_granularity",
    ]

    /// The value of `name` (nil when the library does not know it).
    public func value(_ name: String) -> LibraryValue? {
        let p = photo
        func int(_ i: Int?) -> LibraryValue? { i.map(LibraryValue.integer) }
        func str(_ s: String?) -> LibraryValue? { s.map(LibraryValue.string) }
        switch name {
        case "id": return .string(p.id)
        case "title": return .string(p.title)
        case "description": return .string(p.description)
        case "tags": return .list(tags)
        case "machine_tags": return .list(machineTags)
        case "date_taken": return str(p.date_taken)
        case "date_upload": return int(p.date_upload)
        case "last_update": return int(p.last_update)
        case "ispublic": return .integer(p.ispublic)
        case "isfriend": return .integer(p.isfriend)
        case "isfamily": return .integer(p.isfamily)
        case "license": return str(p.license)
        case "media": return str(p.media)
        case "latitude": return p.latitude.map(LibraryValue.number)
        case "longitude": return p.longitude.map(LibraryValue.number)
        case "accuracy": return int(p.accuracy)
        case "views": return int(p.views)
        case "sets": return .list(sets)
        case "owner": return .string(p.owner)
        case "secret": return str(p.secret)
        case "server": return str(p.server)
        case "farm": return int(p.farm)
        case "original_format": return str(p.original_format)
        case "o_width": return int(p.o_width)
        case "o_height": return int(p.o_height)
        case "url_o": return str(p.url_o)
        case "date_taken_granularity": return int(p.date_taken_granularity)
        default: return nil
        }
    }
}

/// A set as the library holds it.
public struct LibrarySet: Sendable, Hashable, Codable {
    public var id: String
    public var title: String
    public var description: String
    public var primary: String?
    public var photos: Int
    public var videos: Int
    public var dateCreate: Int?
    public var dateUpdate: Int?
    /// Member photo ids in the set's order.
    public var members: [String]
}

/// What `flickr.library.status()` and `flickr sync` report of the library itself.
public struct LibraryStatus: Sendable, Hashable, Codable {
    public var account: String
    public var path: String
    public var schemaVersion: Int
    /// Unix seconds when the last complete sync began; nil before the first.
    public var lastSync: Int?
    public var photos: Int
    public var deleted: Int
    /// Photos whose raw tags (deep) are current.
    public var deep: Int
    public var sets: Int
}

extension LibraryStore {
    /// The ids of the photos `filter` selects, in its order.
    public func ids(_ filter: LibraryFilter) throws(LibraryError) -> [String] {
        try read { db in try String.fetchAll(db, sql: filter.sql, arguments: StatementArguments(filter.arguments)) }
    }

    /// How many photos `filter` selects.
    public func count(_ filter: LibraryFilter) throws(LibraryError) -> Int {
        try read { db in try Int.fetchOne(db, sql: filter.countSQL, arguments: StatementArguments(filter.arguments)) ?? 0 }
    }

    /// The records of `ids`, in that order (a page of a query: one statement per table).
    public func records(_ ids: some Collection<String>) throws(LibraryError) -> [LibraryRecord] {
        guard !ids.isEmpty else { return [] }
        let list = Array(ids)
        return try read { db in
            var out: [LibraryRecord] = []
            out.reserveCapacity(list.count)
            var start = 0
            while start < list.count {
                let chunk = Array(list[start..<min(list.count, start + 500)])
                start += chunk.count
                let marks = LibraryFilter.marks(chunk.count)
                let arguments = StatementArguments(chunk)
                // Cursors, not fetchAll: a cursor's row reads the statement's columns in place
                // (fetchAll copies every row first, then decodes each value generically).
                var photos: [String: LibraryPhoto] = [:]
                photos.reserveCapacity(chunk.count)
                // Cached statements: every full chunk has the same 500 marks.
                let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(LibraryPhoto.queryColumns) FROM photo WHERE id IN (\(marks))"), arguments: arguments)
                while let row = try rows.next() {
                    let photo = LibraryPhoto(queryRow: row)
                    if photos[photo.id] == nil { photos[photo.id] = photo }
                }
                // Each form with its clean form (the row's key), so that ordering them needs no
                // TagString.clean per comparison.
                var tags: [String: [(clean: String, form: String)]] = [:], machine: [String: [(clean: String, form: String)]] = [:]
                let tagRows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT photo, clean, raw, machine FROM photo_tag WHERE photo IN (\(marks))"), arguments: arguments)
                while let row = try tagRows.next() {
                    let id: String = row[0]
                    let clean: String = row[1]
                    let form: String = (row[2] as String?) ?? clean
                    if (row[3] as Int) == 1 { machine[id, default: []].append((clean, form)) } else { tags[id, default: []].append((clean, form)) }
                }
                var sets: [String: [String]] = [:]
                let setRows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT photo, photoset FROM set_photo WHERE photo IN (\(marks)) ORDER BY photoset"), arguments: arguments)
                while let row = try setRows.next() {
                    sets[row[0], default: []].append(row[1])
                }
                for id in chunk {
                    guard let photo = photos[id] else { continue }
                    out.append(LibraryRecord(photo: photo, tags: Self.tagOrder(photo.tags, tags[id] ?? []),
                                             machineTags: Self.tagOrder(photo.machine_tags, machine[id] ?? []), sets: sets[id] ?? []))
                }
            }
            return out
        }
    }

    /// Tags in the order the listing gave them (the table's order is the key's): each form by
    /// its clean form's place in the listing's space-separated clean forms.
    static func tagOrder(_ listing: String, _ forms: [(clean: String, form: String)]) -> [String] {
        guard forms.count > 1 else { return forms.map(\.form) }
        let words = listing.split(separator: " ")
        func place(_ clean: String) -> Int { words.firstIndex { $0 == clean } ?? .max }
        return forms.map { (place($0.clean), $0.form) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.1)
    }

    /// Every set, in the account's order.
    public func sets() throws(LibraryError) -> [LibrarySet] {
        try read { db in
            let members = Dictionary(grouping: try Row.fetchAll(db, sql: "SELECT photoset, photo FROM set_photo ORDER BY photoset, position"),
                                     by: { $0[0] as String }).mapValues { $0.map { $0[1] as String } }
            return try Row.fetchAll(db, sql: "SELECT * FROM photoset ORDER BY position").map { r in
                LibrarySet(id: r["id"], title: r["title"], description: r["description"], primary: r["primary_photo"], photos: r["photos"],
                           videos: r["videos"], dateCreate: r["date_create"], dateUpdate: r["date_update"], members: members[r["id"]] ?? [])
            }
        }
    }

    /// Whether a sync of the library has ever finished (a first one killed leaves it partial):
    /// one row read, where ``status()`` counts the photos.
    public var isComplete: Bool {
        get throws(LibraryError) { try read { db in try state("last_sync", db) != nil } }
    }

    /// The library's own state.
    public func status() throws(LibraryError) -> LibraryStatus {
        let version = schemaVersion
        return try read { db in
            LibraryStatus(account: account, path: path, schemaVersion: version,
                          lastSync: try state("last_sync", db).flatMap(Int.init),
                          photos: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE deleted IS NULL") ?? 0,
                          deleted: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE deleted IS NOT NULL") ?? 0,
                          deep: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE deleted IS NULL AND deep_update IS last_update") ?? 0,
                          sets: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photoset") ?? 0)
        }
    }

    /// Runs a read-only statement (`flickr.library.sql`): the rows as column → value. A
    /// statement that would write is an error, not a write.
    public func sql(_ query: String, _ arguments: [LibrarySQLValue] = []) throws(LibraryError) -> (columns: [String], rows: [[LibrarySQLValue]]) {
        do {
            return try pool.read { db in
                let statement = try db.makeStatement(sql: query)
                guard statement.isReadonly else { throw LibraryError("library.sql is read-only: \(query.prefix(60)) would write") }
                let rows = try Row.fetchAll(statement, arguments: StatementArguments(arguments.map(\.databaseValue)))
                return (statement.columnNames, rows.map { $0.databaseValues.map(LibrarySQLValue.init) })
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError("library.sql: \(error)")
        }
    }

    /// The deleted photos (ids), for backups.
    public func deletedIDs() throws(LibraryError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM photo WHERE deleted IS NOT NULL ORDER BY id") }
    }
}


extension LibraryPhoto {
    /// The columns ``init(queryRow:)`` reads, in its order: every stored field.
    static let queryColumns = "id, owner, secret, server, farm, title, description, ispublic, isfriend, isfamily, license, date_upload, date_taken, date_taken_granularity, date_taken_unknown, last_update, views, media, original_format, original_secret, o_width, o_height, latitude, longitude, accuracy, url_o, tags, machine_tags, raw_tags, deep_update, notes, people, comments, deleted"

    private static let storedFields = Mirror(reflecting: LibraryPhoto(id: "", owner: "")).children.count

    /// A photo from a row of `SELECT queryColumns`, read by position: the Codable decoder looks
    /// each of the 34 fields up by name, which at 1,000 photos a page cost more than the query.
    /// A field added to ``LibraryPhoto`` must be added here too (the assertion says so).
    init(queryRow r: Row) {
        assert(Self.storedFields == 34, "LibraryPhoto has a field LibraryPhoto.init(queryRow:) does not read")
        self.init(id: r[0], owner: r[1])
        secret = r[2]
        server = r[3]
        farm = r[4]
        title = r[5]
        description = r[6]
        ispublic = r[7]
        isfriend = r[8]
        isfamily = r[9]
        license = r[10]
        date_upload = r[11]
        date_taken = r[12]
        date_taken_granularity = r[13]
        date_taken_unknown = r[14]
        last_update = r[15]
        views = r[16]
        media = r[17]
        original_format = r[18]
        original_secret = r[19]
        o_width = r[20]
        o_height = r[21]
        latitude = r[22]
        longitude = r[23]
        accuracy = r[24]
        url_o = r[25]
        tags = r[26]
        machine_tags = r[27]
        raw_tags = r[28]
        deep_update = r[29]
        notes = r[30]
        people = r[31]
        comments = r[32]
        deleted = r[33]
    }
}
