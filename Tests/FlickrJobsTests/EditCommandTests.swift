import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrTestSupport
import Foundation
import Synchronization
import Testing

/// `flickr edit` as a user runs it: the real binary against `flickr-sandbox` processes, killed
/// at random points and resumed, compared with an uninterrupted twin of the same world.
@Suite("flickr edit: plan, apply, kill -9 and resume, undo (the real binaries)", .timeLimit(.minutes(10)), .tags(.command, .heavy))
struct EditCommandTests {
    static func flickr(_ args: [String], _ env: [String: String], extra: [String: String] = [:]) async throws -> Products.Result {
        let r = try await Products.run(try Products.executable("flickr"), args, environment: env.merging(extra) { $1 }, timeout: 180)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// The job id a plan printed.
    static func job(_ output: String) throws -> String {
        try #require(output.firstMatch(of: /job ((?:edit|undo)-[0-9a-f-]+):/).map { String($0.1) }, "\(output)")
    }

    /// Every photo of the account as an edit sees it, sets by title (ids differ between worlds).
    static func snapshot(_ env: [String: String], ids: [String]) async throws -> [String: String] {
        let client = FlickrClient(context: FlickrContext(apiKey: env["FLICKR_API_KEY"]!, sharedSecret: env["FLICKR_API_SECRET"]!,
                                                         oauthToken: env["FLICKR_OAUTH_TOKEN"]!, oauthTokenSecret: env["FLICKR_OAUTH_TOKEN_SECRET"]!,
                                                         endpoints: Endpoints(baseURL: env["FLICKR_ENDPOINT"]!)))
        var out: [String: String] = [:]
        for id in ids {
            let info = try await client.call("flickr.photos.getInfo", ["photo_id": id])
            let contexts = try await client.call("flickr.photos.getAllContexts", ["photo_id": id])
            let m = try #require(PhotoMetadata(getInfo: info))
            let sets = (contexts["set"]?.array ?? []).compactMap { $0["title"]?.string }.sorted()
            out[id] = [m.title, m.description, m.dateTaken, String(m.takenGranularity), m.privacy.description, String(m.license),
                       m.geo.map { String(format: "%.6f,%.6f,%d", $0.latitude, $0.longitude, $0.accuracy) } ?? "-",
                       m.ownerTags.sorted().joined(separator: "|"), sets.joined(separator: "|")].joined(separator: " / ")
        }
        return out
    }

    /// A mixed job over the first 45 photos' uploads (the world's photos are posted in order),
    /// taking them out of the third set, which keeps members beyond them.
    static func changes(_ world: LibraryWorld) -> [String] {
        ["--title", "{date_taken:%Y-%m-%d} {title}", "--privacy", "friends,family", "--license", "by-nc",
         "--shift-taken", "-1d2h", "--geo", "64.1466,-21.9426,11", "--add-to-set", "Iceland", "--create-set",
         "--add", "iceland", "--remove-from-set", world.sets[2].title,
         "--query", "max_upload_date=\(world.photos[44].posted)"]
    }

    @Test("kill -9 at thirty points of a mixed job (ten of them between a write's answer and its journal entry), each followed by resume: the end state equals an uninterrupted twin's; undo then restores every field; a second undo changes nothing")
    func killAndResume() async throws {
        let world = try CommandWorld("edit-kill")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let generated = LibraryWorld(count: 90, seed: "edit-kill")
        let seed = try generated.writeSeed(in: world.directory)
        var envs: [[String: String]] = []
        var sandboxes: [SandboxProcess] = []
        // 20 ms an answer, and kills after 1 to 3 photos: the job (45 photos) must outlast most of
        // the thirty rounds. A run goes on writing between the event the test waits for and the
        // kill; with 5 ms and 1 to 6 photos a loaded machine ended the job in 19 rounds.
        for name in ["killed", "twin"] {
            let sandbox = try await SandboxWorld.startProcess(["--port", "0", "--data", seed.path, "--latency", "20",
                                                               "--log", world.directory.appendingPathComponent("\(name).jsonl").path],
                                                              environment: world.environment)
            sandboxes.append(sandbox)
            var env = sandbox.environment(world.environment)
            env["XDG_STATE_HOME"] = world.directory.path + "/\(name)-state"
            env["XDG_DATA_HOME"] = world.directory.path + "/\(name)-data"
            envs.append(env)
        }
        defer { sandboxes.forEach { $0.stop() } }
        let ids = generated.photos.map(\.id)
        let before = try await Self.snapshot(envs[0], ids: ids)
        var jobs: [String] = []
        for env in envs {
            let plan = try await Self.flickr(["edit", "plan"] + Self.changes(generated), env)
            try #require(plan.status == 1, "\(plan.stdout)\(plan.stderr)")
            jobs.append(try Self.job(plan.stdout))
        }
        // The twin runs uninterrupted.
        let twin = try await Self.flickr(["edit", "apply", jobs[1], "--yes"], envs[1])
        #expect(twin.status == 0, "\(twin.stdout)\(twin.stderr)")
        var random = TestRandom("edit-kill")
        var kills = 0, killedMidWrite = 0
        var first = true
        for round in 0..<30 {
            let args = first ? ["edit", "apply", jobs[0], "--yes", "--events"] : ["edit", "resume", jobs[0], "--events"]
            if round % 3 == 0 {
                // Between the N-th write's answer and its journal entry: killed from outside.
                let (r, killed) = try await Products.runKilledAfterWrite(Int.random(in: 1...12, using: &random), args, environment: envs[0],
                                                                         timeout: 180)
                #expect(!r.timedOut, "round \(round): timed out")
                if !killed {
                    #expect(r.status == 0, "round \(round): \(r.status) \(r.stderr.suffix(300))")
                    break
                }
                killedMidWrite += 1
            } else {
                let run = try InteractiveProcess(try Products.executable("flickr"), args, environment: envs[0])
                let after = Int.random(in: 1...3, using: &random)
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline, run.process.isRunning, run.stderr.split(separator: "\n").filter({ $0.contains("\"outcome\"") }).count < after {
                    try await Task.sleep(for: .milliseconds(2))
                }
                guard run.process.isRunning else {
                    let status = await run.wait(timeout: 30)
                    if status == 0 { break }
                    Issue.record("round \(round): the run ended with \(String(describing: status)) before the kill: \(run.stderr.suffix(300))")
                    break
                }
                kill(run.process.processIdentifier, SIGKILL)
                _ = await run.wait(timeout: 30)
            }
            first = false
            kills += 1
        }
        let last = try await Self.flickr(["edit", "resume", jobs[0]], envs[0])
        #expect(last.status == 0, "\(last.stdout)\(last.stderr)")
        print("edit: \(kills) kills, \(killedMidWrite) of them between a write and its journal entry")
        #expect(kills >= 20 && killedMidWrite >= 5, "only \(kills) kills (\(killedMidWrite) between a write and its journal entry)")
        let killed = try await Self.snapshot(envs[0], ids: ids)
        let uninterrupted = try await Self.snapshot(envs[1], ids: ids)
        let differing = ids.filter { killed[$0] != uninterrupted[$0] }
        #expect(differing.isEmpty, "\(differing.count) photos differ from the uninterrupted run, e.g. \(differing.first.map { "\(killed[$0] ?? "") vs \(uninterrupted[$0] ?? "")" } ?? "")")
        #expect(ids.contains { killed[$0] != before[$0] }, "the job changed something")
        // Undo: every field back, sets included (the created set left empty of them).
        let undo = try await Self.flickr(["edit", "undo", jobs[0], "--yes"], envs[0])
        #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")
        let undone = try await Self.snapshot(envs[0], ids: ids)
        let notBack = ids.filter { undone[$0] != before[$0] }
        #expect(notBack.isEmpty, "\(notBack.count) photos not back, e.g. \(notBack.first.map { "\(undone[$0] ?? "") vs \(before[$0] ?? "")" } ?? "")")
        let again = try await Self.flickr(["edit", "undo", jobs[0], "--yes"], envs[0])
        #expect(again.status == 0 && again.stdout.contains("nothing to undo"), "\(again.stdout)\(again.stderr)")
        // The undo is a job of the kind it takes back, and names that job; only an undo has undo_of.
        let list = try await Self.flickr(["jobs", "--json"], envs[0])
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
        let undos = listed.filter { $0["undo_of"] != nil }
        #expect(listed.allSatisfy { $0["kind"] as? String == "edit" }, "\(listed.map { $0["kind"] ?? "" })")
        #expect(undos.count == 1 && undos.first?["undo_of"] as? String == jobs[0], "\(undos)")
        #expect(listed.contains { $0["id"] as? String == jobs[0] && $0["state"] as? String == "undone" })
    }

    @Test("A plan is stored as it is made and can be applied only once complete: killed after its first batch it is listed as incomplete, apply refuses it (exit 2, nothing written) and the next plan drops it and plans in full")
    func killedPlan() async throws {
        let world = try CommandWorld("edit-plan-kill")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let generated = LibraryWorld(count: 12, seed: "edit-plan-kill")
        let seed = try generated.writeSeed(in: world.directory)
        let sandbox = try await SandboxWorld.startProcess(["--port", "0", "--data", seed.path], environment: world.environment)
        defer { sandbox.stop() }
        var env = sandbox.environment(world.environment)
        env["XDG_STATE_HOME"] = world.directory.path + "/state"
        env["XDG_DATA_HOME"] = world.directory.path + "/data"
        let plan = ["edit", "plan", "--title", "cut {title}", "--query", "max_upload_date=\(generated.photos[11].posted)"]
        func jobs() async throws -> [[String: Any]] {
            let listed = try await Self.flickr(["jobs", "--json"], env)
            return try #require(JSONText.parsed(listed.stdout) as? [[String: Any]], "\(listed.stdout)\n\(listed.stderr)")
        }

        let (cut, killed) = try await Products.runKilledAfterPlanBatch(1, plan, environment: env)
        #expect(killed, "the plan ended before its first batch was stored: \(cut.stdout)\n\(cut.stderr)")
        let incomplete = try await jobs()
        #expect(incomplete.count == 1 && incomplete.first?["state"] as? String == "incomplete", "\(incomplete)")
        let id = try #require(incomplete.first?["id"] as? String)
        let refused = try await Self.flickr(["edit", "apply", id, "--yes"], env)
        #expect(refused.status == 2 && refused.stderr.contains("its plan ended before all of it was stored"), "\(refused.status): \(refused.stdout)\n\(refused.stderr)")
        let untouched = try await Self.snapshot(env, ids: generated.photos.map(\.id))
        #expect(!untouched.values.contains { $0.hasPrefix("cut ") }, "a photo was written: \(untouched)")

        let again = try await Self.flickr(plan, env)
        #expect(again.status == 1, "\(again.stderr)")
        let job = try Self.job(again.stdout)
        let listed = try await jobs()
        #expect(listed.map { $0["id"] as? String } == [job] && listed.first?["state"] as? String == "planned"
                && listed.first?["photos"] as? Int == 12, "the incomplete plan is dropped, the new one complete: \(listed)")
        let applied = try await Self.flickr(["edit", "apply", job, "--yes"], env)
        #expect(applied.status == 0, "\(applied.stdout)\n\(applied.stderr)")
        let titled = try await Self.snapshot(env, ids: generated.photos.map(\.id))
        #expect(titled.values.allSatisfy { $0.hasPrefix("cut ") }, "\(titled)")
    }

    @Test("On a synced library a plan with --find costs only the incremental sync (no listing, no getInfo); apply costs one call per group per photo plus the conflict check; the library holds what was written")
    func findOnTheLibrary() async throws {
        let world = LibraryWorld(count: 300, seed: "edit-find")
        try await world.serve { server, alice, env, log in
            let sync = try await Self.flickr(["sync"], env)
            try #require(sync.status == 0, "\(sync.stderr)")
            let (plan, planCalls) = try await LibraryWorld.counting(log) {
                try await Self.flickr(["edit", "plan", "--find", "taken=2015-02", "--privacy", "private", "--title", "{title} ({date_taken:%Y})",
                                       "--geo", "1.5,2.5"], env)
            }
            try #require(plan.status == 1, "\(plan.stdout)\(plan.stderr)")
            let methods = LibraryWorld.calls(in: log).suffix(planCalls)
            #expect(planCalls <= 5 + 10, "the plan took \(planCalls) calls: \(Array(methods))")
            #expect(!methods.contains("flickr.photos.getInfo") && !methods.contains("flickr.people.getPhotos") && !methods.contains("flickr.photos.search"),
                    "\(Array(methods))")
            let job = try Self.job(plan.stdout)
            let photos = plan.stdout.split(separator: "\n").filter { $0.hasPrefix("photo ") }.count
            let expectedInYear = world.photos.filter { $0.taken.hasPrefix("2015-02") }.count
            #expect(photos > 0 && photos <= expectedInYear, "\(photos) photos planned, \(expectedInYear) taken in 2015-02")
            let groups = plan.stdout.split(separator: "\n").filter { $0.hasPrefix("  title:") || $0.hasPrefix("  privacy:") || $0.hasPrefix("  geo:") }.count
            let (apply, applyCalls) = try await LibraryWorld.counting(log) { try await Self.flickr(["edit", "apply", job, "--yes"], env) }
            #expect(apply.status == 0, "\(apply.stdout)\(apply.stderr)")
            #expect(applyCalls == groups + (photos + 499) / 500, "apply: \(applyCalls) calls for \(groups) groups")
            let found = try await Self.flickr(["find", "taken=2015-02", "privacy=private", "--ids"], env)
            #expect(found.stdout.split(separator: "\n").count >= photos, "the library holds what the edit wrote: \(found.stdout)")
        }
    }

    @Test("Plan checks before any request: an unknown template field, a latitude out of range, --geo with --clear-geo, an unknown licence, a set of another user; exit 2, nothing sent")
    func refusals() async throws {
        let world = try CommandWorld("edit-refusals")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let log = world.directory.appendingPathComponent("log.jsonl")
        let sandbox = try await SandboxWorld.startProcess(["--port", "0", "--log", log.path], environment: world.environment)
        defer { sandbox.stop() }
        let env = sandbox.environment(world.environment)
        for (args, message) in [(["--title", "{place} {title}"], "{place} is not a field"),
                                (["--geo", "95,10"], "latitude 95 is outside -90..90"),
                                (["--geo", "1,2", "--clear-geo"], "--geo and --clear-geo exclude each other"),
                                (["--shift-taken", "3h"], "needs a sign"),
                                (["--privacy", "everyone"], "--privacy"),
                                (["--title", "{date_taken:%A %d %B} {title}"], "%A is not a date directive; the directives are %Y")] {
            let r = try await Self.flickr(["edit", "plan"] + args, env)
            #expect(r.status == 2 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        let calls = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").count
        #expect(calls == 0, "usage errors made \(calls) requests")
        // Those that need Flickr's lists: refused after reading them, before any write.
        let licence = try await Self.flickr(["edit", "plan", "--license", "gpl"], env)
        #expect(licence.status == 2 && licence.stderr.contains("no licence is called 'gpl'"), "\(licence.stderr)")
        let set = try await Self.flickr(["edit", "plan", "--add-to-set", "72157600000000999"], env)
        #expect(set.status == 2 && set.stderr.contains("you have no set with id"), "\(set.stderr)")
        let methods = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["method"] as? String
        }
        #expect(Set(methods).isSubset(of: ["flickr.photos.licenses.getInfo", "flickr.photosets.getList"]), "\(methods)")
    }

    @Test("A plan counts every call it makes — the licences' and sets' look-ups, the listing, each read — as the access log does: in its summary, plan_calls and flickr jobs; a retag plan too")
    func planCountsItsCalls() async throws {
        let world = LibraryWorld(count: 30, seed: "edit-plan-calls")
        try await world.serve { _, _, env, log in
            let args = ["edit", "plan", "--license", "by-sa", "--add-to-set", world.sets[0].title, "--remove-from-set", world.sets[1].title,
                        "--title", "{title}!", "--query", "max_upload_date=\(world.photos[9].posted)"]
            let (plan, logged) = try await LibraryWorld.counting(log) { try await Self.flickr(args, env) }
            try #require(plan.status == 1, "\(plan.stdout)\(plan.stderr)")
            let methods = Set(LibraryWorld.calls(in: log).suffix(logged))
            #expect(methods.isSuperset(of: ["flickr.photos.licenses.getInfo", "flickr.photosets.getList"]), "\(methods)")
            #expect(plan.stdout.contains("the plan took \(logged) calls"), "the access log has \(logged): \(plan.stdout.suffix(300))")
            let (json, loggedJSON) = try await LibraryWorld.counting(log) { try await Self.flickr(args + ["--json"], env) }
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(document["plan_calls"] as? Int == loggedJSON, "plan_calls \(document["plan_calls"] ?? "-"), the access log \(loggedJSON)")
            let jobs = try #require(try JSONSerialization.jsonObject(with: Data(try await Self.flickr(["jobs", "--json"], env).stdout.utf8)) as? [[String: Any]])
            #expect(jobs.first { $0["id"] as? String == document["job"] as? String }?["calls"] as? Int == loggedJSON, "\(jobs)")
            let (retag, loggedRetag) = try await LibraryWorld.counting(log) { try await Self.flickr(["retag", "plan", "--add", "counted"], env) }
            #expect(retag.stdout.contains("the plan took \(loggedRetag) call"), "the access log has \(loggedRetag): \(retag.stdout.suffix(300))")
        }
    }

    @Test("Job fronts keep their word: jobs show counts by state and lists what to act on (--all every photo, --json for programs); a photo refused at plan time is refused, not failed, and alone does not fail apply; --json plans name each field and its group with typed values; a plan file applies on a machine without the job; retag and edit refuse each other's jobs naming the command that runs them, nothing sent")
    func jobFronts() async throws {
        let world = try CommandWorld("edit-fronts")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let ids = (1...6).map { "73000000\($0)" }
        let photos: [[String: Any]] = ids.enumerated().map { n, id in
            ["id": id, "owner": "alice", "title": "p\(n)", "tags": "front", "date_taken": n == 0 ? "1900-01-01 05:00:00" : "2019-05-0\(n) 10:00:00"]
        }
        let log = world.directory.appendingPathComponent("access.jsonl")
        try await SandboxWorld.with(seed: .object(["users": [["username": "alice"]], "photos": photos]), accessLog: log) { sandbox in
            let env = sandbox.environment(world.environment)
            let client = sandbox.client()
            func object(_ text: String) throws -> [String: Any] {
                try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
            }
            // --json: each change by field, with its group and typed values.
            let changes = ["--query", "tags=front", "--title", "T {title}", "--license", "4", "--geo", "1.5,2.5,11", "--shift-taken", "-1d"]
            let json = try await Self.flickr(["edit", "plan", "--json"] + changes, env)
            let document = try object(json.stdout)
            let planned = try #require(document["photos"] as? [[String: Any]])
            let first = try #require(planned.first?["changes"] as? [[String: Any]])
            let byField = Dictionary(first.map { ($0["field"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byField["title"]?["group"] as? String == "meta" && (byField["title"]?["to"] as? String)?.hasPrefix("T p") == true, "\(first)")
            #expect(byField["date_taken"]?["group"] as? String == "dates", "\(first)")
            #expect(byField["license"]?["group"] as? String == "license" && byField["license"]?["to"] as? Int == 4, "\(first)")
            let geo = try #require(byField["geo"]?["to"] as? [String: Any], "\(first)")
            #expect(geo["lat"] as? Double == 1.5 && geo["lon"] as? Double == 2.5 && geo["accuracy"] as? Int == 11, "\(geo)")
            #expect(planned.first?["diff"] is [String], "\(planned.first ?? [:])")
            // The photo taken on 1900-01-01 cannot move a day earlier: refused at plan time.
            let refused = try #require(document["refused"] as? [[String: Any]])
            #expect(refused.map { $0["id"] as? String } == [ids[0]], "\(refused)")

            // A plan file applied on a machine whose job database lacks the job: imported, then applied.
            let file = world.directory.appendingPathComponent("plan.json").path
            let plan = try await Self.flickr(["edit", "plan", "--out", file] + changes, env)
            try #require(plan.status == 1, "\(plan.stdout)\(plan.stderr)")
            let job = try Self.job(plan.stdout)
            var other = env
            other["XDG_STATE_HOME"] = world.directory.path + "/other-machine"
            let apply = try await Self.flickr(["edit", "apply", file, "--yes"], other)
            #expect(apply.status == 0, "refused photos alone do not fail apply: \(apply.stdout)\(apply.stderr)")
            #expect(apply.stderr.contains("imported job \(job)"), "\(apply.stderr)")
            #expect(apply.stdout.contains("5 of 5 photos done, 0 failed") && apply.stdout.contains("1 refused at plan time"), "\(apply.stdout)")
            #expect(apply.stdout.contains("refused: photo \(ids[0])"), "\(apply.stdout)")
            for id in ids.dropFirst() {
                let info = try await client.call("flickr.photos.getInfo", ["photo_id": id])
                #expect(info["photo"]?["title"]?.text?.hasPrefix("T p") == true && info["photo"]?["license"]?.string == "4", "photo \(id)")
            }
            let untouched = try await client.call("flickr.photos.getInfo", ["photo_id": ids[0]])
            #expect(untouched["photo"]?["title"]?.text == "p0", "the refused photo was written")
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(try await Self.flickr(["jobs", "--json"], other).stdout.utf8)) as? [[String: Any]])
            let entry = try #require(listed.first { $0["id"] as? String == job })
            #expect(entry["state"] as? String == "done" && entry["refused"] as? Int == 1 && entry["failed"] as? Int == 0 && entry["photos"] as? Int == 5, "\(entry)")

            // jobs show: counts by state and the photos to act on; --all every photo; --json all of it.
            let shown = try await Self.flickr(["jobs", "show", job], other)
            #expect(shown.status == 0 && shown.stdout.contains("5 done") && shown.stdout.contains("1 refused"), "\(shown.stdout)")
            let photoLines = shown.stdout.split(separator: "\n").filter { $0.contains(": photo ") }
            #expect(photoLines.count == 1 && photoLines[0].contains("refused: photo \(ids[0])"), "\(shown.stdout)")
            let shownAll = try await Self.flickr(["jobs", "show", job, "--all"], other)
            #expect(shownAll.stdout.split(separator: "\n").filter { $0.contains(": photo ") }.count == 6, "\(shownAll.stdout)")
            let shownJSON = try object(try await Self.flickr(["jobs", "show", job, "--json"], other).stdout)
            #expect((shownJSON["counts"] as? [String: Int])?["done"] == 5 && (shownJSON["photos_detail"] as? [Any])?.count == 6, "\(shownJSON)")
            // A job never applied: its planned photos are counted, not listed.
            let waiting = try await Self.flickr(["edit", "plan", "--query", "tags=front", "--title", "W {title}"], env)
            let waitingShown = try await Self.flickr(["jobs", "show", try Self.job(waiting.stdout)], env)
            #expect(waitingShown.stdout.contains("6 planned") && !waitingShown.stdout.contains("planned: photo"), "\(waitingShown.stdout)")

            // retag and edit refuse each other's jobs, naming the command that runs them; nothing sent.
            let retagPlan = try await Self.flickr(["retag", "plan", "--add", "fronts", "--query", "tags=front"], env)
            let retagJob = try #require(retagPlan.stdout.firstMatch(of: /job (retag-[0-9a-f-]+):/).map { String($0.1) }, "\(retagPlan.stdout)")
            let sent = LibraryWorld.calls(in: log).count
            for (args, names) in [(["retag", "apply", job, "--yes"], "flickr edit apply \(job)"), (["retag", "resume", job], "flickr edit resume \(job)"),
                                  (["retag", "undo", job, "--yes"], "flickr edit undo \(job)"),
                                  (["edit", "apply", retagJob, "--yes"], "flickr retag apply \(retagJob)"),
                                  (["edit", "undo", retagJob, "--yes"], "flickr retag undo \(retagJob)")] {
                let r = try await Self.flickr(args, other.merging(["XDG_STATE_HOME": env["XDG_STATE_HOME"] ?? ""]) { $1 })
                #expect(r.status == 2 && r.stderr.contains(names) && r.stderr.contains("flickr jobs"), "\(args): \(r.status) \(r.stderr)")
            }
            #expect(LibraryWorld.calls(in: log).count == sent, "a refused command sent a request")
            // An edit's errors say edit.
            let noKey = try await Self.flickr(["edit", "apply", "last", "--yes"], env.merging(["FLICKR_API_KEY": ""]) { $1 })
            #expect(noKey.status == 2 && noKey.stderr.contains("edit") && !noKey.stderr.contains("retag"), "\(noKey.stderr)")
        }
    }

    @Test("--shift-taken on dates known to the month, the year or circa: -9h changes none (exit 0); +40d moves the month-date one whole month, day and granularity kept, and says so; the diff names the granularity on both sides; read back by getInfo")
    func shiftKeepsGranularity() async throws {
        let world = try CommandWorld("edit-granularity")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let photos: [[String: Any]] = [("7100000001", "2019-03-05 00:00:00", 4), ("7100000002", "2019-01-01 00:00:00", 6),
                                       ("7100000003", "2019-01-01 00:00:00", 8)].map { id, taken, granularity in
            ["id": id, "owner": "alice", "title": "p\(id)", "tags": "granular", "date_taken": taken, "date_taken_granularity": granularity]
        }
        try await SandboxWorld.with(seed: .object(["users": [["username": "alice"]], "photos": photos])) { sandbox in
            let env = sandbox.environment(world.environment)
            let none = try await Self.flickr(["edit", "plan", "--query", "tags=granular", "--shift-taken", "-9h"], env)
            #expect(none.status == 0 && none.stdout.contains("0 photos to change"), "\(none.stdout) \(none.stderr)")
            let plan = try await Self.flickr(["edit", "plan", "--query", "tags=granular", "--shift-taken", "+40d"], env)
            #expect(plan.status == 1, "\(plan.stdout) \(plan.stderr)")
            #expect(plan.stdout.contains("date_taken: \"2019-03-05 00:00:00\" (month) → \"2019-04-05 00:00:00\" (month)"), "\(plan.stdout)")
            #expect(!plan.stdout.contains("photo 7100000002") && !plan.stdout.contains("photo 7100000003"), "\(plan.stdout)")
            #expect(plan.stderr.contains("photo 7100000001: its date taken is known to the month only"), "\(plan.stderr)")
            let apply = try await Self.flickr(["edit", "apply", try Self.job(plan.stdout), "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            let client = sandbox.client()
            for (id, taken, granularity) in [("7100000001", "2019-04-05 00:00:00", "4"), ("7100000002", "2019-01-01 00:00:00", "6"),
                                             ("7100000003", "2019-01-01 00:00:00", "8")] {
                let info = try await client.call("flickr.photos.getInfo", ["photo_id": id])
                #expect(info["photo"]?["dates"]?["taken"]?.string == taken && info["photo"]?["dates"]?["takengranularity"]?.string == granularity,
                        "photo \(id): \(String(describing: info["photo"]?["dates"]))")
            }
        }
    }

    @Test("edit undo names its conflicts as retag undo does: a photo retitled since is counted and named, exit 1, the job stays undoable and --force undoes it; a tag added since stays while the job's tag leaves")
    func undoConflicts() async throws {
        let world = LibraryWorld(count: 6, seed: "edit-undo-conflicts")
        try await world.serve { _, alice, env, _ in
            func info(_ id: String) async throws -> (title: String, tags: [String]) {
                let photo = try await alice.call("flickr.photos.getInfo", ["photo_id": id])["photo"]
                let tags = (photo?["tags"]?["tag"]?.array ?? []).filter { $0["author"]?.string == photo?["owner"]?["nsid"]?.string }
                return (photo?["title"]?.text ?? "", tags.compactMap { $0["raw"]?.string })
            }
            let ids = world.photos.map(\.id)
            var before: [String: (title: String, tags: [String])] = [:]
            for id in ids { before[id] = try await info(id) }
            let plan = try await Self.flickr(["edit", "plan", "--title", "Edited {title}", "--add", "edited"], env)
            #expect(plan.status == 1, "\(plan.stdout) \(plan.stderr)")
            let apply = try await Self.flickr(["edit", "apply", try Self.job(plan.stdout), "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            // After the job: one photo retitled by hand, another given a tag.
            let (retitled, tagged) = (ids[0], ids[1])
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": retitled, "title": "By hand", "description": ""])
            _ = try await alice.call("flickr.photos.addTags", ["photo_id": tagged, "tags": "later"])
            let undo = try await Self.flickr(["edit", "undo", "last", "--yes"], env)
            #expect(undo.status == 1, "\(undo.stdout) \(undo.stderr)")
            #expect(undo.stdout.contains("1 conflict") && undo.stdout.contains(retitled), "\(undo.stdout)")
            #expect(try await info(retitled).title == "By hand")
            let kept = try await info(tagged)
            #expect(kept.title == before[tagged]?.title && Set(kept.tags) == Set((before[tagged]?.tags ?? []) + ["later"]), "\(kept)")
            for id in ids.dropFirst() where id != tagged {
                let now = try await info(id)
                #expect(now.title == before[id]?.title && Set(now.tags) == Set(before[id]?.tags ?? []), "photo \(id): \(now)")
            }
            let parent = try await Self.flickr(["jobs", "--json"], env)
            let jobs = try #require(try JSONSerialization.jsonObject(with: Data(parent.stdout.utf8)) as? [[String: Any]])
            #expect(jobs.first { $0["undo_of"] == nil }?["state"] as? String == "done", "\(jobs)")
            let forced = try await Self.flickr(["edit", "undo", "last", "--yes", "--force"], env)
            #expect(forced.status == 0, "\(forced.stdout) \(forced.stderr)")
            #expect(try await info(retitled).title == before[retitled]?.title)
        }
    }

    @Test("--lua FILE: flickr.edit.plan's rule from a file, over the options — photos retitled from their date and a tag added; what Flickr would refuse refuses that photo; an error in the file is exit 2 naming it, with no job stored and nothing written")
    func luaRule() async throws {
        let world = LibraryWorld(count: 20, seed: "edit-lua")
        try await world.serve { server, alice, env, log in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edit-lua-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            func file(_ name: String, _ text: String) throws -> String {
                let url = dir.appendingPathComponent(name)
                try Data(text.utf8).write(to: url)
                return url.path
            }
            let rule = try file("dated.lua", """
                -- Titles from the date taken; photos taken on the first of a month left alone.
                return function(photo)
                  if photo.date_taken:sub(9, 10) == "01" then return nil end
                  return { title = photo.date_taken:sub(1, 10) .. " " .. photo.title, add = "dated" }
                end
                """)
            // The first 7 uploads (the world's photos are posted in order).
            let query = ["--query", "max_upload_date=\(world.photos[6].posted)"]
            let selected = world.photos.prefix(7)
            let plan = try await Self.flickr(["edit", "plan", "--lua", rule, "--add", "trip"] + query, env)
            try #require(plan.status == 1, "\(plan.stdout)\(plan.stderr)")
            for photo in selected {
                let lines = plan.stdout.components(separatedBy: "photo \(photo.id)\n").dropFirst().first?.components(separatedBy: "\nphoto ").first ?? ""
                if photo.taken.dropFirst(8).prefix(2) == "01" {
                    #expect(!lines.contains("title:") && lines.contains("tags: + trip") && !lines.contains("dated"), "\(photo.id): \(lines)")
                } else {
                    #expect(lines.contains("title: \(JSONValue.quote(photo.title)) → \(JSONValue.quote(String(photo.taken.prefix(10)) + " " + photo.title))"),
                            "\(photo.id): \(lines)")
                    #expect(lines.contains("tags: + trip") && lines.contains("tags: + dated"), "\(photo.id): \(lines)")
                }
            }
            #expect(plan.stdout.contains("to change of \(selected.count) looked at"), "\(plan.stdout)")
            let job = try Self.job(plan.stdout)
            let apply = try await Self.flickr(["edit", "apply", job, "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout)\(apply.stderr)")
            for photo in selected {
                let now = try #require(PhotoMetadata(getInfo: try await alice.call("flickr.photos.getInfo", ["photo_id": photo.id])))
                let dated = photo.taken.dropFirst(8).prefix(2) != "01"
                #expect(now.title == (dated ? String(photo.taken.prefix(10)) + " " + photo.title : photo.title), "\(photo.id): \(now.title)")
                #expect(now.ownerTags.contains("trip") && now.ownerTags.contains("dated") == dated, "\(photo.id): \(now.ownerTags)")
            }
            let undo = try await Self.flickr(["edit", "undo", job, "--yes"], env)
            #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")

            // A value Flickr would refuse: that photo refused, with the reason; the others planned.
            let first = try #require(selected.first).id
            let refusing = try file("refusing.lua", """
                return function(photo)
                  if photo.id == "\(first)" then return { geo = { lat = 95, lon = 10 }, title = "never" } end
                  return { title = "ok" }
                end
                """)
            let refused = try await Self.flickr(["edit", "plan", "--lua", refusing] + query, env)
            #expect(refused.status == 1 && refused.stdout.contains("photo \(first): not changed: geo: latitude 95 is outside -90..90")
                    && refused.stdout.contains("; 1 refused"), "\(refused.stdout)\(refused.stderr)")

            // An error in the file, an answer of the wrong form, a file that does not give a function:
            // exit 2, the file named, no job stored, nothing written.
            let jobsBefore = try await Self.flickr(["jobs", "--json"], env).stdout
            let writesBefore = LibraryWorld.calls(in: log).filter { $0.contains(".set") || $0.contains(".add") || $0.contains(".remove") }.count
            for (name, text, message) in [("raises.lua", "return function(photo) error('no date for ' .. photo.id) end", "no date for "),
                                          ("misspelt.lua", "return function(photo) return { titel = 'x' } end", "unknown change 'titel' (did you mean title?)"),
                                          ("number.lua", "return 42", "must return function(photo)"),
                                          ("syntax.lua", "return function(", "expected near <eof>")] {
                let path = try file(name, text)
                let r = try await Self.flickr(["edit", "plan", "--lua", path] + query, env)
                #expect(r.status == 2 && r.stderr.contains("--lua \(path)") && r.stderr.contains(message) && r.stdout.isEmpty,
                        "\(name): \(r.status) \(r.stdout)\(r.stderr)")
            }
            let jobsAfter = try await Self.flickr(["jobs", "--json"], env).stdout
            #expect(jobsAfter == jobsBefore, "a failed plan stored a job")
            let writesAfter = LibraryWorld.calls(in: log).filter { $0.contains(".set") || $0.contains(".add") || $0.contains(".remove") }.count
            #expect(writesAfter == writesBefore, "a failed plan wrote")
            let missing = try await Self.flickr(["edit", "plan", "--lua", dir.appendingPathComponent("none.lua").path], env)
            #expect(missing.status == 2 && missing.stderr.contains("--lua: cannot read"), "\(missing.stderr)")
        }
    }

    @Test("A lost answer settled by reading: the answer to photosets.create lost (the client killed as it arrives, or alive and cut off) and the answers to a photo's addPhoto and to a removePhoto lost: resume makes no second set, reports no conflict, and no photo is ever outside both sets; an independent read-back")
    func lostAnswers() async throws {
        let world = try CommandWorld("edit-lost-answer")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let ids = (1...5).map { "72000000\($0)" }
        let seed: [String: Any] = [
            "users": [["username": "alice"]],
            "photos": ids.map { ["id": $0, "owner": "alice", "title": "p\($0)", "tags": $0 == ids[4] ? "home" : "trip"] },
            "photosets": [["owner": "alice", "title": "Road trip", "photos": ids]],
        ]
        let moved = Array(ids.prefix(4))
        /// Every photo's sets by title, read by a client of its own.
        func sets(_ client: FlickrClient) async throws -> [String: Set<String>] {
            var out: [String: Set<String>] = [:]
            for id in ids {
                let contexts = try await client.call("flickr.photos.getAllContexts", ["photo_id": id])
                out[id] = Set((contexts["set"]?.array ?? []).compactMap { $0["title"]?.text })
            }
            return out
        }
        func titled(_ title: String, _ client: FlickrClient) async throws -> Int {
            let list = try await client.call("flickr.photosets.getList", [:])
            return (list["photosets"]?["photoset"]?.array ?? []).filter { $0["title"]?.text == title }.count
        }
        // (the method whose answer is lost, which of its requests, whether the client is killed)
        for (method, occurrence, kills) in [("flickr.photosets.create", 1, true), ("flickr.photosets.addPhoto", 1, true),
                                            ("flickr.photosets.removePhoto", 2, true),
                                            ("flickr.photosets.create", 1, false)] {
            let label = "\(method) #\(occurrence)\(kills ? " and kill" : "")"
            try await SandboxWorld.with(seed: .object(seed)) { sandbox in
                var env = sandbox.environment(world.environment)
                env["XDG_STATE_HOME"] = world.directory.path + "/state-\(UUID().uuidString)"
                let client = sandbox.client()
                let plan = try await Self.flickr(["edit", "plan", "--query", "tags=trip", "--remove-from-set", "Road trip",
                                                  "--add-to-set", "Iceland", "--create-set"], env)
                try #require(plan.status == 1, "\(label): \(plan.stdout) \(plan.stderr)")
                let job = try Self.job(plan.stdout)
                let running = Mutex<InteractiveProcess?>(nil)
                let proxy = try AnswerLosingProxy(upstreamPort: sandbox.port, marker: "method=\(method)", occurrence: occurrence) {
                    guard kills else { return }
                    let deadline = Date().addingTimeInterval(10)
                    while Date() < deadline {
                        if let run = running.withLock({ $0 }) {
                            kill(run.process.processIdentifier, SIGKILL)
                            return
                        }
                        usleep(1000)
                    }
                }
                defer { proxy.stop() }
                var proxied = env
                proxied["FLICKR_ENDPOINT"] = proxy.url(replacing: sandbox.url)
                let run = try InteractiveProcess(try Products.executable("flickr"), ["edit", "apply", job, "--yes"], environment: proxied)
                running.withLock { $0 = run }
                let status = await run.wait(timeout: 120)
                #expect(proxy.answerLost, "\(label): the proxy never saw the answer: \(run.stderr)")
                if kills {
                    #expect(status != nil && run.process.terminationReason == .uncaughtSignal, "\(label): \(String(describing: status)) \(run.stderr)")
                    // At the kill: every photo in one of the two sets at least.
                    let cut = try await sets(client)
                    #expect(moved.allSatisfy { !(cut[$0] ?? []).isEmpty }, "\(label): a photo in no set after the kill: \(cut)")
                    let resume = try await Self.flickr(["edit", "resume", job], env)
                    #expect(resume.status == 0, "\(label): \(resume.stdout) \(resume.stderr)")
                    #expect(!resume.stdout.contains("conflict:") && !resume.stderr.contains("conflict"), "\(label): \(resume.stdout)")
                } else {
                    #expect(status == 0, "\(label): \(String(describing: status)) \(run.stdout) \(run.stderr)")
                }
                let end = try await sets(client)
                #expect(try await titled("Iceland", client) == 1, "\(label): one set titled Iceland")
                for id in moved { #expect(end[id] == ["Iceland"], "\(label): photo \(id) is in \(end[id] ?? [])") }
                #expect(end[ids[4]] == ["Road trip"], "\(label): the photo outside the job is in \(end[ids[4]] ?? [])")
                let jobs = try await Self.flickr(["jobs", "--json"], env)
                let listed = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]])
                #expect(listed.first { $0["id"] as? String == job }?["state"] as? String == "done", "\(label): \(listed)")
            }
        }
    }
}
