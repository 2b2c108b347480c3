import FlickrAPI
import FlickrProtocol
import Foundation

/// A photo as an export reads it from a backup: its original (path in the backup, SHA-256 the
/// backup recorded) and what its JSON sidecar says. No call, no library needed: a backup
/// copied to another machine exports the same.
struct ExportPhoto: Sendable, Hashable {
    var id: String
    /// The original, relative to the backup's folder, and the SHA-256 its manifest holds.
    var original: String
    var sha256: String
    var title: String
    var description: String
    /// The keywords: the tags as the library knows them (raw forms after `sync --deep`), machine
    /// tags left out.
    var keywords: [String]
    /// Flickr's date taken (`2019-07-02 14:03:05`, no zone) and its granularity.
    var dateTaken: String?
    var granularity: Int
    var latitude: Double?
    var longitude: Double?
    var license: String?
    var owner: String
    var media: String
    /// The sets the photo is in (id and title as the sidecar names them).
    var sets: [(id: String, title: String)]
    /// What `flickr backup --social` kept of the conversation (none without it): the gallery
    /// shows them; they are no part of the copy.
    var comments: [Comment] = []
    var faves: [String] = []

    struct Comment: Sendable, Hashable {
        var author: String
        var authorName: String
        var date: String
        var text: String
    }

    static func == (a: ExportPhoto, b: ExportPhoto) -> Bool {
        a.id == b.id && a.fingerprint == b.fingerprint && a.sets.map(\.id) == b.sets.map(\.id) && a.sets.map(\.title) == b.sets.map(\.title)
    }
    func hash(into h: inout Hasher) { h.combine(id); h.combine(fingerprint) }

    /// The original's extension, lower-case (`jpg`, `mp4`).
    var fileExtension: String { (original as NSString).pathExtension.lowercased() }

    var isVideo: Bool { media == "video" }

    /// Flickr's page of the photo.
    var pageURL: String { "https://www.flickr.com/photos/\(owner)/\(id)/" }

    /// Everything an export writes into the photo's copy, as one text: what decides whether it
    /// is written again (with the export's options). Its sets decide only where it goes.
    var fingerprint: String {
        [id, original, sha256, title, description, keywords.joined(separator: "\u{1F}"), dateTaken ?? "", String(granularity),
         latitude.map { String($0) } ?? "", longitude.map { String($0) } ?? "", license ?? "", owner, media].joined(separator: "\u{1E}")
    }

    /// The photo of the sidecar `object` (as `flickr backup` writes it) whose original is at
    /// `original` with `sha256`; nil when the sidecar is not one.
    init?(sidecar object: [String: Any], original: String, sha256: String) {
        guard let id = object["id"] as? String, !id.isEmpty else { return nil }
        self.id = id
        self.original = original
        self.sha256 = sha256
        title = object["title"] as? String ?? ""
        description = object["description"] as? String ?? ""
        // The sidecar's tags are the library's: the owner's raw forms after a deep sync ("Old
        // Town"), else the clean ones ("oldtown"); machine tags are a list of their own.
        keywords = (object["tags"] as? [String]) ?? []
        dateTaken = (object["date_taken"] as? String).flatMap { $0.isEmpty || $0.hasPrefix("0000") ? nil : $0 }
        granularity = (object["date_taken_granularity"] as? NSNumber)?.intValue ?? 0
        latitude = (object["latitude"] as? NSNumber)?.doubleValue
        longitude = (object["longitude"] as? NSNumber)?.doubleValue
        if latitude == nil || longitude == nil { (latitude, longitude) = (nil, nil) }
        license = (object["license"] as? String) ?? (object["license"] as? NSNumber)?.stringValue
        owner = object["owner"] as? String ?? ""
        media = object["media"] as? String ?? "photo"
        sets = ((object["sets"] as? [[String: Any]]) ?? []).compactMap { s in
            (s["id"] as? String).map { ($0, s["title"] as? String ?? "") }
        }
        let social = object["social"] as? [String: Any]
        comments = ((social?["comments"] as? [[String: Any]]) ?? []).map { c in
            Comment(author: Self.text(c["author"]), authorName: Self.text(c["authorname"]), date: Self.day(Self.text(c["date"])),
                    text: Self.text(c["text"]))
        }
        faves = ((social?["faves"] as? [[String: Any]]) ?? []).map { f in
            let name = Self.text(f["username"])
            return name.isEmpty ? Self.text(f["nsid"]) : name
        }
    }

    static func text(_ v: Any?) -> String { (v as? String) ?? (v as? NSNumber)?.stringValue ?? "" }

    /// A Unix time as `YYYY-MM-DD HH:MM` (UTC); any other text as it is.
    static func day(_ s: String) -> String {
        guard let t = Double(s) else { return s }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: Date(timeIntervalSince1970: t)) + " UTC"
    }

    /// The date taken as `YYYY-MM-DD` (`undated` without one).
    var day: String {
        guard let dateTaken, dateTaken.count >= 10 else { return "undated" }
        return String(dateTaken.prefix(10))
    }

    /// The date taken read in the local time zone (as downloads stamp theirs), as a file's
    /// modification time; nil without one.
    var modificationTime: Date? { dateTaken.flatMap(DownloadedFile.takenDate) }
}
