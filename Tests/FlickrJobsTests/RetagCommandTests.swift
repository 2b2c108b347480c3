import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// `flickr retag` and `flickr jobs` as a user runs them, against a sandbox over loopback.
@Suite("flickr retag: plan, apply, conflicts, kill -9 and resume, undo", .timeLimit(.minutes(6)), .tags(.command))
struct RetagCommandTests {
    static let photoCount = 24

    /// A sandbox with alice's photos (tagged `paris`, `Paris "old town"`, `tram`, …) and bob,
    /// who has put `great shot` on some of them; `body` gets the server, a client of alice and
    /// the flickr environment.
    static func world<T>(log: URL? = nil, _ body: (FlickrSandboxServer, FlickrClient, [String: String]) async throws -> T) async throws -> T {
        var photos: [[String: Any]] = []
        let tagSets = ["paris night", "Paris \"old town\"", "tram paris", "\"Reykjavík\" tram", "Paris"]
        for i in 0..<photoCount {
            photos.append(["id": String(8_000_000_000 + i), "owner": "alice", "title": "p\(i)", "tags": tagSets[i % tagSets.count],
                           "date_posted": 1_500_000_000 + i * 3600])
        }
        return try await RetagWorld.with(photos, log: log) { server, alice, bob, env in
            for i in stride(from: 0, to: photoCount, by: 3) {
                _ = try await bob.call("flickr.photos.addTags", ["photo_id": String(8_000_000_000 + i), "tags": "\"great shot\""])
            }
            return try await body(server, alice, env)
        }
    }

    static let rules = ["--rename", "paris", "Paris", "--add", "city trip", "--remove", "tram", "--rename", "REYKJAVÍK", "Reykjavík, Iceland"]

    /// What the rules above make of the owner's raw tags, written out by hand.
    static func expected(_ raws: [String]) -> Set<String> {
        var out: [String] = []
        for raw in raws {
            switch TagString.clean(raw) {
            case "paris": out.append("Paris")
            case "tram": continue
            case "reykjavík": out.append("Reykjavík, Iceland")
            default: out.append(raw)
            }
        }
        if !out.contains(where: { TagString.clean($0) == "citytrip" }) { out.append("city trip") }
        var seen = Set<String>()
        return Set(out.filter { seen.insert(TagString.clean($0)).inserted })
    }

    static func tags(_ client: FlickrClient) async throws -> [String: PhotoTags] {
        var out: [String: PhotoTags] = [:]
        for i in 0..<photoCount {
            let id = String(8_000_000_000 + i)
            out[id] = PhotoTags(getInfo: try await client.call("flickr.photos.getInfo", ["photo_id": id]))
        }
        return out
    }

    static func flickr(_ args: [String], _ env: [String: String]) async throws -> Products.Result {
        try await Products.run(try Products.executable("flickr"), args, environment: env, timeout: 120)
    }

    /// The tags now are exactly what the rules make of `before`: owner raws, no duplicates,
    /// other members' tags untouched (ids, authors, raw forms).
    static func expectFinal(_ before: [String: PhotoTags], _ after: [String: PhotoTags], _ context: String) {
        for (id, pre) in before {
            guard let post = after[id] else {
                Issue.record("\(context): photo \(id) is gone")
                continue
            }
            let own = post.ownerTags.map(\.raw)
            #expect(Set(own) == expected(pre.ownerTags.map(\.raw)), "\(context): photo \(id): \(own)")
            #expect(own.count == Set(own.map(TagString.clean)).count, "\(context): photo \(id) has duplicates: \(own)")
            #expect(post.otherTags == pre.otherTags, "\(context): photo \(id): others' tags changed")
        }
    }

    static func writes(in log: URL) throws -> [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> String? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let m = o["method"] as? String, let method = MethodCatalog.shared.method(m), method.perms >= .write else { return nil }
            return m
        }
    }

    @Test("plan reads only and prints a diff; apply reaches the targets; jobs lists it; undo restores; a second undo changes nothing")
    func planApplyUndo() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("retag-log-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        try await Self.world(log: log) { _, alice, env in
            let before = try await Self.tags(alice)
            let writesBefore = try Self.writes(in: log).count
            let plan = try await Self.flickr(["retag", "plan"] + Self.rules, env)
            #expect(plan.status == 1, "\(plan.stderr)")
            #expect(plan.stdout.contains("- paris") && plan.stdout.contains("+ Paris") && plan.stdout.contains("+ city trip"))
            #expect(plan.stdout.contains("photos to change of \(Self.photoCount) looked at"))
            #expect(try Self.writes(in: log).count == writesBefore, "plan made a write")
            let job = try #require(plan.stdout.split(separator: "\n").first { $0.hasPrefix("job ") }?.split(separator: " ")[1]
                .trimmingCharacters(in: CharacterSet(charactersIn: ":")))
            // Without a terminal, apply wants --yes.
            #expect(try await Self.flickr(["retag", "apply", job], env).status == 2)
            let apply = try await Self.flickr(["retag", "apply", job, "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            Self.expectFinal(before, try await Self.tags(alice), "apply")
            let jobs = try await Self.flickr(["jobs", "--json"], env)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]])
            let entry = try #require(list.first { $0["id"] as? String == job })
            #expect(entry["state"] as? String == "done" && entry["done"] as? Int == entry["photos"] as? Int && (entry["calls"] as? Int ?? 0) > 0)
            // The summary's calls include the plan's reads, and says so: this run's + before it = the job's.
            let calls = try #require(entry["calls"] as? Int)
            let split = try #require(apply.stdout.firstMatch(of: /, (\d+) calls \((\d+) by this run, (\d+) before it: planning and earlier runs\)/),
                                     "\(apply.stdout)")
            #expect(Int(split.1) == calls && Int(split.2)! + Int(split.3)! == calls && Int(split.3)! > 0, "\(apply.stdout)")
            // A plan of the same rules now finds nothing: exit 0.
            #expect(try await Self.flickr(["retag", "plan"] + Self.rules, env).status == 0)

            let undo = try await Self.flickr(["retag", "undo", job, "--yes"], env)
            #expect(undo.status == 0, "\(undo.stdout) \(undo.stderr)")
            let restored = try await Self.tags(alice)
            for (id, pre) in before {
                #expect(Set(restored[id]?.ownerTags.map(\.raw) ?? []) == Set(pre.ownerTags.map(\.raw)), "undo: photo \(id)")
                #expect(restored[id]?.otherTags == pre.otherTags)
            }
            let writesAfterUndo = try Self.writes(in: log).count
            let again = try await Self.flickr(["retag", "undo", job, "--yes"], env)
            #expect(again.status == 0 && again.stdout.contains("nothing to undo"), "\(again.stdout) \(again.stderr)")
            #expect(try Self.writes(in: log).count == writesAfterUndo, "a second undo wrote")
            let shown = try await Self.flickr(["jobs", "show", job], env)
            #expect(shown.status == 0 && shown.stdout.contains("undone"))
        }
    }

    @Test("flickr jobs apply, resume and undo run a job of any kind; resume of a finished job sends nothing; jobs --json gives kind and, for an undo only, undo_of")
    func genericJobCommands() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-log-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        try await Self.world(log: log) { _, alice, env in
            let before = try await Self.tags(alice)
            let plan = try await Self.flickr(["retag", "plan"] + Self.rules + ["--out", log.path + ".plan.json"], env)
            defer { try? FileManager.default.removeItem(atPath: log.path + ".plan.json") }
            #expect(plan.status == 1, "\(plan.stderr)")
            // A word of another action's, or a job missing, is a usage error before any request.
            #expect(try await Self.flickr(["jobs", "apply", "last", "--force"], env).status == 2)
            #expect(try await Self.flickr(["jobs", "undo"], env).status == 2)
            let apply = try await Self.flickr(["jobs", "apply", log.path + ".plan.json", "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            Self.expectFinal(before, try await Self.tags(alice), "jobs apply")
            let requests = { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").count }
            let sent = requests()
            let resume = try await Self.flickr(["jobs", "resume", "last"], env)
            #expect(resume.status == 0 && resume.stdout.contains("nothing to resume"), "\(resume.stdout) \(resume.stderr)")
            let listed = try await Self.flickr(["jobs", "--json"], env)
            let job = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.first)
            let id = try #require(job["id"] as? String)
            let again = try await Self.flickr(["jobs", "resume", id], env)
            #expect(again.status == 0 && again.stdout.contains("is done; nothing to resume"), "\(again.stdout) \(again.stderr)")
            #expect(requests() == sent, "resuming a finished job sent a request")
            let undo = try await Self.flickr(["jobs", "undo", id, "--yes"], env)
            #expect(undo.status == 0, "\(undo.stdout) \(undo.stderr)")
            let restored = try await Self.tags(alice)
            for (photo, pre) in before {
                #expect(Set(restored[photo]?.ownerTags.map(\.raw) ?? []) == Set(pre.ownerTags.map(\.raw)), "jobs undo: photo \(photo)")
            }
            let jobs = try await Self.flickr(["jobs", "--json"], env)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]])
            #expect(list.count == 2 && list.allSatisfy { $0["kind"] as? String == "retag" }, "\(list)")
            let undoJob = try #require(list.first { $0["id"] as? String != id })
            #expect(undoJob["undo_of"] as? String == id)
            #expect(list.first { $0["id"] as? String == id }?.keys.contains("undo_of") == false)
            // An undo is not undone; the message names the job it reverses.
            let undoOfUndo = try await Self.flickr(["jobs", "undo", try #require(undoJob["id"] as? String), "--yes"], env)
            #expect(undoOfUndo.status == 2 && undoOfUndo.stderr.contains("is an undo") && undoOfUndo.stderr.contains(id), "\(undoOfUndo.stderr)")
            let table = try await Self.flickr(["jobs"], env)
            #expect(table.stdout.contains("KIND") && table.stdout.contains("retag"), "\(table.stdout)")
        }
    }

    @Test("Undo after a partial run (killed after its 5th write) puts every photo back exactly")
    func undoAfterPartialRun() async throws {
        try await Self.world { _, alice, env in
            let before = try await Self.tags(alice)
            #expect(try await Self.flickr(["retag", "plan"] + Self.rules, env).status == 1)
            let crash = try await Products.runKilledAfterWrite(5, ["retag", "apply", "last", "--yes"], environment: env)
            #expect(crash.killed, "the apply ended before its 5th write: \(crash.result.stderr)")
            let undo = try await Self.flickr(["retag", "undo", "last", "--yes"], env)
            #expect(undo.status == 0, "\(undo.stdout) \(undo.stderr)")
            let after = try await Self.tags(alice)
            for (id, pre) in before {
                #expect(Set(after[id]?.ownerTags.map(\.raw) ?? []) == Set(pre.ownerTags.map(\.raw)), "photo \(id)")
                #expect(after[id]?.otherTags == pre.otherTags)
            }
        }
    }

    @Test("Answers lost after the write (25 % truncated bodies) are settled by reading: every photo done, exactly")
    func lostAnswers() async throws {
        try await Self.world { server, alice, env in
            let before = try await Self.tags(alice)
            #expect(try await Self.flickr(["retag", "plan"] + Self.rules, env).status == 1)
            await server.setFaults(try FaultSpec.parse("truncate=0.25"))
            let apply = try await Self.flickr(["retag", "apply", "last", "--yes"], env)
            await server.setFaults(.none)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            Self.expectFinal(before, try await Self.tags(alice), "lost answers")
        }
    }

    @Test("Ctrl-C (SIGINT) stops after the current photo, says how to resume, and resume finishes exactly")
    func interrupt() async throws {
        try await Self.world { _, alice, baseEnv in
            var env = baseEnv
            env["FLICKR_BUDGET"] = "10/1"
            let before = try await Self.tags(alice)
            #expect(try await Self.flickr(["retag", "plan"] + Self.rules, env).status == 1)
            let apply = try InteractiveProcess(try Products.executable("flickr"), ["retag", "apply", "last", "--yes", "--events"], environment: env)
            let deadline = Date().addingTimeInterval(60)
            while apply.stderr.split(separator: "\n").filter({ $0.hasPrefix("{") }).count < 3, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(apply.process.processIdentifier, SIGINT)
            #expect(await apply.wait(timeout: 30) == 130)
            // With --events every line is NDJSON, the closing one (stdout) too: it names the resume.
            let lines = (apply.stderr + apply.stdout).split(separator: "\n")
            let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.count == lines.count, "lines that are not JSON: \(lines.filter { !$0.hasPrefix("{") })")
            #expect(apply.stderr.split(separator: "\n").contains { $0.contains("\"stopping\"") }, "\(apply.stderr)")
            let closing = try #require(try JSONSerialization.jsonObject(with: Data(apply.stdout.utf8)) as? [String: Any], "\(apply.stdout)")
            #expect(closing["exit"] as? Int == 130 && (closing["resume"] as? String)?.hasPrefix("flickr retag resume retag-") == true, "\(closing)")
            let jobs = try await Self.flickr(["jobs", "--json"], env)
            #expect(jobs.stdout.contains("interrupted"), "\(jobs.stdout)")
            let resume = try await Self.flickr(["retag", "resume"], env)
            #expect(resume.status == 0, "\(resume.stdout) \(resume.stderr)")
            Self.expectFinal(before, try await Self.tags(alice), "interrupt")
        }
    }

    @Test("A photo edited between plan and apply is a conflict: skipped, reported, not overwritten")
    func conflict() async throws {
        try await Self.world { _, alice, env in
            let planFile = URL(fileURLWithPath: env["HOME"]!).appendingPathComponent("plan.json")
            let plan = try await Self.flickr(["retag", "plan", "--rename", "paris", "Paris", "--out", planFile.path], env)
            #expect(plan.status == 1)
            let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: planFile)) as? [String: Any]
            #expect((saved?["photos"] as? [Any])?.isEmpty == false)
            let edited = "8000000000"
            _ = try await alice.call("flickr.photos.addTags", ["photo_id": edited, "tags": "\"edited elsewhere\""])
            let apply = try await Self.flickr(["retag", "apply", planFile.path, "--yes"], env)
            #expect(apply.status == 1)
            #expect(apply.stdout.contains("conflict: photo \(edited)"), "\(apply.stdout)")
            let now = try #require(PhotoTags(getInfo: try await alice.call("flickr.photos.getInfo", ["photo_id": edited])))
            #expect(Set(now.ownerTags.map(\.raw)) == ["paris", "night", "edited elsewhere"])
        }
    }

    @Test("kill -9 at 50 points, half right after a write's answer and before the journal records it: resume reaches the exact final state")
    func killAndResume() async throws {
        var random = TestRandom("retag.killAndResume")
        for run in 0..<50 {
            try await Self.world { _, alice, env in
                let before = try await Self.tags(alice)
                let plan = try await Self.flickr(["retag", "plan"] + Self.rules, env)
                try #require(plan.status == 1, "run \(run): \(plan.stderr)")
                if run % 2 == 0 {
                    _ = try await Products.runKilledAfterWrite(Int.random(in: 1...30, using: &random), ["retag", "apply", "last", "--yes"],
                                                               environment: env)
                } else {
                    let process = try InteractiveProcess(try Products.executable("flickr"), ["retag", "apply", "last", "--yes"], environment: env)
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &random)))
                    kill(process.process.processIdentifier, SIGKILL)
                    _ = await process.wait(timeout: 20)
                }
                let resume = try await Self.flickr(["retag", "resume", "last"], env)
                #expect(resume.status == 0, "run \(run): \(resume.stdout) \(resume.stderr)")
                Self.expectFinal(before, try await Self.tags(alice), "run \(run)")
            }
        }
    }
}
