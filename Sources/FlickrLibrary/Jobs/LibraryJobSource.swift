import FlickrAPI
import FlickrJobs
import FlickrProtocol
import Foundation
import GRDB

/// The library as every job's source: an incremental sync first, then the selection and each
/// photo's pre-image from the mirror — for a retag its raw tags (deep), for an edit the title,
/// description, date taken, privacy, licence, location, sets, and the raw tags when a deep sync
/// keeps them current — so that a plan over a synced library costs the sync's few calls, not a
/// `getInfo` per photo. What a job wrote is recorded back.
public struct LibraryJobSource: JobSource {
    public let store: LibraryStore
    public let client: FlickrClient

    public init(store: LibraryStore, client: FlickrClient) {
        self.store = store
        self.client = client
    }

    public var account: String { store.account }

    /// The source for jobs of `client`'s endpoint: the library a sync of that endpoint wrote,
    /// or nil when there is none (then jobs read Flickr, as without a library).
    public static func synced(for client: FlickrClient, environment: [String: String]) -> LibraryJobSource? {
        let dir = LibraryStore.directory(environment: environment)
        guard let nsid = LibraryStore.accounts(in: dir)[client.context.endpoints.rest],
              FileManager.default.fileExists(atPath: LibraryStore.path(for: nsid, in: dir)),
              let store = try? LibraryStore(path: LibraryStore.path(for: nsid, in: dir), account: nsid),
              (try? store.status().lastSync) != nil else { return nil }
        return LibraryJobSource(store: store, client: client)
    }

    /// The source for jobs of `client`'s account, its library opened (made when there is none:
    /// the first ``refresh()`` is then a first sync) and remembered for the endpoint.
    public static func opened(for client: FlickrClient, environment: [String: String]) async throws -> LibraryJobSource {
        let nsid = try await LibrarySync.account(of: client)
        let store = try LibraryStore(path: LibraryStore.path(for: nsid, in: LibraryStore.directory(environment: environment)), account: nsid)
        LibraryStore.remember(nsid, endpoint: client.context.endpoints.rest, environment: environment)
        return LibraryJobSource(store: store, client: client)
    }

    public func refresh() async throws -> Int {
        var sync = LibrarySync(client: client, store: store)
        // Only a library that was synced deep keeps its raw tags current.
        sync.deep = ((try? store.status().deep) ?? 0) > 0
        return try await sync.run().calls
    }

    // MARK: - Retag

    /// Retag's `--query` keys the mirror answers exactly: none (every photo), `tags` with
    /// `tag_mode`, `machine_tags` (one), `photoset_id`, `media`. Others go to Flickr.
    public func photos(query: [String: String]) throws -> [ListedPhoto]? {
        var given: [String: LibraryFilter.Value] = [:]
        for (key, value) in query {
            switch key {
            case "tags": given[query["tag_mode"] == "all" ? "tags" : "any_tags"] = .text(value)
            case "tag_mode": continue
            case "machine_tags" where !value.contains(","): given["machine_tags"] = .text(value)
            case "photoset_id": given["set"] = .text(value)
            case "media" where value == "photos" || value == "videos": given["media"] = .text(String(value.dropLast()))
            case "media" where value == "all": continue
            default: return nil
            }
        }
        let ids = try store.ids(LibraryFilter(given))
        return try store.read { db in
            var tags: [String: Set<String>] = [:]
            var updates: [String: Int] = [:]
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let part = Array(ids[chunk..<min(ids.count, chunk + 500)])
                let marks = LibraryFilter.marks(part.count)
                for row in try Row.fetchAll(db, sql: "SELECT photo, clean FROM photo_tag WHERE photo IN (\(marks))", arguments: StatementArguments(part)) {
                    tags[row[0], default: []].insert(row[1])
                }
                for row in try Row.fetchAll(db, sql: "SELECT id, last_update FROM photo WHERE id IN (\(marks))", arguments: StatementArguments(part)) {
                    updates[row[0]] = row[1]
                }
            }
            return ids.map { ListedPhoto(id: $0, cleanTags: tags[$0] ?? [], lastUpdate: updates[$0] ?? 0) }
        }
    }

    public func tags(of ids: [String]) throws -> [String: PhotoTags] {
        var out: [String: PhotoTags] = [:]
        for record in try store.records(ids) {
            if let tags = record.photo.photoTags { out[record.photo.id] = tags }
        }
        return out
    }

    /// The owner's tags become `tags` (raw); other members' tags stay. The raw tags are no
    /// longer "current" (the new tags' ids and the photo's lastupdate are Flickr's to say): the
    /// next deep sync reads the photo again.
    public func wrote(photo id: String, tags: [String]) throws {
        try store.write { db in
            guard var photo = try LibraryPhoto.fetchOne(db, key: id) else { return }
            let others = (photo.rawTags ?? []).filter { $0.author != photo.owner }
            let all = tags.map { PhotoTag(id: "", author: photo.owner, raw: $0) } + others
            let plain = all.map(\.raw).filter { !TagString.isMachineTag($0) }.map(TagString.clean)
            let machine = all.map(\.raw).filter(TagString.isMachineTag).map(TagString.clean)
            photo.tags = plain.joined(separator: " ")
            photo.machine_tags = machine.joined(separator: " ")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            photo.raw_tags = String(decoding: try encoder.encode(all), as: UTF8.self)
            // Written by us: current until Flickr's lastupdate moves past it.
            photo.deep_update = photo.last_update
            try photo.save(db)
            try LibrarySync.writeTags(photo, db)
        }
    }

    // MARK: - Edit

    /// `flickr find`'s keys (`untagged` and `has_geo` take `true`/`false`); a bad key or value
    /// is the filter's usage error.
    public func ids(find: [String: String]) throws -> [String] {
        let filter: LibraryFilter
        do {
            filter = try LibraryFilter(find.mapValues { LibraryFilter.Value.text($0) })
        } catch {
            throw EditSpecError("--find: \(error.message)")
        }
        return try store.ids(filter)
    }

    public func metadata(of ids: [String]) throws -> [String: (metadata: PhotoMetadata, fields: [String: String], rawTagsCurrent: Bool)] {
        var out: [String: (metadata: PhotoMetadata, fields: [String: String], rawTagsCurrent: Bool)] = [:]
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            for record in try store.records(ids[start..<min(ids.count, start + 1_000)]) {
                let p = record.photo
                let raw = p.rawTags
                let geo = p.latitude.flatMap { lat in p.longitude.map { GeoPoint(latitude: lat, longitude: $0, accuracy: p.accuracy ?? 16) } }
                let m = PhotoMetadata(photoID: p.id, owner: p.owner, lastUpdate: p.last_update ?? 0, title: p.title, description: p.description,
                                      dateTaken: p.date_taken ?? "", takenGranularity: p.date_taken_granularity ?? 0,
                                      privacy: Privacy(isPublic: p.ispublic == 1, isFriend: p.isfriend == 1, isFamily: p.isfamily == 1),
                                      license: Int(p.license ?? "0") ?? 0, geo: geo, sets: record.sets, tags: raw ?? [])
                var fields = EditPlanner.fields(m, info: nil)
                fields["date_upload"] = p.date_upload.map(String.init)
                fields["views"] = p.views.map(String.init)
                fields["media"] = p.media
                fields["original_format"] = p.original_format
                fields["tags"] = record.tags.joined(separator: " ")
                fields["machine_tags"] = record.machineTags.joined(separator: " ")
                out[p.id] = (m, fields, raw != nil)
            }
        }
        return out
    }

    /// The photo's row takes what the edit wrote; its `last_update` is Flickr's to say, so the
    /// next sync reads it again (recentlyUpdated lists it).
    public func wrote(_ m: PhotoMetadata) throws {
        try store.write { db in
            guard var photo = try LibraryPhoto.fetchOne(db, key: m.photoID) else { return }
            photo.title = m.title
            photo.description = m.description
            photo.date_taken = m.dateTaken
            photo.date_taken_granularity = m.takenGranularity
            (photo.ispublic, photo.isfriend, photo.isfamily) = (m.privacy.isPublic ? 1 : 0, m.privacy.isFriend ? 1 : 0, m.privacy.isFamily ? 1 : 0)
            photo.license = String(m.license)
            (photo.latitude, photo.longitude, photo.accuracy) = (m.geo?.latitude, m.geo?.longitude, m.geo?.accuracy)
            try photo.save(db)
            if let sets = m.sets {
                let before = Set(try String.fetchAll(db, sql: "SELECT photoset FROM set_photo WHERE photo = ?", arguments: [m.photoID]))
                for gone in before.subtracting(sets) {
                    try db.execute(sql: "DELETE FROM set_photo WHERE photoset = ? AND photo = ?", arguments: [gone, m.photoID])
                }
                for joined in Set(sets).subtracting(before) {
                    // A set apply created is not in the library until the next sync lists it.
                    try db.execute(sql: """
                        INSERT OR IGNORE INTO set_photo (photoset, photo, position)
                        SELECT ?, ?, (SELECT COALESCE(MAX(position), -1) + 1 FROM set_photo WHERE photoset = ?)
                        WHERE EXISTS (SELECT 1 FROM photoset WHERE id = ?)
                        """, arguments: [joined, m.photoID, joined, joined])
                }
            }
        }
    }
}
