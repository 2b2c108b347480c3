import FlickrAPI
import FlickrJobs
@testable import FlickrLibrary
import FlickrProtocol
@testable import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Queries of the mirror (`LibraryFilter`, `LibraryStore`) against a brute-force filter over
/// the world the mirror was synced from.
@Suite("Library queries: equal to a brute-force filter, no call", .timeLimit(.minutes(4)), .tags(.integration, .heavy))
struct LibraryQueryTests {
    /// A photo as the brute force reads it: the sandbox's record and the sets it is in.
    struct Truth {
        var record: SandboxPhotoRecord
        var sets: [(id: String, title: String)]
        var clean: Set<String> { Set(record.tags.map(\.clean)) }
    }

    /// `[from, to)` of a date word or range, as text `YYYY-MM-DD 00:00:00` (computed apart
    /// from the library's own code).
    static func bounds(_ from: String?, _ to: String?) -> (String, String) {
        func lower(_ s: String) -> String {
            let parts = s.split(separator: "-").map(String.init)
            return [parts[0], parts.count > 1 ? parts[1] : "01", parts.count > 2 ? parts[2] : "01"].joined(separator: "-") + " 00:00:00"
        }
        func upper(_ s: String) -> String {
            let p = s.split(separator: "-").compactMap { Int($0) }
            var c = Calendar(identifier: .gregorian)
            c.timeZone = TimeZone(identifier: "UTC")!
            let start = c.date(from: DateComponents(year: p[0], month: p.count > 1 ? p[1] : 1, day: p.count > 2 ? p[2] : 1))!
            let next = c.date(byAdding: p.count == 1 ? .year : p.count == 2 ? .month : .day, value: 1, to: start)!
            let d = c.dateComponents([.year, .month, .day], from: next)
            return String(format: "%04d-%02d-%02d 00:00:00", d.year!, d.month!, d.day!)
        }
        return (from.map(lower) ?? "0000-01-01 00:00:00", to.map(upper) ?? "9999-12-31 00:00:00")
    }

    static func unix(_ text: String) -> Int {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return Int(f.date(from: text)?.timeIntervalSince1970 ?? 0)
    }

    /// A date value: the filter's form and the brute force's [from, to).
    static func dateValue(_ random: inout TestRandom) -> (LibraryFilter.Value, (String, String)) {
        let year = Int.random(in: 2015...2019, using: &random)
        let month = Int.random(in: 1...12, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return (.text("\(year)"), bounds("\(year)", "\(year)"))
        case 1:
            let m = String(format: "%04d-%02d", year, month)
            return (.text(m), bounds(m, m))
        case 2:
            let a = String(format: "%04d-%02d-%02d", year, month, Int.random(in: 1...28, using: &random))
            let b = String(format: "%04d-%02d-%02d", year + 1, month, Int.random(in: 1...28, using: &random))
            return (.text("\(a)..\(b)"), bounds(a, b))
        case 3:
            let a = String(format: "%04d-%02d", year, month)
            return (.range(from: a, to: nil), bounds(a, nil))
        default:
            let b = "\(year)"
            return (.range(from: nil, to: b), bounds(nil, b))
        }
    }

    /// A random filter and the brute force's predicate and order.
    static func randomFilter(_ random: inout TestRandom, sets: [(id: String, title: String)], machine: [String])
        -> ([String: LibraryFilter.Value], (Truth) -> Bool, order: String?, limit: Int?) {
        var given: [String: LibraryFilter.Value] = [:]
        var tests: [(Truth) -> Bool] = []
        let keys = ["tags", "any_tags", "untagged", "machine_tags", "text", "taken", "uploaded", "updated", "set", "privacy", "license",
                    "media", "has_geo"].shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random))
        for key in keys {
            switch key {
            case "tags", "any_tags":
                let tags = Array(LibraryWorld.vocabulary.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
                    .map { Bool.random(using: &random) ? $0.uppercased() : $0 }
                given[key] = Bool.random(using: &random) ? .list(tags) : .text(tags.joined(separator: ","))
                let clean = tags.map(TagString.clean)
                tests.append(key == "tags" ? { t in clean.allSatisfy(t.clean.contains) } : { t in clean.contains(where: t.clean.contains) })
            case "untagged":
                let yes = Bool.random(using: &random)
                given[key] = .flag(yes)
                tests.append { t in t.record.tags.isEmpty == yes }
            case "machine_tags":
                let tag = machine.randomElement(using: &random)!
                let ns = String(tag.prefix { $0 != ":" })
                let pred = String(tag.prefix { $0 != "=" })
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    given[key] = .text(tag)
                    tests.append { t in t.record.tags.contains { $0.isMachineTag && $0.clean == tag } }
                case 1:
                    given[key] = .text(ns + ":")
                    tests.append { t in t.record.tags.contains { $0.isMachineTag && $0.clean.hasPrefix(ns + ":") } }
                case 2:
                    given[key] = .text(pred + "=")
                    tests.append { t in t.record.tags.contains { $0.isMachineTag && $0.clean.hasPrefix(pred + "=") } }
                default:
                    given[key] = .text(pred + "=*")
                    tests.append { t in t.record.tags.contains { $0.isMachineTag && $0.clean.hasPrefix(pred + "=") } }
                }
            case "text":
                let word = (LibraryWorld.words + LibraryWorld.vocabulary + ["portra", "seen from", "1"] + Self.unicodeTexts).randomElement(using: &random)!
                let text = Bool.random(using: &random) ? word.uppercased() : word
                given[key] = .text(text)
                let clean = TagString.clean(text)
                // Case-insensitive for all of Unicode (Foundation's comparison, not the library's fold).
                func has(_ s: String) -> Bool { s.range(of: text, options: .caseInsensitive) != nil }
                tests.append { t in
                    has(t.record.title) || has(t.record.description) || (!clean.isEmpty && t.record.tags.contains { $0.clean.contains(clean) })
                }
            case "taken":
                let (value, (from, to)) = dateValue(&random)
                given[key] = value
                tests.append { t in t.record.dateTaken >= from && t.record.dateTaken < to }
            case "uploaded", "updated":
                let (value, (from, to)) = dateValue(&random)
                given[key] = value
                let (a, b) = (unix(from), unix(to))
                tests.append(key == "uploaded" ? { t in t.record.datePosted >= a && t.record.datePosted < b }
                                               : { t in t.record.lastUpdate >= a && t.record.lastUpdate < b })
            case "set":
                let set = sets.randomElement(using: &random)!
                let byTitle = Bool.random(using: &random)
                given[key] = .text(byTitle ? set.title : set.id)
                tests.append { t in t.sets.contains { $0.id == set.id } }
            case "privacy":
                let word = ["public", "private", "friends", "family"].randomElement(using: &random)!
                given[key] = .text(word)
                tests.append { t in
                    let r = t.record
                    switch word {
                    case "public": return r.isPublic
                    case "private": return !r.isPublic && !r.isFriend && !r.isFamily
                    case "friends": return !r.isPublic && r.isFriend
                    default: return !r.isPublic && r.isFamily
                    }
                }
            case "license":
                let ids = (0...10).shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random))
                given[key] = ids.count == 1 ? .number(Double(ids.first!)) : .list(ids.map(String.init))
                tests.append { t in ids.contains(t.record.license) }
            case "media":
                let media = Bool.random(using: &random) ? "photo" : "video"
                given[key] = .text(media)
                tests.append { t in t.record.media == media }
            default:
                let yes = Bool.random(using: &random)
                given[key] = .flag(yes)
                tests.append { t in (t.record.geo != nil) == yes }
            }
        }
        var order: String?
        if Int.random(in: 0..<3, using: &random) > 0 {
            order = (Bool.random(using: &random) ? "-" : "") + ["taken", "uploaded", "updated", "views"].randomElement(using: &random)!
            given["order"] = .text(order!)
        }
        var limit: Int?
        if Bool.random(using: &random) {
            limit = Int.random(in: 0...60, using: &random)
            given["limit"] = Bool.random(using: &random) ? .number(Double(limit!)) : .text(String(limit!))
        }
        return (given, { t in tests.allSatisfy { $0(t) } }, order, limit)
    }

    /// The brute force's order: the filter's key then the id, descending with `-`; by default
    /// the newest upload first.
    static func sorted(_ photos: [Truth], order: String?) -> [String] {
        let word = order ?? "-uploaded"
        let descending = word.hasPrefix("-")
        func key(_ r: SandboxPhotoRecord) -> String {
            switch word.trimmingCharacters(in: ["-"]) {
            case "taken": return r.dateTaken
            case "updated": return String(format: "%012d", r.lastUpdate)
            case "views": return String(format: "%012d", r.views)
            default: return String(format: "%012d", r.datePosted)
            }
        }
        let ascending = photos.map(\.record).sorted { (key($0), Int($0.id)!) < (key($1), Int($1.id)!) }.map(\.id)
        return descending ? ascending.reversed() : ascending
    }

    /// Titles and descriptions beyond ASCII given to some photos of the random filters' world,
    /// and texts that find them (or, accents being kept, do not).
    static let unicodeTitles = ["Reykjavík", "ÞINGVELLIR", "Straße", "STRASSE", "Ærøskøbing", "ΟΔΟΣ", "οδός", "Été à Paris", "ﬁords"]
    static let unicodeTexts = ["REYKJAVÍK", "reykjavik", "þingvellir", "straẞe", "ærø", "οδος", "ΌΣ", "été", "ETE", "fiords"]

    static func unicodeWorld(_ count: Int, seed: String) -> LibraryWorld {
        var world = LibraryWorld(count: count, seed: seed)
        for i in world.photos.indices where i % 4 == 1 {
            world.photos[i].title = unicodeTitles[i / 4 % unicodeTitles.count] + " \(i)"
            if i % 3 == 0 { world.photos[i].description = "Á leið til " + unicodeTitles[(i / 4 + 3) % unicodeTitles.count].uppercased() }
        }
        return world
    }

    @Test("100 random filters over every key (tags, any_tags, untagged, machine_tags, text, taken/uploaded/updated as year, month, ranges and {from, to}, set by id and title, privacy, license, media, has_geo, order, limit) equal a brute-force filter of the world; no call is made")
    func randomFilters() async throws {
        let world = Self.unicodeWorld(1_500, seed: "library-queries")
        try await world.serve { server, alice, env, log in
            let store = try LibrarySyncTests.store(env)
            _ = try await LibrarySyncTests.sync(alice, store, log: log)
            #expect(try LibraryWorld.differences(store, server).isEmpty)
            let (records, sets) = server.engine.store.read { (s: SandboxState) in
                (s.photos.values.filter { $0.owner == LibraryWorld.alice }.map(\.record), s.photosets.filter { $0.owner == LibraryWorld.alice })
            }
            let truths = records.map { r in Truth(record: r, sets: sets.filter { $0.photos.contains(r.id) }.map { ($0.id, $0.title) }) }
            let machine = Array(Set(records.flatMap { $0.tags.filter(\.isMachineTag).map(\.clean) })).sorted()
            var random = TestRandom("library-random-filters")
            let callsBefore = LibraryWorld.calls(in: log).count
            var nonEmpty = 0
            for n in 0..<100 {
                let (given, keep, order, limit) = Self.randomFilter(&random, sets: sets.map { ($0.id, $0.title) }, machine: machine)
                var expected = Self.sorted(truths.filter(keep), order: order)
                if let limit { expected = Array(expected.prefix(limit)) }
                let filter = try LibraryFilter(given)
                let ids = try store.ids(filter)
                #expect(ids == expected, "filter \(n) \(given): \(ids.count) ids, expected \(expected.count); first \(ids.prefix(5)) vs \(expected.prefix(5))")
                #expect(try store.count(filter) == expected.count, "count of filter \(n) \(given)")
                if !expected.isEmpty { nonEmpty += 1 }
            }
            // Most filters select something: the test compares more than empty lists.
            #expect(nonEmpty >= 50, "only \(nonEmpty) of 100 filters matched a photo")
            #expect(LibraryWorld.calls(in: log).count == callsBefore, "a query made a call")
        }
    }

    @Test("text= is case-insensitive for all of Unicode, in titles, descriptions and tags (REYKJAVÍK finds Reykjavík, STRAẞE finds Straße, STRASSE and the tag straße, МОСКВА the tag москва), accents kept; % and _ are plain characters")
    func unicodeText() async throws {
        var world = LibraryWorld(count: 30, seed: "library-unicode-text")
        for i in world.photos.indices { world.photos[i].tags = [] }
        let titles = ["Reykjavík harbour", "REYKJAVÍK AT NIGHT", "Tram", "Straße 5", "STRASSE 7", "ΟΔΟΣ ΕΡΜΟΥ", "οδός", "100% natural_light"]
        for (i, title) in titles.enumerated() { (world.photos[i].title, world.photos[i].description) = (title, "") }
        world.photos[2].description = "Á leið til Reykjavíkur"
        // Tags fold as titles do: ß, Cyrillic, Greek with its accents.
        for (i, tag) in [(8, "straße"), (9, "москва"), (10, "αθήνα")] { (world.photos[i].title, world.photos[i].tags) = ("plain", [tag]) }
        let ids = world.photos.map(\.id)
        try await world.serve { server, alice, env, log in
            let store = try LibrarySyncTests.store(env)
            _ = try await LibrarySyncTests.sync(alice, store, log: log)
            for (text, expected) in [("REYKJAVÍK", [0, 1, 2]), ("reykjavík", [0, 1, 2]), ("Reykjavik", []), ("á LEIÐ", [2]),
                                     ("strasse", [3, 4, 8]), ("STRAẞE", [3, 4, 8]), ("straße", [3, 4, 8]), ("οδος", [5]), ("ΟΔΌΣ", [6]),
                                     ("МОСКВА", [9]), ("ΑΘΉΝΑ", [10]), ("αθηνα", []),
                                     ("ερμου", [5]), ("100%", [7]), ("L_L", [7]), ("%", [7]), ("_", [7])] {
                let found = try store.ids(LibraryFilter(["text": .text(text), "order": .text("uploaded")]))
                #expect(found == expected.map { ids[$0] }, "text=\(text): \(found.compactMap { ids.firstIndex(of: $0) })")
                #expect(try store.count(LibraryFilter(["text": .text(text)])) == expected.count, "count of text=\(text)")
            }
        }
    }

    @Test("Speed of text= at 100,000 photos (LIBRARY_BENCH=1): count, ids and the first page of 1,000 records, median of 9", .enabled(if: ProcessInfo.processInfo.environment["LIBRARY_BENCH"] != nil))
    func textSpeed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("library-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try LibraryStore(path: dir.path + "/bench.sqlite", account: "1@N01")
        let places = ["harbour at dawn", "a walk by the river", "við höfnina í Reykjavík", "from the bridge"]
        let start = Date()
        for chunk in stride(from: 0, to: 100_000, by: 1_000) {
            try store.write { db in
                for i in chunk..<chunk + 1_000 {
                    var p = LibraryPhoto(id: String(7_000_000_000 + i), owner: "1@N01")
                    // Half the titles beyond ASCII (the slow path of the fold).
                    p.title = i % 2 == 0 ? "photo \(i)" : "Ljósmynd \(i) á Þingvöllum"
                    if i % 3 == 0 { p.description = places[(i / 3) % places.count] }
                    p.tags = ["fog", "harbour", "tram", "cat", "night"][i % 5] + " year\(2011 + i % 12)"
                    p.machine_tags = "camera:make=fuji"
                    p.date_upload = 1_300_000_000 + i * 600
                    p.last_update = p.date_upload
                    try p.insert(db)
                    try LibrarySync.writeTags(p, db)
                }
            }
        }
        print("library bench: 100,000 photos written in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        func median(_ body: () throws -> Void) rethrows -> Double {
            var times: [Double] = []
            for _ in 0..<9 {
                let t = Date()
                try body()
                times.append(Date().timeIntervalSince(t) * 1000)
            }
            return times.sorted()[4]
        }
        // A scan of the photo table that tests one integer a row, for the machine's speed.
        let scan = try median { _ = try store.sql("SELECT COUNT(*) FROM photo p WHERE p.deleted IS NULL AND p.views IS -1") }
        print(String(format: "library bench: a scan of the photos testing one integer: %.1f ms", scan))
        for text in ["harbour", "HÖFNINA", "ÞINGVÖLLUM", "nothing like it"] {
            let filter = try LibraryFilter(["text": .text(text)])
            let n = try store.count(filter)
            let count = try median { _ = try store.count(filter) }
            let page = try median { _ = try store.records(try store.ids(filter).prefix(1_000)) }
            // The condition as it was (LIKE, case-blind for ASCII only), for comparison.
            let like = try median {
                let like = "'%" + text + "%'"
                _ = try store.sql("SELECT COUNT(*) FROM photo p WHERE p.deleted IS NULL AND (p.title LIKE \(like) OR p.description LIKE \(like) OR p.tags LIKE \(like) OR p.machine_tags LIKE \(like))")
            }
            print(String(format: "library bench: text=%@ (%d photos): count %.1f ms, ids + first 1,000 records %.1f ms; LIKE count %.1f ms", text, n, count, page, like))
            #expect(count <= 50)
        }
    }

    @Test("A misspelt filter key is a usage error naming the key it resembles; a bad value says what is expected")
    func misspeltKeys() {
        for (key, suggestion) in [("tagz", "tags"), ("untaged", "untagged"), ("any_tag", "any_tags"), ("uploded", "uploaded"), ("Licence", "license")] {
            do {
                _ = try LibraryFilter([key: .text("x")])
                Issue.record("'\(key)' was accepted")
            } catch {
                #expect(error.message.contains("'\(key)' is not a filter key; did you mean '\(suggestion)'?"), "\(error.message)")
            }
        }
        for (key, value, message) in [("privacy", "secret", "is not one of public, private"), ("taken", "2019-13", "is not a date"),
                                      ("taken", "2019-02-30", "is not a date"), ("taken", "19", "is not a date"), ("taken", "2019-2", "is not a date"),
                                      ("uploaded", "2019-04-31..", "is not a date"), ("license", "abc", "is not a licence id"),
                                      ("machine_tags", "foo", "is not a machine tag pattern"), ("tags", "", "give at least one"),
                                      ("tags", " , ", "give at least one"), ("text", "", "give a value"), ("set", "", "give a value"),
                                      ("media", "audio", "is not photo or video"), ("order", "name", "is not one of taken"),
                                      ("limit", "-1", "whole number")] {
            #expect(throws: LibraryError.self, "\(key)=\(value)") { try LibraryFilter([key: .text(value)]) }
            do { _ = try LibraryFilter([key: .text(value)]) } catch { #expect(error.message.contains(message), "\(error.message)") }
        }
    }
}

/// Filters against a library written directly (no sandbox): the order of ties, the dates a
/// period accepts.
@Suite("Library filter details", .timeLimit(.minutes(2)), .tags(.unit))
struct LibraryFilterDetailTests {
    @Test("Ties are ordered by id as a number (12, 999, 1000, 8000000000, 52000000001), in the order's direction")
    func tiesByNumber() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("library-ties-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try LibraryStore(path: dir.path + "/ties.sqlite", account: "1@N01")
        let ids = ["999", "8000000000", "52000000001", "12", "1000"]
        try store.write { db in
            for id in ids {
                var p = LibraryPhoto(id: id, owner: "1@N01")
                (p.date_upload, p.last_update, p.views, p.date_taken) = (1_500_000_000, 1_500_000_000, 7, "2019-01-01 00:00:00")
                try p.insert(db)
            }
        }
        let numeric = ["12", "999", "1000", "8000000000", "52000000001"]
        for order in ["uploaded", "taken", "updated", "views"] {
            #expect(try store.ids(LibraryFilter(["order": .text(order)])) == numeric, "order=\(order)")
            #expect(try store.ids(LibraryFilter(["order": .text("-" + order)])) == numeric.reversed(), "order=-\(order)")
        }
        #expect(try store.ids(LibraryFilter([:])) == numeric.reversed(), "the default order, -uploaded")
    }

    @Test("A period is YYYY, YYYY-MM or YYYY-MM-DD with those digits and a day that exists (29 February in leap years)")
    func periods() throws {
        for good in ["2019", "2019-03", "2019-03-01", "2020-02-29", "2000-02-29", "..2018", "2020..", "2019-01..2019-06-30"] {
            #expect(throws: Never.self, "\(good)") { try LibraryFilter(["taken": .text(good)]) }
        }
        for bad in ["2019-02-29", "1900-02-29", "2019-04-31", "19", "2019-2", "2019-03-1", "20190", "2019-00", "2019-13-01", "2019--01", "x"] {
            #expect(throws: LibraryError.self, "\(bad)") { try LibraryFilter(["taken": .text(bad)]) }
        }
    }
}

