import FlickrAPI
import FlickrJobs
import FlickrProtocol
import Foundation
import GRDB

/// The library as the retag planner's source: an incremental sync first, then the selection
/// and the raw tags from the mirror (deep) — a plan over N photos then costs the sync's few
/// calls, not a `getInfo` per photo — and the runner's writes recorded back.
public struct LibraryRetagSource: RetagSource {
    public let store: LibraryStore
    public let client: FlickrClient
    /// Refresh with `getInfo` for photos changed since (keeps the raw tags current).
    public var deep = true

    public init(store: LibraryStore, client: FlickrClient) {
        self.store = store
        self.client = client
    }

    public var account: String { store.account }

    /// The source for jobs of `client`'s endpoint: the library a sync of that endpoint wrote,
    /// or nil when there is none (then jobs read Flickr, as without a library).
    public static func synced(for client: FlickrClient, environment: [String: String]) -> LibraryRetagSource? {
        let dir = LibraryStore.directory(environment: environment)
        guard let nsid = LibraryStore.accounts(in: dir)[client.context.endpoints.rest],
              FileManager.default.fileExists(atPath: LibraryStore.path(for: nsid, in: dir)),
              let store = try? LibraryStore(path: LibraryStore.path(for: nsid, in: dir), account: nsid),
              (try? store.status().lastSync) != nil else { return nil }
        return LibraryRetagSource(store: store, client: client)
    }

    public func refresh() async throws -> Int {
        var sync = LibrarySync(client: client, store: store)
        // Only a library that was synced deep keeps its raw tags current.
        sync.deep = deep && ((try? store.status().deep) ?? 0) > 0
        return try await sync.run().calls
    }

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
}
