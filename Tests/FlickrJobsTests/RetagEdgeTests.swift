import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Tags that are hard to write back: quoting, Unicode, machine tags, case, merges, the 75-tag
/// limit, and a selection past the search cap.
@Suite("flickr retag: quoting, case, merges, limits, the cap", .timeLimit(.minutes(6)), .tags(.command))
struct RetagEdgeTests {
    static func raws(_ client: FlickrClient, _ id: String) async throws -> (own: [String], others: [PhotoTag]) {
        let tags = try #require(PhotoTags(getInfo: try await client.call("flickr.photos.getInfo", ["photo_id": id])))
        return (tags.ownerTags.map(\.raw), tags.otherTags)
    }

    static func planAndApply(_ rules: [String], _ env: [String: String]) async throws -> (Products.Result, Products.Result) {
        let plan = try await RetagCommandTests.flickr(["retag", "plan"] + rules, env)
        let apply = try await RetagCommandTests.flickr(["retag", "apply", "last", "--yes"], env)
        return (plan, apply)
    }

    @Test("Multi-word, comma, Unicode and machine tags with quoted values are written exactly; a case-only rename changes the raw form; merges leave one")
    func quotingCaseAndMerges() async throws {
        let photos: [[String: Any]] = [
            ["id": "9000000001", "owner": "alice", "tags": ["old town", "café", "geo:quartier=plateau mont royal", "paris"]],
            ["id": "9000000002", "owner": "alice", "tags": ["paris", "night"]],
            ["id": "9000000003", "owner": "alice", "tags": ["nyc", "New York", "newyorkcity"]],
        ]
        try await RetagWorld.with(photos) { _, alice, bob, env in
            // bob's tag makes photo 2 take the remove-then-add path.
            _ = try await bob.call("flickr.photos.addTags", ["photo_id": "9000000002", "tags": "\"great shot\""])
            let (plan, apply) = try await Self.planAndApply([
                "--rename", "old town", "Old Town, Lisbon", "--rename", "CAFÉ", "Café Müller",
                "--rename", "geo:quartier=*", "geo:district=*", "--rename", "paris", "Paris",
                "--rename", "nyc", "New York", "--rename", "newyorkcity", "New York",
            ], env)
            #expect(plan.status == 1 && apply.status == 0, "\(plan.stdout)\n\(apply.stdout)\n\(apply.stderr)")
            let one = try await Self.raws(alice, "9000000001")
            #expect(Set(one.own) == ["Old Town, Lisbon", "Café Müller", "geo:district=plateau mont royal", "Paris"], "\(one.own)")
            let two = try await Self.raws(alice, "9000000002")
            #expect(Set(two.own) == ["Paris", "night"] && two.others.map(\.raw) == ["great shot"], "\(two.own)")
            let three = try await Self.raws(alice, "9000000003")
            #expect(three.own == ["New York"], "\(three.own)")
        }
    }

    @Test("--lua FILE: a function(photo, tags) rewrites each photo after the other rules; a bad answer is an error (exit 2)")
    func luaRule() async throws {
        let photos: [[String: Any]] = [["id": "9000000020", "owner": "alice", "tags": ["paris", "night"]]]
        try await RetagWorld.with(photos) { _, alice, _, env in
            let rule = URL(fileURLWithPath: env["HOME"]!).appendingPathComponent("rule.lua")
            try """
                return function(photo, tags)
                  local out = {}
                  for _, t in ipairs(tags) do out[#out + 1] = t:upper() end
                  out[#out + 1] = "seen " .. photo.id
                  return out
                end
                """.write(to: rule, atomically: true, encoding: .utf8)
            let (plan, apply) = try await Self.planAndApply(["--rename", "paris", "Paris", "--lua", rule.path], env)
            #expect(plan.status == 1 && apply.status == 0, "\(plan.stdout) \(plan.stderr) \(apply.stderr)")
            #expect(Set(try await Self.raws(alice, "9000000020").own) == ["PARIS", "NIGHT", "seen 9000000020"])
            try "return function(photo, tags) return 42 end".write(to: rule, atomically: true, encoding: .utf8)
            let bad = try await RetagCommandTests.flickr(["retag", "plan", "--lua", rule.path], env)
            #expect(bad.status == 2 && bad.stderr.contains("list of tags"), "\(bad.stderr)")
            try "return 42".write(to: rule, atomically: true, encoding: .utf8)
            let notFunction = try await RetagCommandTests.flickr(["retag", "plan", "--lua", rule.path], env)
            #expect(notFunction.status == 2 && notFunction.stderr.contains("must return function(photo, tags)"), "\(notFunction.stderr)")
            try "return function(photo, tags) error('no ' .. photo.id) end".write(to: rule, atomically: true, encoding: .utf8)
            let raising = try await RetagCommandTests.flickr(["retag", "plan", "--lua", rule.path], env)
            #expect(raising.status == 2 && raising.stderr.contains(rule.path) && raising.stderr.contains("no 9000000020"), "\(raising.stderr)")
        }
    }

    @Test("A photo already at 75 tags: a rename works, an add is refused at plan time and nothing is written")
    func seventyFive() async throws {
        let full = (0..<74).map { "t\($0)" } + ["paris"]
        try await RetagWorld.with([["id": "9000000010", "owner": "alice", "tags": full]]) { _, alice, _, env in
            let (plan, apply) = try await Self.planAndApply(["--rename", "paris", "Paris"], env)
            #expect(plan.status == 1 && apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            let renamed = try await Self.raws(alice, "9000000010").own
            #expect(renamed.count == 75 && renamed.contains("Paris") && !renamed.contains("paris"))
            let add = try await RetagCommandTests.flickr(["retag", "plan", "--add", "one more"], env)
            #expect(add.status == 1 && add.stdout.contains("Flickr allows 75"), "\(add.stdout)")
            let tried = try await RetagCommandTests.flickr(["retag", "apply", "last", "--yes"], env)
            // Refused at plan time: reported as refused, never sent, and alone not a failure.
            #expect(tried.status == 0 && tried.stdout.contains("refused: photo 9000000010"), "\(tried.stdout)")
            #expect(try await Self.raws(alice, "9000000010").own.count == 75)
        }
    }

    @Test("6,000 matches of a search: planned past the 4,000 cap by date windows, each photo written once")
    func pastTheCap() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cap-log-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        let photos: [[String: Any]] = (0..<6_000).map {
            ["id": String(9_100_000_000 + $0), "owner": "alice", "tags": "capped", "date_posted": 1_400_000_000 + $0 * 60]
        }
        try await RetagWorld.with(photos, log: log) { _, _, _, env in
            let (plan, apply) = try await Self.planAndApply(["--rename", "capped", "Capped", "--query", "tags=capped"], env)
            #expect(plan.status == 1 && plan.stdout.contains("6000 photos to change of 6000 looked at"), "\(plan.stdout.suffix(300))")
            #expect(apply.status == 0, "\(apply.stdout.suffix(300)) \(apply.stderr.suffix(300))")
            var writes: [String: Int] = [:]
            for line in try String(contentsOf: log, encoding: .utf8).split(separator: "\n") {
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      o["method"] as? String == "flickr.photos.setTags", let id = o["photo_id"] as? String else { continue }
                writes[id, default: 0] += 1
            }
            #expect(writes.count == 6_000 && writes.values.allSatisfy { $0 == 1 })
            let search = try await RetagCommandTests.flickr(["call", "flickr.photos.search", "user_id=me", "tags=capped", "per_page=1", "--json"], env)
            #expect(search.stdout.contains("\"total\": \"6000\""))
        }
    }
}
