import FlickrJobs
import FlickrProtocol
import Foundation

/// A photo's JSON sidecar: everything the library knows of it, named like the search extras
/// (as `flickr find --json` names them), with the raw tags of a deep sync, the sets it is in
/// (id and title) and the path of its original in the backup.
struct BackupSidecar: Sendable {
    /// The sidecar's format, written into it.
    static let format = "flickr-backup/1"

    var record: LibraryRecord
    /// Id → title of the sets the photo is in.
    var setTitles: [String: String]
    /// The original's path in the backup, when it has one.
    var original: String?

    /// The sidecar's text.
    var text: String { json(includingViews: true).render(pretty: true) + "\n" }

    /// What decides whether the sidecar is rewritten: its content without `views` (a count that
    /// moves with every visit and is no change of the photo).
    var metadataHash: String { FileDigest.of(Data(json(includingViews: false).render().utf8)) }

    func json(includingViews: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("format", .string(Self.format))]
        for name in LibraryRecord.fieldNames {
            if name == "views" && !includingViews { continue }
            if name == "sets" {
                members.append(("sets", .array(record.sets.map { id in
                    .object([("id", .string(id)), ("title", .string(setTitles[id] ?? ""))])
                })))
                continue
            }
            members.append((name, Self.value(record.value(name))))
        }
        let p = record.photo
        if let raw = p.rawTags {
            members.append(("raw_tags", .array(raw.map { t in
                .object([("id", .string(t.id)), ("author", .string(t.author)), ("raw", .string(t.raw))])
            })))
        }
        for (name, value) in [("notes", p.notes), ("people", p.people), ("comments", p.comments)] {
            if let value { members.append((name, .number(value))) }
        }
        if let original { members.append(("original", .string(original))) }
        return .object(members)
    }

    static func value(_ v: LibraryValue?) -> JSONValue {
        switch v {
        case .none: .null
        case .string(let s)?: .string(s)
        case .integer(let i)?: .number(i)
        case .number(let d)?: .double(d)
        case .list(let l)?: .array(l.map(JSONValue.string))
        }
    }
}
