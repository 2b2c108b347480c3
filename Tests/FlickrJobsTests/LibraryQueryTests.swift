import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
@testable import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Queries of the mirror (`LibraryFilter`, `LibraryStore`) against a brute-force filter over
/// the world the mirror was synced from.
@Suite("Library queries: equal to a brute-force filter, no call", .timeLimit(.minutes(4)), .tags(.integration), .kind("integration"))
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
                let word = (LibraryWorld.words + LibraryWorld.vocabulary + ["portra", "seen from", "1"]).randomElement(using: &random)!
                let text = Bool.random(using: &random) ? word.uppercased() : word
                given[key] = .text(text)
                let clean = TagString.clean(text)
                tests.append { t in
                    t.record.title.lowercased().contains(text.lowercased()) || t.record.description.lowercased().contains(text.lowercased())
                        || (!clean.isEmpty && t.record.tags.contains { $0.clean.contains(clean) })
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
        let ascending = photos.map(\.record).sorted { (key($0), $0.id) < (key($1), $1.id) }.map(\.id)
        return descending ? ascending.reversed() : ascending
    }

    @Test("100 random filters over every key (tags, any_tags, untagged, machine_tags, text, taken/uploaded/updated as year, month, ranges and {from, to}, set by id and title, privacy, license, media, has_geo, order, limit) equal a brute-force filter of the world; no call is made")
    func randomFilters() async throws {
        let world = LibraryWorld(count: 1_500, seed: "library-queries")
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
                                      ("media", "audio", "is not photo or video"), ("order", "name", "is not one of taken"),
                                      ("limit", "-1", "whole number")] {
            #expect(throws: LibraryError.self, "\(key)=\(value)") { try LibraryFilter([key: .text(value)]) }
            do { _ = try LibraryFilter([key: .text(value)]) } catch { #expect(error.message.contains(message), "\(error.message)") }
        }
    }
}
