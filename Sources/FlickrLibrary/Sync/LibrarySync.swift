import FlickrAPI
import FlickrJobs
import FlickrProtocol
import Foundation
import GRDB

/// Brings the library up to date with Flickr, at the fewest calls:
/// - the first sync (and `--full`) lists every photo with all the extras: ⌈P/500⌉ calls;
/// - a later one reads `photos.recentlyUpdated` since the last sync (less a margin for clock
///   skew): ⌈changed/500⌉ calls; deletions are found without relisting when `people.getInfo`'s
///   count equals the library's, by a listing otherwise;
/// - sets are re-read only when `photosets.getList` shows them changed;
/// - `deep` reads `getInfo` (raw tags with author and id, notes, people, comments) only for
///   photos whose `last_update` moved since it was last read.
///
/// Each page and each set is written in one transaction, and the sync's mark moves only when
/// everything succeeded: `kill -9` at any moment leaves the database consistent, and the next
/// sync redoes what is missing and reaches the state an uninterrupted one reaches. A photo is
/// marked deleted only after a complete, successful listing.
public struct LibrarySync: Sendable {
    public let client: FlickrClient
    public let store: LibraryStore
    /// Also read `getInfo` for every photo whose raw tags are not current.
    public var deep = false
    /// List every photo even when an incremental sync would do.
    public var full = false
    /// Seconds subtracted from the last sync's start for `recentlyUpdated` (clock skew).
    public var margin = 300
    /// `getInfo` reads in flight at once (deep).
    public var concurrency = 4

    public init(client: FlickrClient, store: LibraryStore) {
        self.client = client
        self.store = store
    }

    /// What a sync did (`flickr sync --json` prints it).
    public struct Summary: Sendable, Hashable, Codable {
        public var account: String
        /// `first`, `full` or `incremental`.
        public var kind: String
        public var added = 0
        public var updated = 0
        public var deleted = 0
        /// Sets added, changed or removed.
        public var sets = 0
        /// `getInfo` reads (deep).
        public var deep = 0
        /// Calls this sync made (the account check included when the caller counts it).
        public var calls = 0
        /// Photos in the library now (not deleted).
        public var photos = 0
        public var elapsed = 0.0
    }

    /// Where a sync is: a phase and its count so far (`total` when known).
    public struct Progress: Sendable, Hashable, Codable {
        public var phase: String
        public var done: Int
        public var total: Int?
        public var calls: Int
    }

    /// The account the client's credentials belong to (`flickr.test.login`, one call).
    public static func account(of client: FlickrClient) async throws -> String {
        let login = try await client.call("flickr.test.login")
        guard let nsid = login["user"]?["id"]?.string else { throw LibraryError("flickr.test.login did not name the user") }
        return nsid
    }

    /// Runs the sync. `calls` already made for it (the account check) are added to the summary.
    public func run(callsBefore: Int = 0, progress: @Sendable (Progress) -> Void = { _ in }) async throws -> Summary {
        let started = Date()
        let start = Int(started.timeIntervalSince1970)
        let counter = CallCounter(client: client, calls: callsBefore)
        let previous = try store.read { db in (try store.state("last_sync", db)).flatMap(Int.init) }
        var summary = Summary(account: store.account, kind: previous == nil ? "first" : (full ? "full" : "incremental"))
        if let previous, !full {
            try await incremental(since: previous - margin, counter: counter, summary: &summary, progress: progress)
            // Deletions: the account's count tells whether any photo went.
            let info = try await counter.call("flickr.people.getInfo", ["user_id": store.account])
            let count = info["person"]?["photos"]?["count"]?.int
            let live = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE deleted IS NULL") ?? 0 }
            if count != live {
                try await listAll(counter: counter, summary: &summary, progress: progress)
            }
        } else {
            try await listAll(counter: counter, summary: &summary, progress: progress)
        }
        summary.sets = try await syncSets(counter: counter, progress: progress)
        // A mirror once synced deep stays deep: a photo whose tags changed (or a new one) is read
        // again by any sync, one getInfo each, so that its raw forms are never replaced by clean ones.
        let deepMirror = try deep || store.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE raw_tags IS NOT NULL)") ?? false
        }
        if deepMirror { summary.deep = try await readDeep(counter: counter, onlyChangedTags: !deep, progress: progress) }
        try store.write { db in
            try store.setState("last_sync", String(start), db)
            try store.setState("last_sync_end", String(Int(Date().timeIntervalSince1970)), db)
        }
        summary.photos = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE deleted IS NULL") ?? 0 }
        summary.calls = counter.calls
        summary.elapsed = Date().timeIntervalSince(started)
        return summary
    }

    /// `photos.recentlyUpdated` since `minDate`, every page, upserted page by page.
    func incremental(since minDate: Int, counter: CallCounter, summary: inout Summary,
                     progress: @Sendable (Progress) -> Void) async throws {
        var page = 1
        var done = 0
        while true {
            let rsp = try await counter.call("flickr.photos.recentlyUpdated",
                                             ["min_date": String(max(1, minDate)), "extras": LibraryPhoto.extras,
                                              "per_page": "500", "page": String(page)])
            let photos = (rsp["photos"]?["photo"]?.array ?? []).compactMap { LibraryPhoto(listing: $0, owner: store.account) }
            let (added, updated) = try upsert(photos)
            summary.added += added
            summary.updated += updated
            done += photos.count
            let pages = rsp["photos"]?["pages"]?.int ?? 1
            progress(Progress(phase: "changes", done: done, total: rsp["photos"]?["total"]?.int, calls: counter.calls))
            if page >= pages || photos.isEmpty { break }
            page += 1
        }
    }

    /// Every photo of the account (`people.getPhotos`, no cap), upserted page by page; then,
    /// the listing being complete, the photos it did not have are marked deleted.
    func listAll(counter: CallCounter, summary: inout Summary, progress: @Sendable (Progress) -> Void) async throws {
        var page = 1
        var seen = Set<String>()
        var total: Int?
        while true {
            let rsp = try await counter.call("flickr.people.getPhotos",
                                             ["user_id": "me", "extras": LibraryPhoto.extras, "per_page": "500", "page": String(page)])
            guard let list = rsp["photos"] else { throw LibraryError("people.getPhotos answered without a photo list") }
            let photos = (list["photo"]?.array ?? []).compactMap { LibraryPhoto(listing: $0, owner: store.account) }
            let (added, updated) = try upsert(photos)
            summary.added += added
            summary.updated += updated
            for p in photos { seen.insert(p.id) }
            total = list["total"]?.int ?? total
            progress(Progress(phase: "photos", done: seen.count, total: total, calls: counter.calls))
            let pages = list["pages"]?.int ?? 1
            if page >= pages || photos.isEmpty { break }
            page += 1
        }
        // Only a complete listing deletes: every page answered, and as many photos as it said.
        guard let total, seen.count >= total else {
            throw LibraryError("the listing of photos was incomplete (\(seen.count) of \(total.map(String.init) ?? "?")); nothing was marked deleted — sync again")
        }
        let now = Int(Date().timeIntervalSince1970)
        summary.deleted += try store.write { db -> Int in
            let live = try String.fetchAll(db, sql: "SELECT id FROM photo WHERE deleted IS NULL")
            var gone = 0
            for id in live where !seen.contains(id) {
                try db.execute(sql: "UPDATE photo SET deleted = ? WHERE id = ?", arguments: [now, id])
                try db.execute(sql: "DELETE FROM set_photo WHERE photo = ?", arguments: [id])
                gone += 1
            }
            return gone
        }
    }

    /// Writes listed photos in one transaction, keeping what a deep read added while it is
    /// current. Returns how many were new and how many changed.
    func upsert(_ photos: [LibraryPhoto]) throws(LibraryError) -> (added: Int, updated: Int) {
        guard !photos.isEmpty else { return (0, 0) }
        return try store.write { db in
            var added = 0, updated = 0
            for var photo in photos {
                if let old = try LibraryPhoto.fetchOne(db, key: photo.id) {
                    photo.raw_tags = old.raw_tags
                    photo.deep_update = old.deep_update
                    photo.notes = old.notes
                    photo.people = old.people
                    photo.comments = old.comments
                    // Raw tags that no longer give the listing's clean tags are stale, whatever
                    // last_update says (an edit in the second getInfo was read is not seen there).
                    // Through an edit of anything else (a title) they stay the photo's
                    // (LibraryPhoto.rawTags): what a deep read learned is not lost to it.
                    if (old.tags, old.machine_tags) != (photo.tags, photo.machine_tags) { photo.deep_update = nil }
                    if old == photo { continue }
                    // One marked deleted that a listing has again is back.
                    if old.deleted != nil { added += 1 } else { updated += 1 }
                } else {
                    added += 1
                }
                try photo.save(db)
                try Self.writeTags(photo, db)
            }
            return (added, updated)
        }
    }

    /// The photo's rows in `photo_tag`: clean forms from the listing, raw forms from a current
    /// deep read — for each clean form the owner's raw form when the owner has the tag (another
    /// member may have added the same tag in another spelling, listed before the owner's), else
    /// the first one getInfo lists.
    static func writeTags(_ photo: LibraryPhoto, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM photo_tag WHERE photo = ?", arguments: [photo.id])
        var raws: [String: String] = [:]
        let read = photo.rawTags ?? []
        for tag in read.filter({ $0.author == photo.owner }) + read.filter({ $0.author != photo.owner }) {
            let clean = TagString.clean(tag.raw)
            if raws[clean] == nil { raws[clean] = tag.raw }
        }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO photo_tag (photo, clean, raw, machine) VALUES (?, ?, ?, ?)")
        for (list, machine) in [(photo.tags, 0), (photo.machine_tags, 1)] {
            for clean in list.split(separator: " ") where !clean.isEmpty {
                let key = String(clean)
                try insert.execute(arguments: [photo.id, key, raws[key], machine])
            }
        }
    }

    /// `photosets.getList`; the members of each set that is new or changed (its update time or
    /// counts moved), every page of them read before the set is written (one transaction);
    /// sets gone from a complete list are removed. Returns the sets changed.
    func syncSets(counter: CallCounter, progress: @Sendable (Progress) -> Void) async throws -> Int {
        var listed: [(node: FlickrNode, position: Int)] = []
        var page = 1
        while true {
            let rsp = try await counter.call("flickr.photosets.getList", ["per_page": "500", "page": String(page)])
            guard let sets = rsp["photosets"] else { throw LibraryError("photosets.getList answered without a list") }
            for s in sets["photoset"]?.array ?? [] { listed.append((s, listed.count)) }
            if page >= (sets["pages"]?.int ?? 1) { break }
            page += 1
        }
        let known = try store.read { db in
            try Dictionary(Row.fetchAll(db, sql: "SELECT id, date_update, photos, videos, members_update, position, title, description, primary_photo FROM photoset")
                .map { (($0["id"] as String), $0) }, uniquingKeysWith: { a, _ in a })
        }
        var changed = 0
        for (n, (node, position)) in listed.enumerated() {
            guard let id = node["id"]?.string else { continue }
            let update = node["date_update"]?.int
            let photos = node["photos"]?.int ?? node["count_photos"]?.int ?? 0
            let videos = node["videos"]?.int ?? node["count_videos"]?.int ?? 0
            let title = node["title"]?.text ?? "", description = node["description"]?.text ?? ""
            let primary = node["primary"]?.string
            let old = known[id]
            let membersCurrent = old.map { ($0["members_update"] as Int?) == update && ($0["photos"] as Int?) == photos && ($0["videos"] as Int?) == videos } ?? false
            let headerSame = old.map { ($0["position"] as Int?) == position && ($0["title"] as String?) == title
                && ($0["description"] as String?) == description && ($0["primary_photo"] as String?) == primary } ?? false
            if membersCurrent && headerSame { continue }
            changed += 1
            var members: [String]?
            // date_update counts whole seconds: a change later in the second it names would not
            // move it. So the members are read only once that second is over (a wait of at most
            // a second, once a sync: by then every listed set's second is over), and a later
            // change moves date_update — the next sync with nothing changed reads no set. A set
            // whose second is not over on this clock even then (Flickr's clock ahead of ours) is
            // read again next time.
            var settled = true
            if !membersCurrent {
                members = []
                if let update {
                    let wait = Double(update + 1) - Date().timeIntervalSince1970
                    if wait > 0 && wait <= 1.5 { try await Task.sleep(for: .milliseconds(Int64(wait * 1000) + 10)) }
                    settled = update < Int(Date().timeIntervalSince1970)
                }
                var p = 1
                while true {
                    let rsp = try await counter.call("flickr.photosets.getPhotos",
                                                     ["photoset_id": id, "per_page": "500", "page": String(p), "media": "all"])
                    guard let set = rsp["photoset"] else { throw LibraryError("photosets.getPhotos \(id) answered without a list") }
                    members! += (set["photo"]?.array ?? []).compactMap { $0["id"]?.string }
                    if p >= (set["pages"]?.int ?? 1) { break }
                    p += 1
                }
            }
            try store.write { db in
                try db.execute(sql: """
                    INSERT INTO photoset (id, title, description, primary_photo, photos, videos, date_create, date_update, position, members_update)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET title = excluded.title, description = excluded.description,
                      primary_photo = excluded.primary_photo, photos = excluded.photos, videos = excluded.videos,
                      date_create = excluded.date_create, date_update = excluded.date_update, position = excluded.position,
                      members_update = excluded.members_update
                    """, arguments: [id, title, description, primary, photos, videos, node["date_create"]?.int, update, position,
                                     members == nil ? old?["members_update"] as Int? : (settled ? update : nil)])
                if let members {
                    try db.execute(sql: "DELETE FROM set_photo WHERE photoset = ?", arguments: [id])
                    let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO set_photo (photoset, photo, position) VALUES (?, ?, ?)")
                    for (i, photo) in members.enumerated() { try insert.execute(arguments: [id, photo, i]) }
                }
            }
            progress(Progress(phase: "sets", done: n + 1, total: listed.count, calls: counter.calls))
        }
        // The list was complete (every page answered): sets not in it are gone.
        let ids = Set(listed.compactMap { $0.node["id"]?.string })
        let gone = known.keys.filter { !ids.contains($0) }
        if !gone.isEmpty {
            try store.write { db in
                for id in gone { try db.execute(sql: "DELETE FROM photoset WHERE id = ?", arguments: [id]) }
            }
        }
        return changed + gone.count
    }

    /// `getInfo` for every photo whose deep fields are not current (a deep sync), or — a plain
    /// sync of a deep mirror — only for those whose tags changed or that are new, a few at a time.
    func readDeep(counter: CallCounter, onlyChangedTags: Bool = false, progress: @Sendable (Progress) -> Void) async throws -> Int {
        let ids = try store.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM photo WHERE deleted IS NULL AND (deep_update IS NULL"
                                + (onlyChangedTags ? "" : " OR deep_update IS NOT last_update") + ") ORDER BY id")
        }
        var next = 0, done = 0
        try await withThrowingTaskGroup(of: (String, FlickrNode?).self) { group in
            func start() {
                guard next < ids.count else { return }
                let id = ids[next]
                next += 1
                group.addTask {
                    do {
                        return (id, try await counter.call("flickr.photos.getInfo", ["photo_id": id]))
                    } catch let error as FlickrError where error.kind == .api && FlickrErrorCode.photoNotFound.matches(error.code) {
                        return (id, nil)  // deleted since it was listed: the next listing says so
                    }
                }
            }
            for _ in 0..<max(1, concurrency) { start() }
            while let (id, info) = try await group.next() {
                if let info { try store.write { db in try Self.writeDeep(id, info, db) } }
                done += 1
                progress(Progress(phase: "deep", done: done, total: ids.count, calls: counter.calls))
                start()
            }
        }
        return ids.count
    }

    /// Records what `getInfo` says of photo `id`.
    static func writeDeep(_ id: String, _ rsp: FlickrNode, _ db: Database) throws {
        guard let info = rsp["photo"], var photo = try LibraryPhoto.fetchOne(db, key: id) else { return }
        let tags = (info["tags"]?["tag"]?.array ?? []).compactMap { t -> PhotoTag? in
            guard let tid = t["id"]?.string, let author = t["author"]?.string, let raw = t["raw"]?.string else { return nil }
            return PhotoTag(id: tid, author: author, raw: raw)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        photo.raw_tags = String(decoding: try encoder.encode(tags), as: UTF8.self)
        let update = info["dates"]?["lastupdate"]?.int
        // The listing's last_update is the one compared; getInfo's is newer if it changed since.
        if let update, update != photo.last_update { photo.last_update = update }
        photo.deep_update = photo.last_update
        photo.notes = info["notes"]?["note"]?.array.count ?? 0
        photo.people = info["people"]?["haspeople"]?.int ?? 0
        photo.comments = info["comments"]?.int ?? info["comments"]?.text.flatMap { Int($0) } ?? 0
        try photo.save(db)
        try writeTags(photo, db)
    }
}

/// Counts the calls a sync makes (each one that reached the server or failed trying).
final class CallCounter: @unchecked Sendable {
    let client: FlickrClient
    private let lock = NSLock()
    private var count: Int

    init(client: FlickrClient, calls: Int) {
        self.client = client
        count = calls
    }

    var calls: Int { lock.withLock { count } }

    func call(_ method: String, _ arguments: [String: String]) async throws -> FlickrNode {
        lock.withLock { count += 1 }
        return try await client.call(method, arguments)
    }
}
