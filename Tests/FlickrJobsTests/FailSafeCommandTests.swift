import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Jobs and writes that fail safe, as a user meets them: the real `flickr` against a sandbox
/// over loopback (the `flickr-sandbox` binary where it must die and come back).
@Suite("Jobs fail safe: a dead endpoint, two runners, undo after a later edit, what is planned is written",
       .timeLimit(.minutes(8)), .tags(.command))
struct FailSafeCommandTests {
    static func flickr(_ args: [String], _ env: [String: String], directory: URL? = nil) async throws -> Products.Result {
        let r = try await Products.run(try Products.executable("flickr"), args, environment: env, directory: directory, timeout: 120)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// The job id a plan printed (`job ID: …`).
    static func job(_ planOutput: String) throws -> String {
        try #require(planOutput.firstMatch(of: /job ((?:retag|undo)-[0-9a-f-]+):/).map { String($0.1) }, "\(planOutput)")
    }

    /// `flickr jobs --json`'s entry for `id`.
    static func entry(_ id: String, _ env: [String: String]) async throws -> [String: Any] {
        let jobs = try await flickr(["jobs", "--json"], env)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]], "\(jobs.stderr)")
        return try #require(list.first { $0["id"] as? String == id })
    }

    @Test("kill -9 of flickr-sandbox mid-apply: apply waits --max-outage, says what it waits for without a terminal, stops (exit 75) with no photo failed and the resume command; resume after a restart finishes exactly")
    func endpointDies() async throws {
        let world = try CommandWorld("outage")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let state = world.directory.appendingPathComponent("sandbox-state").path
        // 100 ms a call: the apply takes seconds, so that the poll below (a `flickr jobs` process
        // a round) sees it mid-run even when the machine is loaded; at 20 ms it once finished first.
        try await SandboxWorld.withProcess(["--latency", "100", "--state", state], environment: world.environment) { first in
            let running = try #require(first.process)
            let env = first.environment(world.environment)
            let plan = try await Self.flickr(["retag", "plan", "--add", "fail safe"], env)
            try #require(plan.status == 1, "\(plan.stdout) \(plan.stderr)")
            let job = try Self.job(plan.stdout)
            let photos = try #require(try await Self.entry(job, env)["photos"] as? Int)
            try #require(photos > 50)
            // No terminal and no --events: the waiting lines are plain text on stderr. The outage
            // counts from the start of the first call that could not connect, including the client's
            // own retries of it: with --max-outage 3, under the suite's load those retries once took
            // the whole 3 s, and the job stopped (rightly) before its first waiting line.
            let apply = try InteractiveProcess(try Products.executable("flickr"), ["retag", "apply", job, "--yes", "--max-outage", "8"], environment: env)
            let deadline = Date().addingTimeInterval(60)
            while (try await Self.entry(job, env)["done"] as? Int ?? 0) < 5, Date() < deadline, apply.process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
            }
            kill(running.process.process.processIdentifier, SIGKILL)
            let killed = Date()
            let status = await apply.wait(timeout: 60)
            let stoppedAfter = Date().timeIntervalSince(killed)
            #expect(status == 75, "\(apply.stdout) \(apply.stderr)")
            // 8 s of outage plus the client's own retries of the last call; never minutes.
            #expect(stoppedAfter < 30, "stopped \(stoppedAfter) s after the kill")
            #expect(apply.stderr.contains("flickr retag: waiting for the endpoint: cannot connect to") && apply.stderr.contains("connection refused"),
                    "\(apply.stderr)")
            #expect(apply.stderr.contains("Resume when the endpoint is back with: flickr retag resume \(job)"), "\(apply.stderr)")
            #expect(!apply.stdout.contains("unclear write") && !apply.stdout.contains("failed: photo"), "\(apply.stdout)")
            let stopped = try await Self.entry(job, env)
            #expect(stopped["state"] as? String == "interrupted" && stopped["failed"] as? Int == 0, "\(stopped)")
            let doneBefore = try #require(stopped["done"] as? Int)
            #expect(doneBefore >= 5 && doneBefore < photos)

            // The endpoint comes back (same port, same state): resume finishes, exactly.
            try await SandboxWorld.withProcess(["--port", String(first.port), "--state", state], environment: world.environment) { _ in
                let resume = try await Self.flickr(["retag", "resume", job], env)
                #expect(resume.status == 0 && resume.stdout.contains("\(photos) of \(photos) photos done, 0 failed, 0 conflicts"),
                        "\(resume.stdout) \(resume.stderr)")
                let search = try await Self.flickr(["call", "flickr.photos.search", "user_id=me", "tags=failsafe", "per_page=500", "--json"], env)
                let found = (try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any])?["photos"] as? [String: Any]
                #expect(Int("\(found?["total"] ?? "")") == photos, "\(search.stdout.prefix(300))")
            }
        }
    }

    @Test("Two applies of one job started together, 20 rounds, the second naming it by id or as `last`: exactly one runs, the other names its pid and host and exits 75; one write per photo, no conflict")
    func twoRunners() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("two-runners-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        try await RetagCommandTests.world(log: log) { server, _, env in
            await server.setLatency(milliseconds: 15)
            let flickr = try Products.executable("flickr")
            var contended = 0
            for round in 0..<20 {
                let plan = try await Self.flickr(["retag", "plan", "--add", "round \(round)"], env)
                try #require(plan.status == 1, "round \(round): \(plan.stderr)")
                let job = try Self.job(plan.stdout)
                let writesBefore = try RetagCommandTests.writes(in: log).count
                let a = try InteractiveProcess(flickr, ["retag", "apply", job, "--yes"], environment: env)
                // Every other round the second names it as `last`: a held job is said the same way.
                let b = try InteractiveProcess(flickr, ["retag", "apply", round % 2 == 0 ? job : "last", "--yes"], environment: env)
                let (sa, sb) = (await a.wait(timeout: 120), await b.wait(timeout: 120))
                let outcomes = [(sa, a), (sb, b)]
                let winners = outcomes.filter { $0.0 == 0 }
                try #require(winners.count == 1, "round \(round): exits \(String(describing: sa)), \(String(describing: sb)): \(a.stderr) | \(b.stderr)")
                let (winner, loser) = sa == 0 ? (a, b) : (b, a)
                let loserStatus = sa == 0 ? sb : sa
                let holder = "is being run by process \(winner.process.processIdentifier) on host "
                if loser.stderr.contains(holder) {
                    contended += 1
                    #expect(loserStatus == 75, "round \(round): \(loser.stderr)")
                } else {
                    // Started after the winner had finished: the job is done, not applied twice.
                    #expect(loserStatus == 2 && loser.stderr.contains("is done, not planned"), "round \(round): \(loser.stderr)")
                }
                #expect(winner.stdout.contains("\(RetagCommandTests.photoCount) of \(RetagCommandTests.photoCount) photos done, 0 failed, 0 conflicts"),
                        "round \(round): \(winner.stdout)")
                #expect(try RetagCommandTests.writes(in: log).count - writesBefore == RetagCommandTests.photoCount,
                        "round \(round): the writes doubled")
            }
            // Started together, the second nearly always finds the first holding the job.
            #expect(contended >= 10, "only \(contended) of 20 rounds had the two runners meet")
        }
    }

    @Test("Undo restores only what the job changed: a tag added since stays; a tag of the job's removed since is a conflict, left as it is, unless --force; a summary unless --diff")
    func undoAfterLaterEdit() async throws {
        try await RetagCommandTests.world { _, alice, env in
            let before = try await RetagCommandTests.tags(alice)
            #expect(try await Self.flickr(["retag", "plan"] + RetagCommandTests.rules, env).status == 1)
            let apply = try await Self.flickr(["retag", "apply", "last", "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            // Later edits: a new tag on one photo; on another, a tag the job added is removed.
            let (kept, edited) = ("8000000001", "8000000002")
            _ = try await alice.call("flickr.photos.addTags", ["photo_id": kept, "tags": "favourite"])
            let info = try #require(PhotoTags(getInfo: try await alice.call("flickr.photos.getInfo", ["photo_id": edited])))
            let cityTrip = try #require(info.ownerTags.first { $0.raw == "city trip" })
            _ = try await alice.call("flickr.photos.removeTag", ["tag_id": cityTrip.id])
            let editedTags = Set(info.ownerTags.map(\.raw)).subtracting(["city trip"])

            let undo = try await Self.flickr(["retag", "undo", "last", "--yes"], env)
            #expect(undo.status == 1, "\(undo.stdout) \(undo.stderr)")
            #expect(undo.stdout.contains("conflict: photo \(edited)") && undo.stdout.contains("city trip"), "\(undo.stdout)")
            // A summary, not a diff of every photo.
            #expect(!undo.stdout.split(separator: "\n").contains { $0.hasPrefix("- ") || $0.hasPrefix("+ ") } && undo.stdout.contains("--diff"),
                    "\(undo.stdout)")
            let after = try await RetagCommandTests.tags(alice)
            #expect(Set(after[kept]?.ownerTags.map(\.raw) ?? []) == Set((before[kept]?.ownerTags.map(\.raw) ?? []) + ["favourite"]),
                    "the later tag must stay: \(after[kept]?.ownerTags.map(\.raw) ?? [])")
            #expect(Set(after[edited]?.ownerTags.map(\.raw) ?? []) == editedTags, "a conflict must be left as it is")
            for (id, pre) in before where id != kept && id != edited {
                #expect(Set(after[id]?.ownerTags.map(\.raw) ?? []) == Set(pre.ownerTags.map(\.raw)), "photo \(id)")
                #expect(after[id]?.otherTags == pre.otherTags)
            }

            // --force undoes the conflicted photo too; --diff shows it.
            let forced = try await Self.flickr(["retag", "undo", "last", "--yes", "--force", "--diff"], env)
            #expect(forced.status == 0, "\(forced.stdout) \(forced.stderr)")
            #expect(forced.stdout.contains("photo \(edited)") && forced.stdout.contains("- Paris"), "\(forced.stdout)")
            let end = try await RetagCommandTests.tags(alice)
            #expect(Set(end[edited]?.ownerTags.map(\.raw) ?? []) == Set(before[edited]?.ownerTags.map(\.raw) ?? []))
            #expect(end[kept]?.ownerTags.contains { $0.raw == "favourite" } == true)
        }
    }

    @Test("What a plan shows is what is stored: a quote in a new tag is shown as dropped with a warning and written so; a tag with no letter is refused in rules, --tags, Lua's addTags and tag lists; photo_id={} is a usage error")
    func storedForms() async throws {
        let photos: [[String: Any]] = [["id": "9100000001", "owner": "alice", "tags": ["new york", "night"]]]
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("stored-forms-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        try await RetagWorld.with(photos, log: log) { _, alice, _, env in
            let plan = try await Self.flickr(["retag", "plan", "--rename", "new york", "New York \"City\""], env)
            #expect(plan.status == 1 && plan.stdout.contains("+ New York City\n"), "\(plan.stdout)")
            #expect(plan.stderr.contains("warning: --rename: 'New York \"City\"' will be stored as 'New York City'"), "\(plan.stderr)")
            #expect(try await Self.flickr(["retag", "apply", "last", "--yes"], env).status == 0)
            let now = try #require(PhotoTags(getInfo: try await alice.call("flickr.photos.getInfo", ["photo_id": "9100000001"])))
            #expect(Set(now.ownerTags.map(\.raw)) == ["New York City", "night"])

            let writes = try RetagCommandTests.writes(in: log).count
            let emoji = try await Self.flickr(["retag", "plan", "--add", "📷"], env)
            #expect(emoji.status == 2 && emoji.stderr.contains("'📷' has no letter or digit"), "\(emoji.stderr)")
            let dir = URL(fileURLWithPath: env["HOME"]!)
            try Data("just text, not a photo\n".utf8).write(to: dir.appendingPathComponent("fake.jpg"))
            try Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 60)).write(to: dir.appendingPathComponent("real.jpg"))
            let fake = try await Self.flickr(["upload", "fake.jpg"], env, directory: dir)
            #expect(fake.status == 1 && fake.stderr.contains("skipping fake.jpg: named like a photo or video, but its content is not one Flickr accepts")
                    && fake.stderr.contains("nothing to upload"), "\(fake.stderr)")
            let tagged = try await Self.flickr(["upload", "real.jpg", "--tags", "📷 café"], env, directory: dir)
            #expect(tagged.status == 2 && tagged.stderr.contains("'📷' has no letter or digit"), "\(tagged.stderr)")
            let lua: [(String, String)] = [
                ("flickr.photos.addTags{ photo_id = '9100000001', tags = '📷 café' }", "no letter or digit"),
                ("flickr.photos.addTags{ photo_id = '9100000001', tags = { 'café', 'New \"York\"' } }", "element 2 'New \"York\"': Flickr would store it as 'New York'"),
                ("flickr.photos.getInfo{ photo_id = {} }", "bad argument 'photo_id': an empty table cannot be sent"),
                ("flickr.upload{ file = 'fake.jpg' }", "its content is not a photo or video Flickr accepts"),
                ("flickr.upload{ file = 'real.jpg', tags = { '📷', 'café' } }", "element 1 '📷'"),
            ]
            for (chunk, message) in lua {
                let r = try await Self.flickr(["-e", chunk], env, directory: dir)
                #expect(r.status == 1 && r.stderr.contains(message), "\(chunk): \(r.stderr)")
            }
            #expect(try RetagCommandTests.writes(in: log).count == writes, "a refused write was sent")
            let uploads = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("/services/upload") }
            #expect(uploads.isEmpty, "a refused upload was sent: \(uploads)")
        }
    }

    @Test("The plan's summary counts calls with the word, gives the ETA at the budget in force (none on loopback); --rename with one value names what is missing")
    func smallerWords() async throws {
        try await RetagCommandTests.world { _, _, env in
            let plan = try await Self.flickr(["retag", "plan", "--add", "x1"], env)
            #expect(plan.stdout.contains("(no call budget applies to this endpoint); the plan took ") && plan.stdout.contains(" calls\n"),
                    "\(plan.stdout)")
            var budgeted = env
            budgeted["FLICKR_BUDGET"] = "100/10"
            let paced = try await Self.flickr(["retag", "plan", "--add", "x2"], budgeted)
            #expect(paced.stdout.contains("(ETA at 100 calls per 10 s: 3 s)"), "\(paced.stdout)")
            let one = try await Self.flickr(["retag", "plan", "--rename", "onlyone", "--add", "x"], env)
            #expect(one.status == 2 && one.stderr.contains("--rename needs 2 values: --rename OLD NEW (got only 'onlyone')"), "\(one.stderr)")
            let outage = try await Self.flickr(["retag", "resume", "--max-outage", "soon"], env)
            #expect(outage.status == 2 && outage.stderr.contains("--max-outage: 'soon' is not a number of seconds"), "\(outage.stderr)")
        }
    }
}
