import FlickrAPI
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

/// lua/examples/ run as a user would run them, and their effects checked on the server.
@Suite(.timeLimit(.minutes(3)), .tags(.command))
struct ExampleTests {
    let world: CommandWorld
    var flickr: URL { world.flickr }
    var dir: URL { world.directory }
    var baseEnv: [String: String] { world.environment }

    init() throws {
        world = try CommandWorld("examples")
    }

    func example(_ name: String) -> String { Fixtures.repository.appendingPathComponent("lua/examples/\(name)").path }

    /// Runs an example against `sandbox` (credentials in the environment, as a user would set them).
    func run(_ args: [String], against sandbox: SandboxWorld) async throws -> Products.Result {
        let r = try await Products.run(flickr, args, environment: sandbox.environment(baseEnv), timeout: 120)
        #expect(!r.timedOut)
        return r
    }

    func client(_ sandbox: SandboxWorld) -> FlickrClient {
        sandbox.client()
    }

    @Test func tourRunsAgainstTheSandbox() async throws {
        let r = try await Products.run(flickr, ["--sandbox", example("tour.lua")], environment: baseEnv, timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        for step in ["1. test.echo → greeting = hello, Flickr", "2. test.login → bees", "3. photos.search →", "4. photos.getInfo",
                     "5. URLs:", "6. addTags →", "removeTag → done", "7. upload → photo", "8. replace → photo", "done."] {
            #expect(r.stdout.contains(step), "missing \(step) in \(r.stdout)")
        }
        // Progress reached the total.
        let progress = r.stdout.split(separator: "\n").filter { $0.contains("sent ") }
        let last = try #require(progress.last)
        let numbers = last.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1])
    }

    @Test func retagDryRunThenForReal() async throws {
        try await SandboxWorld.with { sandbox in
            let flickr = client(sandbox)
            func count(_ tags: String) async throws -> Int {
                let rsp = try await flickr.call("flickr.photos.search", ["user_id": "me", "tags": tags, "per_page": "500"])
                return rsp["photos.photo"]?.array.count ?? 0
            }
            let before = try await count("amsterdam")
            #expect(before > 0)
            let dry = try await run([example("retag.lua"), "--dry-run", "amsterdam=amsterdam city"], against: sandbox)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("would change \(before) photo(s) (dry run)"), "\(dry.stdout)")
            #expect(dry.stdout.contains("+ ") && dry.stdout.contains("amsterdam city"))
            #expect(try await count("amsterdam") == before)  // nothing changed
            let real = try await run([example("retag.lua"), "amsterdam=amsterdam city"], against: sandbox)
            #expect(real.status == 0, "\(real.stderr)")
            #expect(real.stdout.contains("changed \(before) photo(s)"), "\(real.stdout)")
            // The run is a job like any other: listed, and undone by `flickr retag undo`.
            let jobs = try await run(["jobs", "--json"], against: sandbox)
            #expect(jobs.stdout.contains("\"state\" : \"done\"") || jobs.stdout.contains("\"state\": \"done\""), "\(jobs.stdout)")
            #expect(try await count("amsterdam") == 0)
            #expect(try await count("amsterdamcity") == before)
            let usage = try await run([example("retag.lua")], against: sandbox)
            #expect(usage.status == 2)
        }
    }

    @Test func exportWritesTheSetAsCSV() async throws {
        try await SandboxWorld.with { sandbox in
            let sets = try await client(sandbox).call("flickr.photosets.getList")
            let first = try #require(sets["photosets.photoset"]?.array.first)
            let setID = try #require(first["id"]?.string)
            // getList counts photos and videos apart; the set holds both.
            let expected = try #require(Int(first["photos"]?.string ?? "")) + (Int(first["videos"]?.string ?? "") ?? 0)
            let out = dir.appendingPathComponent("set.csv").path
            let r = try await run([example("export.lua"), setID, out], against: sandbox)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("exported \(expected) photo(s)"))
            let check = """
                import csv, sys
                rows = list(csv.DictReader(open(sys.argv[1], newline="")))
                assert rows and all(r["id"] and r["url"].startswith("http") and "/photos/" in r["page"] for r in rows), rows[:2]
                print(len(rows))
                """
            let python = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", check, out])
            #expect(python.status == 0, "\(python.stderr)")
            #expect(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(expected))
        }
    }
}
