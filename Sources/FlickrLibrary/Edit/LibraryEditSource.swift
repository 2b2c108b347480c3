import FlickrAPI
import FlickrJobs
import FlickrProtocol
import Foundation
import GRDB

/// The library as an edit plan's source: an incremental sync first, then the selection by
/// `flickr find`'s keys and each photo's pre-image from the mirror — title, description, date
/// taken, privacy, licence, location, sets, and the raw tags when a deep sync keeps them current —
/// so that a plan over a synced library costs only the sync. What an edit wrote is recorded back.
public struct LibraryEditSource: EditSource {
    public let store: LibraryStore
    public let client: FlickrClient

    public init(store: LibraryStore, client: FlickrClient) {
        self.store = store
        self.client = client
    }

    public var account: String { store.account }

    /// The source for `client`'s endpoint: the library a sync of it wrote, or nil.
    public static func synced(for client: FlickrClient, environment: [String: String]) -> LibraryEditSource? {
        LibraryRetagSource.synced(for: client, environment: environment).map { LibraryEditSource(store: $0.store, client: client) }
    }

    public func refresh() async throws -> Int {
        var sync = LibrarySync(client: client, store: store)
        sync.deep = ((try? store.status().deep) ?? 0) > 0
        return try await sync.run().calls
    }

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
