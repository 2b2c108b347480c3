import FlickrAPI
import FlickrJobs
@testable import FlickrLibrary
import FlickrProtocol
import FlickrTestSupport
import Foundation
import Testing

/// A page of ``LibraryStore/page(_:after:max:into:)`` as field name → value per photo.
struct PageCollector: LibraryPageReader {
    var photos: [[String: LibraryValue]] = []
    var current = 0

    mutating func photo(_ n: Int) {
        current = n
        if n == photos.count { photos.append([:]) }
    }

    mutating func field(_ name: Int, _ value: LibraryValue) {
        photos[current][LibraryRecord.fieldNames[name]] = value
    }

    /// Every photo of `filter`, `size` at a time (a different size for each page), the limit
    /// counted across pages as flickr.library.photos counts it; `between` runs after each page.
    static func all(_ store: LibraryStore, _ filter: LibraryFilter, sizes: () -> Int,
                    between: (Int) throws -> Void = { _ in }) throws -> [[String: LibraryValue]] {
        var out: [[String: LibraryValue]] = []
        var key: LibraryPageKey?
        var unlimited = filter
        unlimited.limit = nil
        repeat {
            var page = PageCollector()
            let size = min(sizes(), (filter.limit ?? .max) - out.count)
            key = try store.page(unlimited, after: key, max: size, into: &page)
            out += page.photos
            try between(out.count)
        } while key != nil
        return out
    }

    static func fields(_ r: LibraryRecord) -> [String: LibraryValue] {
        Dictionary(uniqueKeysWithValues: LibraryRecord.fieldNames.compactMap { n in r.value(n).map { (n, $0) } })
    }
}

extension LibraryQueryTests {
    @Test("Pages in the filter's order (keyset: the order value and id of the page before) give exactly what ids + records give, for 100 random filters, pages of 1 to 60 photos, deep raw tags, NULL views, dates taken and dates uploaded, and ties between ids of different lengths")
    func pagesEqualRecords() async throws {
        let world = LibraryWorld(count: 500, seed: "library-pages")
        try await world.serve { server, alice, env, log in
            let store = try LibrarySyncTests.store(env)
            _ = try await LibrarySyncTests.sync(alice, store, log: log, deep: true)
            // NULLs in the order columns: SQLite sorts them first ascending, last descending.
            try store.write { db in
                try db.execute(sql: "UPDATE photo SET views = NULL WHERE CAST(id AS INTEGER) % 7 = 0")
                try db.execute(sql: "UPDATE photo SET date_taken = NULL WHERE CAST(id AS INTEGER) % 11 = 0")
                try db.execute(sql: "UPDATE photo SET date_upload = NULL WHERE CAST(id AS INTEGER) % 13 = 0")
                try db.execute(sql: "UPDATE photo SET last_update = 1500000000 WHERE CAST(id AS INTEGER) % 5 = 0")
                // Copies of one photo under ids of other lengths, tied with it in every order:
                // ids break ties as numbers (7 < 98 < 12345 < the world's), as find orders them.
                let original = try String.fetchOne(db, sql: "SELECT id FROM photo ORDER BY id LIMIT 1")!
                for id in ["12345", "7", "98"] {
                    try db.execute(sql: "CREATE TEMP TABLE copy AS SELECT * FROM photo WHERE id = ?", arguments: [original])
                    try db.execute(sql: "UPDATE copy SET id = ?", arguments: [id])
                    try db.execute(sql: "INSERT INTO photo SELECT * FROM copy; DROP TABLE copy")
                }
            }
            let sets = try store.sets().map { (id: $0.id, title: $0.title) }
            let machine = Array(Set(world.photos.flatMap { $0.tags.filter(TagString.isMachineTag).map(TagString.clean) })).sorted()
            var random = TestRandom("library-pages-filters")
            var orders = Set<String>()
            for n in 0..<100 {
                var (given, _, order, _) = Self.randomFilter(&random, sets: sets, machine: machine)
                // Every order, both ways, often.
                if n % 2 == 0 {
                    let o = ["taken", "uploaded", "updated", "views"].randomElement(using: &random)!
                    given["order"] = .text(Bool.random(using: &random) ? "-" + o : o)
                }
                orders.insert(given["order"].map { "\($0)" } ?? order ?? "")
                let filter = try LibraryFilter(given)
                let expected = try store.records(try store.ids(filter)).map(PageCollector.fields)
                let paged = try PageCollector.all(store, filter, sizes: { Int.random(in: 1...60, using: &random) })
                #expect(paged == expected, "filter \(n) \(given): \(paged.count) photos paged, \(expected.count) expected; first ids \(paged.prefix(3).map { $0["id"] }) vs \(expected.prefix(3).map { $0["id"] })")
            }
            #expect(orders.count >= 8, "\(orders)")
        }
    }

    @Test("A photo deleted between two pages is left out and moves no other photo (the page after is found by key, not by position)")
    func deletedBetweenPages() async throws {
        let world = LibraryWorld(count: 60, seed: "library-pages-deleted")
        try await world.serve { server, alice, env, log in
            let store = try LibrarySyncTests.store(env)
            _ = try await LibrarySyncTests.sync(alice, store, log: log)
            for order in ["uploaded", "-views", "taken"] {
                let filter = try LibraryFilter(["order": .text(order)])
                let all = try store.ids(filter)
                // After the first page of 10: one photo of the next page and one of the first
                // marked deleted (as a sync does), then one of a later page.
                let gone = [all[13], all[42]]
                let paged = try PageCollector.all(store, filter, sizes: { 10 }) { done in
                    try store.write { db in
                        if done == 10 { try db.execute(sql: "UPDATE photo SET deleted = 1 WHERE id IN (?, ?)", arguments: [all[13], all[2]]) }
                        if done == 30 { try db.execute(sql: "UPDATE photo SET deleted = 1 WHERE id = ?", arguments: [all[42]]) }
                    }
                }
                #expect(paged.map { $0["id"] } == all.filter { !gone.contains($0) }.map { LibraryValue.string($0) }, "order=\(order)")
                try store.write { db in try db.execute(sql: "UPDATE photo SET deleted = NULL") }
            }
        }
    }
}

extension LibraryCommandTests {
    @Test("flickr.library.photos in Lua over several pages: a photo deleted on Flickr and synced away while the loop runs is left out, every other photo given once in order; limit counts across pages")
    func luaPagesSkipADeletedPhoto() async throws {
        let world = LibraryWorld(count: 1_300, seed: "library-lua-pages")
        try await world.serve { server, _, env, _ in
            let sync = try await Self.flickr(["sync"], env)
            try #require(sync.status == 0, "\(sync.stderr)")
            let store = try LibraryWorld.store(env)
            let all = try store.ids(LibraryFilter(["order": .text("uploaded")]))
            // On the second page (the first has 1,000): deleted on Flickr now, in the mirror
            // only when the loop's own sync has run, after the first page was read.
            let deleter = LibraryWorld.client(server.credentials, url: server.url, token: LibraryWorld.deleteToken)
            _ = try await deleter.call("flickr.photos.delete", ["photo_id": all[1_100]])
            let lua = """
                local ids = {}
                for p in flickr.library.photos{ order = 'uploaded' } do
                  ids[#ids + 1] = p.id
                  if #ids == 1 then assert(flickr.library.sync{ full = true }.deleted == 1) end
                end
                local limited = 0
                for _ in flickr.library.photos{ order = '-uploaded', limit = 1100 } do limited = limited + 1 end
                print(#ids, limited, table.concat(ids, ','))
                """
            let ran = try await Self.flickr(["-e", lua], env)
            let fields = ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\t").map(String.init)
            #expect(fields.count == 3 && fields[0] == "1299" && fields[1] == "1100", "\(ran.stdout.prefix(100)) \(ran.stderr)")
            #expect(fields.last == all.filter { $0 != all[1_100] }.joined(separator: ","), "\(ran.stderr)")
        }
    }
}
