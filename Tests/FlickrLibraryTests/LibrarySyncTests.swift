import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
@testable import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// The mirror (`LibrarySync`) against an in-process sandbox: equal to the world field by field,
/// at the calls the issue allows (counted in the sandbox's access log), after edits, deletions,
/// uploads and set changes, deep, and never deleting on a failed listing.
@Suite("Library sync: the mirror equals the world, at its call count", .timeLimit(.minutes(6)), .tags(.integration, .heavy))
struct LibrarySyncTests {
    /// Alice's library in the environment's data folder.
    static func store(_ env: [String: String]) throws -> LibraryStore {
        try LibraryStore(path: LibraryStore.path(for: LibraryWorld.alice, in: LibraryStore.directory(environment: env)), account: LibraryWorld.alice)
    }

    /// One sync; its summary and the API calls the access log shows for it.
    static func sync(_ client: FlickrClient, _ store: LibraryStore, log: URL, deep: Bool = false,
                     full: Bool = false) async throws -> (LibrarySync.Summary, Int) {
        var sync = LibrarySync(client: client, store: store)
        sync.deep = deep
        sync.full = full
        let (summary, calls) = try await LibraryWorld.counting(log) { try await sync.run() }
        #expect(summary.calls == calls, "the summary counts \(summary.calls) calls, the log \(calls)")
        return (summary, calls)
    }

    static func ceil500(_ n: Int) -> Int { (n + 499) / 500 }

    @Test("First sync of 6,000 photos (past the 4,000 search cap): the mirror equals the world field by field, sets with their order, in ≤ ⌈P/500⌉ + 1 + Σ⌈set/500⌉ + 10 calls; then nothing changed costs ≤ 5")
    func firstSyncOf6000() async throws {
        let world = LibraryWorld(count: 6_000, seed: "library-first-sync")
        try await world.serve { server, alice, env, log in
            let store = try Self.store(env)
            let (summary, calls) = try await Self.sync(alice, store, log: log)
            let bound = Self.ceil500(6_000) + 1 + world.sets.map { Self.ceil500($0.photos.count) }.reduce(0, +) + 10
            print("library: first sync of 6,000 photos: \(calls) calls (bound \(bound))")
            #expect(calls <= bound, "first sync: \(calls) calls, bound \(bound)")
            #expect(summary.kind == "first" && summary.added == 6_000 && summary.photos == 6_000 && summary.deleted == 0, "\(summary)")
            let differences = try LibraryWorld.differences(store, server)
            #expect(differences.isEmpty, "\(differences.prefix(20))")
            // The seed's own truth too (not only the sandbox's rendering of it).
            let records = Dictionary(uniqueKeysWithValues: try store.records(try store.ids(LibraryFilter([:]))).map { ($0.photo.id, $0) })
            for seed in world.photos {
                let r = try #require(records[seed.id])
                #expect(r.photo.title == seed.title && r.photo.date_taken == seed.taken && r.photo.views == seed.views
                        && Set(r.tags.map(TagString.clean)) == seed.cleanTags && Set(r.machineTags.map(TagString.clean)) == seed.cleanMachineTags,
                        "photo \(seed.id)")
                if r.photo.title != seed.title { break }
            }
            #expect(try store.sets().map(\.members) == world.sets.map(\.photos))
            #expect(try LibraryWorld.integrity(store) == "ok")

            let (again, quiet) = try await Self.sync(alice, store, log: log)
            print("library: a sync with nothing changed: \(quiet) calls")
            #expect(quiet <= 5 && again.kind == "incremental" && again.added + again.updated + again.deleted + again.sets == 0, "\(again), \(quiet) calls")
        }
    }

    /// Edits through the API: titles, descriptions, tags, privacy, licence, geo, dates; set
    /// changes. Returns the ids of the photos changed.
    static func edit(_ alice: FlickrClient, _ ids: [String], random: inout TestRandom) async throws -> Set<String> {
        var changed = Set<String>()
        let picked = ids.shuffled(using: &random)
        for id in picked[0..<12] {
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": id, "title": "Edited \(id)", "description": "now with a <b>description</b> & more"])
            changed.insert(id)
        }
        for id in picked[12..<22] {
            _ = try await alice.call("flickr.photos.setTags", ["photo_id": id, "tags": "edited \"New Tag\" camera:make=Leica"])
            changed.insert(id)
        }
        for id in picked[22..<28] {
            _ = try await alice.call("flickr.photos.addTags", ["photo_id": id, "tags": "added"])
            changed.insert(id)
        }
        for (n, id) in picked[28..<36].enumerated() {
            _ = try await alice.call("flickr.photos.setPerms", ["photo_id": id, "is_public": n % 2 == 0 ? "1" : "0", "is_friend": n % 3 == 0 ? "1" : "0",
                                                               "is_family": n % 4 == 0 ? "1" : "0", "perm_comment": "3", "perm_addmeta": "2"])
            changed.insert(id)
        }
        for id in picked[36..<40] {
            _ = try await alice.call("flickr.photos.geo.setLocation", ["photo_id": id, "lat": "38.7139", "lon": "-9.1334", "accuracy": "11"])
            changed.insert(id)
        }
        for id in picked[40..<44] {
            _ = try await alice.call("flickr.photos.licenses.setLicense", ["photo_id": id, "license_id": "4"])
            changed.insert(id)
        }
        for id in picked[44..<47] {
            _ = try await alice.call("flickr.photos.setDates", ["photo_id": id, "date_taken": "2019-03-14 15:09:26"])
            changed.insert(id)
        }
        return changed
    }

    @Test("After edits, set changes, deletions and uploads through the API, one incremental sync is exact at ⌈changed/500⌉ + few calls; deletions are found by people.getInfo's count, also a deletion offset by an upload")
    func incrementalIsExact() async throws {
        let world = LibraryWorld(count: 2_000, seed: "library-incremental")
        try await world.serve { server, alice, env, log in
            let store = try Self.store(env)
            let deleter = LibraryWorld.client(server.credentials, url: server.url, token: LibraryWorld.deleteToken)
            _ = try await Self.sync(alice, store, log: log)
            var random = TestRandom("library-incremental")

            // 1. Photo edits only: recentlyUpdated, the count check, getList.
            let changed = try await Self.edit(alice, world.photos.map(\.id), random: &random)
            let (edited, editCalls) = try await Self.sync(alice, store, log: log)
            print("library: incremental after \(changed.count) edits: \(editCalls) calls")
            #expect(editCalls <= Self.ceil500(changed.count) + 4, "\(editCalls) calls for \(changed.count) changed photos")
            #expect(edited.updated == changed.count && edited.added == 0 && edited.deleted == 0, "\(edited)")
            var differences = try LibraryWorld.differences(store, server)
            #expect(differences.isEmpty, "after edits: \(differences.prefix(20))")

            // 2. Set changes: only the changed sets are read again.
            let sets = world.sets
            _ = try await alice.call("flickr.photosets.addPhoto", ["photoset_id": sets[1].id, "photo_id": world.photos[2].id])
            _ = try await alice.call("flickr.photosets.removePhoto", ["photoset_id": sets[2].id, "photo_id": sets[2].photos[0]])
            let reordered = Array(sets[3].photos.reversed())
            _ = try await alice.call("flickr.photosets.reorderPhotos", ["photoset_id": sets[3].id, "photo_ids": reordered.joined(separator: ",")])
            _ = try await alice.call("flickr.photosets.editMeta", ["photoset_id": sets[4].id, "title": "Renamed", "description": "A new description"])
            _ = try await alice.call("flickr.photosets.delete", ["photoset_id": sets[5].id])
            _ = try await alice.call("flickr.photosets.create", ["title": "Brand new", "primary_photo_id": world.photos[7].id])
            let order = ([sets[6].id, sets[0].id] + sets.map(\.id)).reduce(into: [String]()) { if !$0.contains($1) && $1 != sets[5].id { $0.append($1) } }
            _ = try await alice.call("flickr.photosets.orderSets", ["photoset_ids": order.joined(separator: ",")])
            let (setSync, setCalls) = try await Self.sync(alice, store, log: log)
            // recentlyUpdated + getInfo + getList, then the members of sets 1–4 and the new one.
            print("library: incremental after set changes: \(setCalls) calls")
            #expect(setCalls <= 3 + 5 + 2, "\(setCalls) calls, \(setSync)")
            differences = try LibraryWorld.differences(store, server)
            #expect(differences.isEmpty, "after set changes: \(differences.prefix(20))")

            // 3. Deletions and uploads, one of them a deletion offset by an upload.
            let victims = [world.photos[10].id, world.photos[11].id]
            // The sets that lose a photo change too (their members are read again).
            let touched = server.engine.store.read { (s: SandboxState) in
                s.photosets.filter { $0.photos.contains(where: victims.contains) }.map { Self.ceil500($0.photos.count) }.reduce(0, +)
            }
            for id in victims {
                _ = try await deleter.call("flickr.photos.delete", ["photo_id": id])
            }
            let (gone, goneCalls) = try await Self.sync(alice, store, log: log)
            let goneBound = 3 + Self.ceil500(2_000) + touched + 2
            print("library: incremental after 2 deletions: \(goneCalls) calls (bound \(goneBound))")
            #expect(gone.deleted == 2 && goneCalls <= goneBound, "\(gone), \(goneCalls) calls")
            _ = try await deleter.call("flickr.photos.delete", ["photo_id": world.photos[12].id])
            let upload = try await alice.upload(.bytes([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 200), filename: "new.jpg"),
                                                arguments: ["title": "Uploaded", "tags": "fresh \"new upload\""])
            let uploaded = try #require(upload.photoID)
            let (offset, _) = try await Self.sync(alice, store, log: log)
            #expect(offset.deleted == 1 && offset.added == 1, "a deletion offset by an upload: \(offset)")
            #expect(try store.ids(LibraryFilter(["tags": .text("fresh")])) == [uploaded])
            differences = try LibraryWorld.differences(store, server)
            #expect(differences.isEmpty, "after deletions and uploads: \(differences.prefix(20))")
            #expect(try store.status().deleted == 3)

            // Nothing changed since (the sets read more than a second ago): ≤ 5 calls.
            let (_, quiet) = try await Self.sync(alice, store, log: log, deep: false)
            #expect(quiet <= 5 + 5, "\(quiet) calls with nothing changed")
            #expect(try LibraryWorld.integrity(store) == "ok")
        }
    }

    @Test("--deep: the raw tags with author and id equal getInfo's (alice's and bob's); a later deep sync reads getInfo only for the photos that changed")
    func deepRawTags() async throws {
        let world = LibraryWorld(count: 400, seed: "library-deep")
        try await world.serve { server, alice, env, log in
            let bob = LibraryWorld.client(server.credentials, url: server.url, token: LibraryWorld.bobToken)
            let publicPhotos = world.photos.filter { $0.isPublic == 1 }.map(\.id)
            for id in publicPhotos.prefix(15) { _ = try await bob.call("flickr.photos.addTags", ["photo_id": id, "tags": "\"Bob's view\" tram"]) }
            let store = try Self.store(env)
            let (first, calls) = try await Self.sync(alice, store, log: log, deep: true)
            #expect(first.deep == 400 && calls <= 400 + 1 + 1 + 7 + 10, "\(first), \(calls) calls")
            var differences = try LibraryWorld.differences(store, server, deep: true)
            #expect(differences.isEmpty, "\(differences.prefix(20))")
            let withBob = try #require(try store.records([publicPhotos[0]]).first?.photo.rawTags)
            #expect(withBob.contains { $0.raw == "Bob's view" && $0.author != LibraryWorld.alice }, "\(withBob)")

            var random = TestRandom("library-deep")
            let changed = try await Self.edit(alice, world.photos.map(\.id), random: &random)
            let before = LibraryWorld.calls(in: log).filter { $0 == "flickr.photos.getInfo" }.count
            let (again, _) = try await Self.sync(alice, store, log: log, deep: true)
            let infos = LibraryWorld.calls(in: log).filter { $0 == "flickr.photos.getInfo" }.count - before
            #expect(infos == changed.count && again.deep == changed.count, "getInfo \(infos) times for \(changed.count) changed photos")
            differences = try LibraryWorld.differences(store, server, deep: true)
            #expect(differences.isEmpty, "\(differences.prefix(20))")
        }
    }

    @Test("A deep mirror keeps its raw tags through an unrelated edit (a title): a plain sync reads no getInfo and the raw forms stay; a tag change is read again by a plain sync, one getInfo for that photo")
    func rawTagsSurviveUnrelatedEdits() async throws {
        var world = LibraryWorld(count: 20, seed: "library-raw-kept")
        world.photos[0].tags = ["Old Town", "Reykjavík"]
        try await world.serve { _, alice, env, log in
            let store = try Self.store(env)
            _ = try await Self.sync(alice, store, log: log, deep: true)
            let id = world.photos[0].id
            #expect(try store.records([id]).first?.tags == ["Old Town", "Reykjavík"])
            func infos() -> Int { LibraryWorld.calls(in: log).filter { $0 == "flickr.photos.getInfo" }.count }
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": id, "title": "Renamed", "description": ""])
            let before = infos()
            _ = try await Self.sync(alice, store, log: log)
            #expect(infos() == before, "a title edit cost a getInfo")
            let renamed = try #require(try store.records([id]).first)
            #expect(renamed.photo.title == "Renamed" && renamed.tags == ["Old Town", "Reykjavík"] && renamed.photo.rawTags != nil,
                    "\(renamed.tags) \(String(describing: renamed.photo.rawTags))")
            _ = try await alice.call("flickr.photos.addTags", ["photo_id": id, "tags": "\"Þingvellir park\""])
            _ = try await Self.sync(alice, store, log: log)
            #expect(infos() == before + 1, "\(infos() - before) getInfo calls for one photo whose tags changed")
            let tagged = try #require(try store.records([id]).first)
            #expect(tagged.tags == ["Old Town", "Reykjavík", "Þingvellir park"] && tagged.photo.rawTags?.count == 3, "\(tagged.tags)")
        }
    }

    @Test("--deep: a tag the owner and another member both have (another spelling, listed first) gives the owner's raw form; a tag only another member has gives theirs; machine tags the same")
    func ownersRawForms() async throws {
        var world = LibraryWorld(count: 40, seed: "library-raw-forms")
        world.photos[0].tags = ["Café", "old town", "camera:make=Fujifilm"]
        world.photos[1].tags = ["Reykjavík"]
        try await world.serve { server, alice, env, log in
            let (a, b) = (world.photos[0].id, world.photos[1].id)
            // Bob's spellings of alice's tags, listed before hers (Flickr keeps each member's tag).
            server.engine.store.update { (s: inout SandboxState) in
                let bob = s.user(named: "bob")!
                let early = [s.makeTag(raw: "CAFÉ!", author: bob, photoID: a), s.makeTag(raw: "Old-Town", author: bob, photoID: a),
                             s.makeTag(raw: "CAMERA:MAKE=FUJIFILM", author: bob, photoID: a)]
                s.photos[a]!.tags.insert(contentsOf: early, at: 0)
                s.photos[a]!.tags.append(s.makeTag(raw: "Bob's view", author: bob, photoID: a))
                s.photos[b]!.tags.insert(s.makeTag(raw: "REYKJAVÍK", author: bob, photoID: b), at: 0)
            }
            let store = try Self.store(env)
            _ = try await Self.sync(alice, store, log: log, deep: true)
            let records = try store.records([a, b])
            #expect(records.count == 2)
            #expect(records.first?.tags == ["Café", "old town", "Bob's view"], "\(records.first?.tags ?? [])")
            #expect(records.first?.machineTags == ["camera:make=Fujifilm"], "\(records.first?.machineTags ?? [])")
            #expect(records.last?.tags == ["Reykjavík"], "\(records.last?.tags ?? [])")
            let differences = try LibraryWorld.differences(store, server, deep: true)
            #expect(differences.isEmpty, "\(differences.prefix(10))")
        }
    }

    @Test("A listing that fails midway (5xx, a truncated answer, error 105) marks nothing deleted and keeps what it wrote; the next sync is exact")
    func failedListingDeletesNothing() async throws {
        let world = LibraryWorld(count: 2_000, seed: "library-fault")
        try await world.serve { server, alice, env, log in
            let store = try Self.store(env)
            _ = try await Self.sync(alice, store, log: log)
            let deleter = LibraryWorld.client(server.credentials, url: server.url, token: LibraryWorld.deleteToken)
            let once = LibraryWorld.client(server.credentials, url: server.url, attempts: 1)
            for (round, kind) in [FaultKind.serverError, .truncate, .unavailable].enumerated() {
                let victim = world.photos[100 + round].id
                _ = try await deleter.call("flickr.photos.delete", ["photo_id": victim])
                for full in [false, true] {
                    var sync = LibrarySync(client: once, store: store)
                    sync.full = full
                    // After the second page of the listing, every answer fails.
                    let engine = server.engine
                    do {
                        _ = try await sync.run { p in
                            if p.phase == "photos", p.done >= 1_000 { engine.controls.faults = FaultSpec(probabilities: [kind: 1]) }
                        }
                        Issue.record("\(kind): the sync succeeded through the fault")
                    } catch {}
                    engine.controls.faults = .none
                    let status = try store.status()
                    let live = try store.ids(LibraryFilter([:]))
                    #expect(status.deleted == round && live.contains(victim), "\(kind), full \(full): \(status)")
                }
                let (summary, _) = try await Self.sync(alice, store, log: log)
                #expect(summary.deleted == 1, "\(kind): \(summary)")
                let differences = try LibraryWorld.differences(store, server)
                #expect(differences.isEmpty, "\(kind): \(differences.prefix(10))")
            }
        }
    }

    @Test("A set changed twice within one second, a sync between the two changes: the next sync still reads the second change (date_update counts whole seconds)")
    func sameSecondSetChanges() async throws {
        let world = LibraryWorld(count: 60, seed: "library-same-second")
        try await world.serve { server, alice, env, log in
            let store = try Self.store(env)
            _ = try await Self.sync(alice, store, log: log)
            let set = world.sets[1]
            for round in 0..<4 {
                // Each round starts at the top of a second (the clock under test counts whole
                // seconds), so that a loaded machine still fits the two changes into one.
                let now = Date().timeIntervalSince1970
                try await Task.sleep(for: .milliseconds(Int64((now.rounded(.up) - now) * 1000) + 2))
                // Two orders of the same members: counts stay, only date_update could tell.
                let roundStart = Date()
                let first = Int(roundStart.timeIntervalSince1970)
                _ = try await alice.call("flickr.photosets.reorderPhotos", ["photoset_id": set.id, "photo_ids": set.photos.reversed().joined(separator: ",")])
                _ = try await Self.sync(alice, store, log: log)
                // The sync read the members only once the change's second was over: a second
                // change now moves date_update, and is read.
                #expect(Int(Date().timeIntervalSince1970) > first, "round \(round): the sync ended in the change's second")
                _ = try await alice.call("flickr.photosets.reorderPhotos", ["photoset_id": set.id, "photo_ids": set.photos.joined(separator: ",")])
                _ = try await Self.sync(alice, store, log: log)
                #expect(try store.sets().first { $0.id == set.id }?.members == set.photos, "round \(round)")
                let differences = try LibraryWorld.differences(store, server)
                #expect(differences.isEmpty, "round \(round): \(differences.prefix(5))")
            }
        }
    }

    @Test("Sets changed in the second a sync starts: the next sync with nothing changed reads no set (3 calls), every time")
    func idleAfterSameSecondSetChange() async throws {
        let world = LibraryWorld(count: 60, seed: "library-idle-after-sets")
        try await world.serve { _, alice, env, log in
            let store = try Self.store(env)
            _ = try await Self.sync(alice, store, log: log)
            for round in 0..<3 {
                let now = Date().timeIntervalSince1970  // at the top of a second: the changes and the sync share it
                try await Task.sleep(for: .milliseconds(Int64((now.rounded(.up) - now) * 1000) + 2))
                for set in world.sets.prefix(2) {
                    let order = round % 2 == 0 ? Array(set.photos.reversed()) : set.photos
                    _ = try await alice.call("flickr.photosets.reorderPhotos", ["photoset_id": set.id, "photo_ids": order.joined(separator: ",")])
                }
                let (changed, _) = try await Self.sync(alice, store, log: log)
                #expect(changed.sets == 2, "round \(round): \(changed)")
                let before = LibraryWorld.calls(in: log).count
                let (idle, calls) = try await Self.sync(alice, store, log: log)
                let methods = Array(LibraryWorld.calls(in: log).dropFirst(before))
                #expect(calls == 3 && idle.sets == 0 && !methods.contains("flickr.photosets.getPhotos"), "round \(round): \(methods)")
            }
        }
    }
}
