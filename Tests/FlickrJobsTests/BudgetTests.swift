import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// The per-key budget shared by every flickr process, measured by the sandbox's access log.
@Suite("One call budget for every process; pacing and ETA", .timeLimit(.minutes(4)), .tags(.command))
struct BudgetTests {
    /// The REST calls of the log, as Unix times.
    static func callTimes(_ log: URL) throws -> [Double] {
        let text = try String(contentsOf: log, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  o["path"] as? String == "/services/rest/" else { return nil }
            return o["t"] as? Double
        }.sorted()
    }

    /// The most calls in any window of `seconds`.
    static func busiest(_ times: [Double], seconds: Double) -> Int {
        var best = 0
        var lo = 0
        for hi in times.indices {
            while times[hi] - times[lo] >= seconds { lo += 1 }
            best = max(best, hi - lo + 1)
        }
        return best
    }

    /// The retag world (``RetagCommandTests/photoCount`` photos of alice) served by a
    /// `flickr-sandbox` process with `extra` arguments; the body gets the environment that points
    /// `flickr` at it, with `FLICKR_BUDGET` set to `budget`, and the sandbox's access log. A process of its own, not the in-process sandbox:
    /// these tests read the times at which calls arrived, and in the test process those times
    /// are stamped by tasks that wait for the cooperative pool the whole suite shares — a CI run
    /// put nine calls paced 0.375 s apart into two seconds that way.
    static func loggedWorld(_ extra: [String] = [], budget: String,
                            _ body: (_ env: [String: String], _ log: URL) async throws -> Void) async throws {
        let world = try CommandWorld("budget")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let log = world.directory.appendingPathComponent("access-log.jsonl")
        let photos: [[String: Any]] = (0..<RetagCommandTests.photoCount).map { i in
            let posted: Int = 1_500_000_000 + i * 3600
            let photo: [String: Any] = ["id": String(8_000_000_000 + i), "owner": "alice", "title": "p\(i)", "tags": "paris night", "date_posted": posted]
            return photo
        }
        try await SandboxWorld.withProcess(extra, seed: .object(["users": [["username": "alice"]], "photos": photos]), accessLog: log,
                                           environment: world.environment) { sandbox in
            var env = sandbox.environment(world.environment)
            env["FLICKR_BUDGET"] = budget
            try await body(env, log)
        }
    }

    @Test("Two jobs at once and a restart stay within 8 calls in any 2 s; calls are spread, not burst")
    func twoJobsShareTheBudget() async throws {
        try await Self.loggedWorld(budget: "8/2") { env, log in
            let start = Date().timeIntervalSince1970
            let middle = String(1_500_000_000 + 11 * 3600)
            let a = try await RetagCommandTests.flickr(["retag", "plan", "--add", "city trip", "--query", "max_upload_date=\(middle)"], env)
            let b = try await RetagCommandTests.flickr(["retag", "plan", "--add", "city trip", "--query", "min_upload_date=\(Int(middle)! + 1)"], env)
            #expect(a.status == 1 && b.status == 1, "\(a.stderr) \(b.stderr)")
            func job(_ r: Products.Result) -> String {
                String(r.stdout.split(separator: "\n").first { $0.hasPrefix("job ") }?.split(separator: " ")[1].dropLast() ?? "")
            }
            let first = try InteractiveProcess(try Products.executable("flickr"), ["retag", "apply", job(a), "--yes", "--events"], environment: env)
            let second = try InteractiveProcess(try Products.executable("flickr"), ["retag", "apply", job(b), "--yes", "--events"], environment: env)
            // Restart the first once it has finished two photos (it says so in its events).
            let deadline = Date().addingTimeInterval(60)
            while first.stderr.split(separator: "\n").filter({ $0.hasPrefix("{") }).count < 2, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(first.process.processIdentifier, SIGKILL)
            _ = await first.wait(timeout: 10)
            let resumed = try await RetagCommandTests.flickr(["retag", "resume", job(a)], env)
            #expect(resumed.status == 0, "\(resumed.stdout) \(resumed.stderr)")
            #expect(await second.wait(timeout: 120) == 0, "\(second.stderr)")
            let times = try Self.callTimes(log)
            let paced = times.filter { $0 >= start }  // the world's set-up calls are not the jobs'

            #expect(paced.count > 40)
            #expect(Self.busiest(paced, seconds: 2) <= 8, "busiest 2 s window: \(Self.busiest(paced, seconds: 2)) calls")
            // Spread, not burst: the pace is one call per 0.375 s, so any second holds at most 3
            // (5 allowing for late arrivals); a burst would put all 8 of the window in one.
            #expect(Self.busiest(paced, seconds: 1) <= 5, "busiest second: \(Self.busiest(paced, seconds: 1)) calls")
            // The job database is private.
            let dir = env["XDG_STATE_HOME"]! + "/flickr"
            let dirMode = (try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int) ?? 0
            let fileMode = (try FileManager.default.attributesOfItem(atPath: dir + "/jobs.sqlite")[.posixPermissions] as? Int) ?? 0
            #expect(dirMode == 0o700 && fileMode == 0o600)
        }
    }

    @Test("The budget's database is opened at the first call, not at start; one that cannot be opened fails the call before it is sent")
    func databaseOpenedAtTheFirstCall() async throws {
        try await Self.loggedWorld(budget: "100/1") { baseEnv, log in
            var env = baseEnv
            let database = env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite"
            let idle = try await RetagCommandTests.flickr(["-e", "print(1)"], env)
            #expect(idle.status == 0, "\(idle.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "a script without calls opened \(database)")
            let call = try await RetagCommandTests.flickr(["-e", "assert(flickr.test.null{}.stat == 'ok')"], env)
            #expect(call.status == 0, "\(call.stderr)")
            #expect(FileManager.default.fileExists(atPath: database))

            // A file where the database's folder should be: the call fails, saying why, unsent.
            let blocked = FileManager.default.temporaryDirectory.appendingPathComponent("budget-blocked-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: blocked) }
            try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: true)
            try Data().write(to: blocked.appendingPathComponent("flickr"))
            env["XDG_STATE_HOME"] = blocked.path
            let failed = try await RetagCommandTests.flickr(["-e", "flickr.test.echo{}"], env)
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("call budget: cannot open the job database \(blocked.path)/flickr/jobs.sqlite"), "\(failed.stderr)")
            // The null call above is in the log (the echo would be too, had it been sent).
            let logged = try String(contentsOf: log, encoding: .utf8)
            #expect(logged.contains("\"flickr.test.null\"") && !logged.contains("\"flickr.test.echo\""), "\(logged)")
        }
    }

    @Test("A 429 holds every call back for its Retry-After, then calls resume without a burst")
    func backOffOn429() async throws {
        // Flickr (the sandbox) allows 4 calls in 2 s; the client's own budget is far looser.
        try await Self.loggedWorld(["--budget", "4/2"], budget: "100/1") { env, log in
            let start = Date().timeIntervalSince1970
            let r = try await RetagCommandTests.flickr(["-e", "for i = 1, 10 do assert(flickr.test.null{}.stat == 'ok') end"], env)
            #expect(r.status == 0, "\(r.stderr)")
            var lines: [(t: Double, status: Int)] = []
            for line in try String(contentsOf: log, encoding: .utf8).split(separator: "\n") {
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      o["method"] as? String == "flickr.test.null", let t = o["t"] as? Double, t >= start else { continue }
                lines.append((t, o["status"] as? Int ?? 0))
            }
            let refused = lines.filter { $0.status == 429 }
            #expect(!refused.isEmpty, "the sandbox never said 429")
            // After each 429, the next call waits at least most of a second (Retry-After ≥ 1).
            for (i, line) in lines.enumerated() where line.status == 429 && i + 1 < lines.count {
                #expect(lines[i + 1].t - line.t >= 0.9, "a call \(lines[i + 1].t - line.t) s after a 429")
            }
            #expect(lines.filter { $0.status == 200 }.count == 10)
        }
    }

    @Test("--events: NDJSON per photo; on a paced run the first ETA is within 10 % of the time it took (2 calls/s)")
    func eventsAndETA() async throws {
        try await RetagCommandTests.world { _, _, baseEnv in
            var env = baseEnv
            // One call a second ((1 s + the 1 s margin) / 2): the pace, not the machine, sets the
            // time — a call to the in-process sandbox would have to take over a second on a busy
            // machine to push the run past the ETA (at 4/1 it was half a second).
            env["FLICKR_BUDGET"] = "2/1"
            let plan = try await RetagCommandTests.flickr(["retag", "plan", "--add", "city trip"], env)
            #expect(plan.status == 1)
            let apply = try await RetagCommandTests.flickr(["retag", "apply", "last", "--yes", "--events"], env)
            #expect(apply.status == 0, "\(apply.stderr)")
            let events = apply.stderr.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(events.count == RetagCommandTests.photoCount)
            let first = try #require(events.first), last = try #require(events.last)
            #expect(last["done"] as? Int == RetagCommandTests.photoCount && last["total"] as? Int == RetagCommandTests.photoCount)
            let eta = try #require(first["eta"] as? Double)
            let took = (last["elapsed"] as? Double ?? 0) - (first["elapsed"] as? Double ?? 0)
            #expect(took > 1 && abs(eta - took) <= 0.1 * took, "ETA \(eta) s, took \(took) s; events \(events.map { ($0["calls"] as? Int ?? -1, $0["elapsed"] as? Double ?? -1, $0["eta"] as? Double ?? -1) })")
            #expect(try await RetagCommandTests.flickr(["retag", "plan", "--add", "x", "--budget", "nonsense"], env).status == 2)
        }
    }
}
