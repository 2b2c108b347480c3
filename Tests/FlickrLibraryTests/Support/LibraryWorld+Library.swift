import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
@testable import FlickrSandbox
import FlickrTestSupport
import Foundation

extension LibraryWorld {
    /// The library of `env` (the one `flickr sync` wrote), opened by the test.
    static func store(_ env: [String: String]) throws -> LibraryStore {
        try LibraryStore.existing(endpoint: env["FLICKR_ENDPOINT"].map { Endpoints(baseURL: $0).rest } ?? "", environment: env)
    }

    /// Where the mirror differs from the sandbox's world (alice's photos and sets), field by
    /// field; empty when they are equal. `deep`: the raw tags (author, id) must be current and
    /// equal too.
    static func differences(_ store: LibraryStore, _ server: FlickrSandboxServer, deep: Bool = false) throws -> [String] {
        let (photos, sets) = server.engine.store.read { (s: SandboxState) in
            (s.photos.values.filter { $0.owner == alice }.map(\.record), s.photosets.filter { $0.owner == alice })
        }
        let videos = Set(photos.filter { $0.media == "video" }.map(\.id))
        return try differences(store, photos: photos, sets: sets.map {
            WorldSet(id: $0.id, title: $0.title, description: $0.description, primary: $0.primary, members: $0.photos,
                     videos: $0.photos.filter(videos.contains).count)
        }, deep: deep)
    }

    /// A set as the world has it.
    struct WorldSet {
        var id, title, description, primary: String
        var members: [String]
        var videos: Int
    }

    static func differences(_ store: LibraryStore, photos: [SandboxPhotoRecord], sets: [WorldSet], deep: Bool) throws -> [String] {
        var out: [String] = []
        let ids = try store.ids(LibraryFilter([:]))
        let world = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) })
        let missing = Set(world.keys).subtracting(ids), extra = Set(ids).subtracting(world.keys)
        if !missing.isEmpty { out.append("missing from the mirror: \(missing.sorted().prefix(10)) (\(missing.count))") }
        if !extra.isEmpty { out.append("in the mirror, not in the world: \(extra.sorted().prefix(10)) (\(extra.count))") }
        for record in try store.records(ids) {
            guard let w = world[record.photo.id] else { continue }
            out += photoDifferences(record, w, deep: deep)
            if out.count > 30 { return out }
        }
        let mirrored = try store.sets()
        if mirrored.map(\.id) != sets.map(\.id) { out.append("sets: \(mirrored.map(\.id)) != \(sets.map(\.id))") }
        for (m, w) in zip(mirrored, sets) {
            if (m.title, m.description, m.primary ?? "") != (w.title, w.description, w.primary) {
                out.append("set \(w.id): header \((m.title, m.description, m.primary ?? "")) != \((w.title, w.description, w.primary))")
            }
            if m.members != w.members { out.append("set \(w.id): members differ (\(m.members.count) vs \(w.members.count))") }
            if (m.photos, m.videos) != (w.members.count - w.videos, w.videos) { out.append("set \(w.id): counts \((m.photos, m.videos))") }
        }
        // Every membership a record shows is a set's.
        for record in try store.records(ids) {
            let expected = sets.filter { $0.members.contains(record.photo.id) }.map(\.id).sorted()
            if record.sets.sorted() != expected { out.append("photo \(record.photo.id): sets \(record.sets) != \(expected)") }
            if out.count > 30 { break }
        }
        return out
    }

    static func photoDifferences(_ r: LibraryRecord, _ w: SandboxPhotoRecord, deep: Bool) -> [String] {
        let p = r.photo
        var out: [String] = []
        func check<V: Equatable>(_ name: String, _ mirror: V, _ world: V) {
            if mirror != world { out.append("photo \(w.id) \(name): mirror \(mirror), world \(world)") }
        }
        check("owner", p.owner, w.owner)
        check("secret", p.secret, w.secret)
        check("server", p.server, w.server)
        check("title", p.title, w.title)
        check("description", p.description, w.description)
        check("privacy", [p.ispublic, p.isfriend, p.isfamily], [w.isPublic, w.isFriend, w.isFamily].map { $0 ? 1 : 0 })
        check("license", p.license, String(w.license))
        check("date_upload", p.date_upload, w.datePosted)
        check("date_taken", p.date_taken, w.dateTaken)
        check("date_taken_granularity", p.date_taken_granularity, w.takenGranularity)
        check("last_update", p.last_update, w.lastUpdate)
        check("views", p.views, w.views)
        check("media", p.media, w.media)
        // Flickr answers a JPEG still as a video's original.
        check("original_format", p.original_format, w.media == "video" ? "jpg" : w.originalFormat)
        check("original_secret", p.original_secret, w.originalSecret)
        check("o_dims", [p.o_width, p.o_height], [w.width, w.height])
        check("geo", p.latitude == nil, w.geo == nil)
        if let g = w.geo, let lat = p.latitude, let lon = p.longitude {
            if abs(lat - g.latitude) > 1e-6 || abs(lon - g.longitude) > 1e-6 || p.accuracy != g.accuracy {
                out.append("photo \(w.id) geo: mirror \((lat, lon, p.accuracy ?? -1)), world \((g.latitude, g.longitude, g.accuracy))")
            }
        }
        let plain = w.tags.filter { !$0.isMachineTag }, machine = w.tags.filter(\.isMachineTag)
        check("tags", p.tags, plain.map(\.clean).joined(separator: " "))
        check("machine_tags", p.machine_tags, machine.map(\.clean).joined(separator: " "))
        if deep {
            check("raw tags", p.rawTags.map { Set($0) }, Set(w.tags.map { PhotoTag(id: $0.id, author: $0.author, raw: $0.raw) }))
            check("notes", p.notes, w.notes.count)
            check("comments", p.comments, w.comments.count)
            // The record's tags are the raw forms, machine tags apart: one per tag, the owner's
            // where the owner has it, else the member's who added it.
            var forms: [String: String] = [:]
            for t in plain.filter({ $0.author == w.owner }) + plain.filter({ $0.author != w.owner }) where forms[t.clean] == nil {
                forms[t.clean] = t.raw
            }
            check("record tags", r.tags.sorted(), forms.values.sorted())
        } else {
            check("record tags", Set(r.tags.map(TagString.clean)), Set(plain.map(\.clean)))
        }
        check("record machine tags", Set(r.machineTags.map(TagString.clean)), Set(machine.map(\.clean)))
        return out
    }

    /// `PRAGMA integrity_check` of a library.
    static func integrity(_ store: LibraryStore) throws -> String {
        let (_, rows) = try store.sql("PRAGMA integrity_check")
        // A text value's description is quoted.
        return rows.map { $0.map { $0.description.trimmingCharacters(in: ["\""]) }.joined(separator: " ") }.joined(separator: "; ")
    }
}
