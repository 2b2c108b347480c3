import FlickrAPI
import FlickrJobs
@testable import FlickrLibrary
import FlickrProtocol
@testable import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// The library as a user meets it: `flickr sync`, `flickr find`, `flickr.library` in Lua and
/// `flickr retag` over a mirror — the real `flickr` against a sandbox (the `flickr-sandbox`
/// binary where it is killed around).
@Suite("Library commands: sync survives kill -9, one sync at a time, find and Lua make no call, retag reads the mirror",
       .timeLimit(.minutes(8)), .tags(.command, .heavy))
struct LibraryCommandTests {
    static func flickr(_ args: [String], _ env: [String: String]) async throws -> Products.Result {
        let r = try await Products.run(try Products.executable("flickr"), args, environment: env, timeout: 120)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// Waits until the process's stderr has `count` lines (or it ended); true when it has.
    static func waitForStderrLines(_ process: InteractiveProcess, _ count: Int, timeout: Double = 60) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if process.stderr.split(separator: "\n").count >= count { return true }
            if !process.process.isRunning { return process.stderr.split(separator: "\n").count >= count }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Where two mirrors of one world differ (live photos' listed fields, sets with members).
    static func differences(_ a: LibraryStore, _ b: LibraryStore) throws -> [String] {
        func listed(_ p: LibraryPhoto) -> LibraryPhoto {
            var p = p
            (p.raw_tags, p.deep_update, p.notes, p.people, p.comments, p.deleted) = (nil, nil, nil, nil, nil, nil)
            return p
        }
        var out: [String] = []
        let (ra, rb) = (try a.records(try a.ids(LibraryFilter([:]))), try b.records(try b.ids(LibraryFilter([:]))))
        if ra.map(\.photo.id) != rb.map(\.photo.id) { out.append("photo ids differ: \(ra.count) vs \(rb.count)") }
        for (x, y) in zip(ra, rb) where listed(x.photo) != listed(y.photo) || x.sets.sorted() != y.sets.sorted() {
            out.append("photo \(x.photo.id) differs: \(x.photo) vs \(y.photo)")
            if out.count > 10 { break }
        }
        if try a.sets() != b.sets() { out.append("sets differ") }
        return out
    }

    @Test("kill -9 of `flickr sync` twenty times at varied points (first syncs, deep incremental syncs after edits, deletions and uploads), each followed by a rerun: the mirror is exact and passes integrity_check")
    func killNineDuringSync() async throws {
        let world = LibraryWorld(count: 600, seed: "library-kill")
        let home = try CommandWorld("library-kill")
        defer { try? FileManager.default.removeItem(at: home.directory) }
        let seed = try world.writeSeed(in: home.directory)
        let state = home.directory.appendingPathComponent("sandbox-state").path
        let syncedEnv = try await SandboxWorld.withProcess(["--latency", "20", "--state", state], seed: .file(seed),
                                                           environment: home.environment) { sandbox in
            var env = sandbox.environment(home.environment)
            env["XDG_DATA_HOME"] = home.directory.path + "/data"
            let credentials = SandboxCredentials(apiKey: sandbox.values["api_key"] ?? "", apiSecret: sandbox.values["api_secret"] ?? "",
                                                 oauthToken: sandbox.values["oauth_token"] ?? "", oauthTokenSecret: sandbox.values["oauth_token_secret"] ?? "",
                                                 userNSID: LibraryWorld.alice, username: "alice")
            let url = sandbox.values["url"] ?? ""
            let alice = LibraryWorld.client(credentials, url: url)
            let deleter = LibraryWorld.client(credentials, url: url, token: LibraryWorld.deleteToken)
            let flickr = try Products.executable("flickr")
            let database = LibraryStore.path(for: LibraryWorld.alice, in: LibraryStore.directory(environment: env))
            var random = TestRandom("library-kill")
            var ids = world.photos.map(\.id)
            var killed = 0
            for round in 0..<20 {
                let deep = round >= 8
                if deep {
                    // Work for an incremental deep sync: edits, now and then a deletion, an upload, a set change.
                    for id in ids.shuffled(using: &random).prefix(6) {
                        _ = try await alice.call("flickr.photos.setMeta", ["photo_id": id, "title": "Round \(round)", "description": ""])
                        _ = try await alice.call("flickr.photos.addTags", ["photo_id": id, "tags": "round\(round) \"Round \(round)\""])
                    }
                    if round % 2 == 0 {
                        let victim = ids.remove(at: Int.random(in: 0..<ids.count, using: &random))
                        _ = try await deleter.call("flickr.photos.delete", ["photo_id": victim])
                    }
                    if round % 3 == 0, let id = try await alice.upload(.bytes([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: UInt8(round), count: 100),
                                                                              filename: "r\(round).jpg"), arguments: ["tags": "uploaded"]).photoID {
                        ids.append(id)
                        _ = try await alice.call("flickr.photosets.addPhoto", ["photoset_id": world.sets[1].id, "photo_id": id])
                    }
                } else {
                    // A first sync each time: the library is removed.
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
                }
                let args = ["sync", "--events"] + (deep ? ["--deep"] : [])
                let run = try InteractiveProcess(flickr, args, environment: env)
                // Kill after the k-th progress event: pages of the listing, sets, deep reads. Early
                // enough that the sync is still running when the kill lands (a first sync has 9
                // events, the last ones a set read of 20 ms apart: killed after the 8th, it had
                // often finished — 14 of 20 killed in one CI rehearsal).
                let k = deep ? 1 + (round - 8) % 3 : 1 + round % 5
                _ = await Self.waitForStderrLines(run, k)
                let wasRunning = run.process.isRunning
                kill(run.process.processIdentifier, SIGKILL)
                let status = await run.wait(timeout: 30)
                if wasRunning && run.process.terminationReason == .uncaughtSignal { killed += 1 }
                // Killed, or finished just before the kill arrived: a sync that failed by itself is the fault.
                #expect(run.process.terminationReason == .uncaughtSignal || status == 0, "round \(round): \(String(describing: status)) \(run.stderr)")

                let rerun = try await Self.flickr(["sync", "--json"] + (deep ? ["--deep"] : []), env)
                try #require(rerun.status == 0, "round \(round): \(rerun.stdout) \(rerun.stderr)")
                let store = try LibraryWorld.store(env)
                #expect(try LibraryWorld.integrity(store) == "ok", "round \(round)")
                // Exact: as an uninterrupted sync into a fresh library sees the world.
                let reference = try LibraryStore(path: home.directory.path + "/reference-\(round).sqlite", account: LibraryWorld.alice)
                _ = try await LibrarySync(client: alice, store: reference).run()
                let differences = try Self.differences(store, reference)
                #expect(differences.isEmpty, "round \(round): \(differences.prefix(5))")
                if deep {
                    let status = try store.status()
                    #expect(status.deep == status.photos, "round \(round): \(status)")
                }
            }
            print("library: \(killed) of 20 syncs killed mid-way")
            #expect(killed >= 15, "only \(killed) of 20 syncs were killed while running")
            // Field by field against the sandbox's own state (raw tags included): stop it, read its state.
            let running = try #require(sandbox.process)
            kill(running.process.process.processIdentifier, SIGTERM)
            _ = await running.process.wait(timeout: 30)
            return env
        }
        var configuration = SandboxConfiguration()
        configuration.stateDirectory = state
        let differences = try await SandboxWorld.with(configuration) { sandbox in
            try LibraryWorld.differences(try LibraryWorld.store(syncedEnv), try sandbox.inProcessServer(), deep: true)
        }
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    @Test("Two `flickr sync` at once: the second names the holder's pid and host and exits 75; the first finishes")
    func twoSyncs() async throws {
        let world = LibraryWorld(count: 2_000, seed: "library-two")
        try await world.serve(latency: 40) { _, _, env, _ in
            let flickr = try Products.executable("flickr")
            var contended = 0
            for round in 0..<3 {
                let first = try InteractiveProcess(flickr, ["sync", "--full", "--events"], environment: env)
                // It holds the lock once it reports progress.
                #expect(await Self.waitForStderrLines(first, 1), "round \(round): \(first.stderr)")
                let second = try await Self.flickr(["sync"], env)
                let firstStatus = await first.wait(timeout: 120)
                #expect(firstStatus == 0, "round \(round): \(first.stderr)")
                if second.stderr.contains("is being run by process \(first.process.processIdentifier) on host ") {
                    contended += 1
                    #expect(second.status == 75 && second.stderr.contains("the library of \(LibraryWorld.alice)"), "round \(round): \(second.stderr)")
                } else {
                    // Started after the first had finished: it synced.
                    #expect(second.status == 0, "round \(round): \(second.stderr)")
                }
            }
            #expect(contended >= 2, "only \(contended) of 3 rounds had the two syncs meet")
        }
    }

    @Test("flickr find (--ids, --json, --csv, --fields) and flickr.library in Lua answer from the mirror with no call, credentials from FLICKR_* variables; before the first sync they say how to make one; a misspelt key gets a suggestion")
    func findAndLuaMakeNoCall() async throws {
        let world = LibraryWorld(count: 800, seed: "library-find")
        try await world.serve { _, _, env, log in
            // Before the first sync: what to do.
            let early = try await Self.flickr(["find", "untagged", "--ids"], env)
            #expect(early.status != 0 && early.stderr.contains("run `flickr sync` first"), "\(early.stderr)")
            let earlyLua = try await Self.flickr(["-e", "print(flickr.library.count{})"], env)
            #expect(earlyLua.status != 0 && earlyLua.stderr.contains("run `flickr sync` first"), "\(earlyLua.stderr)")
            let sync = try await Self.flickr(["sync", "--json"], env)
            try #require(sync.status == 0, "\(sync.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as? [String: Any], "\(sync.stdout)")
            #expect(summary["photos"] as? Int == 800 && summary["kind"] as? String == "first", "\(summary)")
            let store = try LibraryWorld.store(env)
            let before = LibraryWorld.calls(in: log).count

            let filter: [String: LibraryFilter.Value] = ["any_tags": .text("tram,night"), "taken": .text("2015"), "order": .text("-views")]
            let expected = try store.ids(LibraryFilter(filter))
            try #require(expected.count > 5)
            let words = ["any_tags=tram,night", "taken=2015", "order=-views"]
            let ids = try await Self.flickr(["find"] + words + ["--ids"], env)
            #expect(ids.status == 0 && ids.stdout.split(separator: "\n").map(String.init) == expected, "\(ids.stdout.prefix(200)) \(ids.stderr)")

            let json = try await Self.flickr(["find"] + words + ["--json"], env)
            let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json.stdout.prefix(300))")
            #expect(objects.map { $0["id"] as? String ?? "" } == expected)
            #expect(Set(objects.first?.keys.map { $0 } ?? []) == Set(LibraryRecord.fieldNames))
            let records = try store.records(expected)
            for (object, record) in zip(objects, records) {
                #expect(object["title"] as? String == record.photo.title && object["views"] as? Int == record.photo.views
                        && object["date_taken"] as? String == record.photo.date_taken && object["tags"] as? [String] == record.tags
                        && object["sets"] as? [String] == record.sets, "\(object)")
            }

            let csv = try await Self.flickr(["find"] + words + ["--csv", "--fields", "id,title,tags,views"], env)
            let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.first == "id,title,tags,views" && rows.count == expected.count + 1, "\(csv.stdout.prefix(200)) \(csv.stderr)")
            #expect(rows.dropFirst().first == [records[0].photo.id, records[0].photo.title, records[0].tags.joined(separator: ";"), String(records[0].photo.views ?? 0)]
                .map(FindCommandCSV.field).joined(separator: ","), "\(rows.dropFirst().first ?? "")")
            let tsv = try await Self.flickr(["find"] + words + ["--fields", "id,views"], env)
            #expect(tsv.stdout.split(separator: "\n").first.map(String.init) == "\(records[0].photo.id)\t\(records[0].photo.views ?? 0)", "\(tsv.stdout.prefix(100))")

            // Lua: photos() iterates the same, count() counts them, with {from, to} and lists.
            let lua = """
                local n, ids = 0, {}
                for p in flickr.library.photos{ any_tags = {'tram', 'night'}, taken = {from = '2015', to = '2015'}, order = '-views' } do
                  n = n + 1; ids[#ids + 1] = p.id
                  assert(type(p.tags) == 'table' and type(p.date_upload) == 'number' and type(p.sets) == 'table')
                end
                print(n, flickr.library.count{ any_tags = 'tram,night', taken = '2015' }, table.concat(ids, ','))
                print(flickr.library.status().photos, #flickr.library.sets())
                """
            let ran = try await Self.flickr(["-e", lua], env)
            let lines = ran.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            #expect(lines.first == [String(expected.count), String(expected.count), expected.joined(separator: ",")], "\(ran.stdout.prefix(300)) \(ran.stderr)")
            #expect(lines.dropFirst().first == ["800", String(world.sets.count)], "\(ran.stdout)")

            // A title with a tab, a newline and a backslash stays one line, escaped.
            let odd = try #require(expected.first)
            try store.write { db in try db.execute(sql: "UPDATE photo SET title = ? WHERE id = ?", arguments: ["a\tb\nc\\d", odd]) }
            let escaped = try await Self.flickr(["find", "--fields", "id,title"] + words, env)
            #expect(escaped.stdout.split(separator: "\n").first.map(String.init) == "\(odd)\ta\\tb\\nc\\\\d", "\(escaped.stdout.prefix(100))")
            #expect(escaped.stdout.split(separator: "\n").count == expected.count)
            // A malformed value is a usage error naming the key, as the same filter in Lua is an error.
            for word in ["taken=2019-02-30", "taken=19", "taken=2019-2", "license=abc", "machine_tags=foo", "tags=", "text="] {
                let bad = try await Self.flickr(["find", word], env)
                let key = String(word.prefix { $0 != "=" })
                #expect(bad.status == 2 && bad.stderr.contains("\(key): "), "\(word): \(bad.status) \(bad.stderr)")
            }
            let luaBad = try await Self.flickr(["-e", "print(flickr.library.count{ taken = '2019-02-30' })"], env)
            #expect(luaBad.status != 0 && luaBad.stderr.contains("taken: '2019-02-30' is not a date"), "\(luaBad.stderr)")

            // A library whose first sync never finished (as a killed one leaves it) says so.
            #expect(!ids.stderr.contains("first sync has not finished"), "\(ids.stderr)")
            let lastSync = try store.read { db in try store.state("last_sync", db) }
            try store.write { db in try store.setState("last_sync", nil, db) }
            let partial = try await Self.flickr(["find", "tags=tram", "--ids"], env)
            #expect(partial.status == 0 && partial.stderr.contains("the library's first sync has not finished"), "\(partial.stderr)")
            let partialLua = try await Self.flickr(["-e", "print(flickr.library.status().complete)"], env)
            #expect(partialLua.stdout == "false\n", "\(partialLua.stdout)\(partialLua.stderr)")
            try store.write { db in try store.setState("last_sync", lastSync, db) }
            let whole = try await Self.flickr(["-e", "print(flickr.library.status().complete)"], env)
            #expect(whole.stdout == "true\n", "\(whole.stdout)\(whole.stderr)")

            // A misspelt key: a usage error with a suggestion, here and in Lua.
            let misspelt = try await Self.flickr(["find", "tagz=tram"], env)
            #expect(misspelt.status == 2 && misspelt.stderr.contains("'tagz' is not a filter key; did you mean 'tags'?"), "\(misspelt.status) \(misspelt.stderr)")
            let luaMisspelt = try await Self.flickr(["-e", "print(flickr.library.count{ untaged = true })"], env)
            #expect(luaMisspelt.status != 0 && luaMisspelt.stderr.contains("did you mean 'untagged'?"), "\(luaMisspelt.stderr)")

            #expect(LibraryWorld.calls(in: log).count == before, "queries made \(LibraryWorld.calls(in: log).count - before) calls")
        }
    }

    @Test("Retag reads the mirror: a rename over N of P photos on a deep, synced mirror costs ≤ N + ⌈changed/500⌉ + 10 calls, plan and apply together; the mirror holds what the job wrote")
    func retagReadsTheMirror() async throws {
        let world = LibraryWorld(count: 600, seed: "library-retag")
        try await world.serve { server, _, env, log in
            let sync = try await Self.flickr(["sync", "--deep"], env)
            try #require(sync.status == 0, "\(sync.stderr)")
            let store = try LibraryWorld.store(env)
            let n = try store.count(LibraryFilter(["tags": .text("tram")]))
            try #require(n > 20)
            let before = LibraryWorld.calls(in: log).count
            let plan = try await Self.flickr(["retag", "plan", "--rename", "tram", "Tram line"], env)
            #expect(plan.status == 1, "\(plan.stdout) \(plan.stderr)")
            let planCalls = LibraryWorld.calls(in: log).count - before
            let apply = try await Self.flickr(["retag", "apply", "last", "--yes"], env)
            #expect(apply.status == 0 && apply.stdout.contains("\(n) of \(n) photos done, 0 failed"), "\(apply.stdout) \(apply.stderr)")
            let calls = LibraryWorld.calls(in: log).count - before
            print("library: retag rename over \(n) of 600 photos: plan \(planCalls) calls, plan and apply \(calls) (bound \(n + 10))")
            #expect(calls <= n + 0 + 10, "plan and apply: \(calls) calls for \(n) photos (plan \(planCalls))")
            #expect(!LibraryWorld.calls(in: log).suffix(calls).contains("flickr.photos.getInfo"), "the plan read getInfo")

            // The mirror holds what the job wrote, before any sync.
            #expect(try store.count(LibraryFilter(["tags": .text("tram")])) == 0)
            let renamed = try store.records(try store.ids(LibraryFilter(["tags": .text("tramline")])))
            #expect(renamed.count == n && renamed.allSatisfy { $0.tags.contains("Tram line") && !$0.tags.contains("tram") })
            // And a later deep sync finds the world as the mirror says.
            let after = try await Self.flickr(["sync", "--deep"], env)
            #expect(after.status == 0, "\(after.stderr)")
            let differences = try LibraryWorld.differences(store, server, deep: true)
            #expect(differences.isEmpty, "\(differences.prefix(10))")
        }
    }
}

/// `flickr find --csv`'s quoting, as RFC 4180 has it.
enum FindCommandCSV {
    static func field(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
