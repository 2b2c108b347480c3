import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrTestSupport
import Foundation
import Testing

/// `flickr push` as a user runs it: a tree of real JPEGs with metadata written by ExifTool, the
/// real binary against a `flickr-sandbox` process, every upload counted in the access log and
/// every photo read back from the sandbox.
@Suite("flickr push: folders kept in step with Flickr, each file once, plans, undo, kill -9", .timeLimit(.minutes(10)), .tags(.command, .heavy))
struct PushCommandTests {
    static func flickr(_ args: [String], _ env: [String: String], extra: [String: String] = [:]) async throws -> Products.Result {
        let r = try await Products.run(try Products.executable("flickr"), args, environment: env.merging(extra) { $1 }, timeout: 300)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// Makes the test photos (Tests/scripts/photo_tree.py): `FOLDER=COUNT` each.
    static func tree(_ root: URL, salt: String, _ folders: [String]) async throws {
        let r = try await Products.python("photo_tree.py", [root.path, salt] + folders, timeout: 180)
        try #require(r.status == 0 && !r.timedOut, "photo_tree.py: \(r.stderr)")
    }

    /// An XMP sidecar as darktable or digiKam writes one: a title and keywords (dc:subject).
    static func xmp(title: String, keywords: [String]) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
           <dc:title><rdf:Alt><rdf:li xml:lang="x-default">\(title)</rdf:li></rdf:Alt></dc:title>
           <dc:subject><rdf:Bag>\(keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined())</rdf:Bag></dc:subject>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    static func client(_ env: [String: String]) -> FlickrClient {
        FlickrClient(context: FlickrContext(apiKey: env["FLICKR_API_KEY"]!, sharedSecret: env["FLICKR_API_SECRET"]!,
                                            oauthToken: env["FLICKR_OAUTH_TOKEN"]!, oauthTokenSecret: env["FLICKR_OAUTH_TOKEN_SECRET"]!,
                                            endpoints: Endpoints(baseURL: env["FLICKR_ENDPOINT"]!)))
    }

    /// Requests to a path in the access log (`/services/upload/`, `/services/replace/`), those
    /// answered `stat` (ok, fail) when given.
    static func count(_ log: URL, path: String, stat: String? = nil) -> Int {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { line in
            line.contains("\"path\": \"\(path)\"") && (stat.map { line.contains("\"stat\": \"\($0)\"") } ?? true)
        }.count
    }

    /// The account's photo count, as Flickr gives it.
    static func photoCount(_ client: FlickrClient) async throws -> Int {
        let login = try await client.call("flickr.test.login")
        let info = try await client.call("flickr.people.getInfo", ["user_id": login["user"]?["id"]?.string ?? ""])
        return try #require(info["person"]?["photos"]?["count"]?.int)
    }

    /// The photos of the set titled `title`, in the set's order, as (id, title).
    static func set(_ title: String, _ client: FlickrClient) async throws -> [(id: String, title: String)]? {
        let list = try await client.call("flickr.photosets.getList", ["per_page": "500"])
        guard let id = (list["photosets"]?["photoset"]?.array ?? []).first(where: { $0["title"]?.text == title })?["id"]?.string else { return nil }
        let photos = try await client.call("flickr.photosets.getPhotos", ["photoset_id": id, "per_page": "500"])
        return (photos["photoset"]?["photo"]?.array ?? []).map { ($0["id"]?.string ?? "", $0["title"]?.text ?? "") }
    }

    /// A `flickr-sandbox` process with `seed`, and what `body` needs: the environment for
    /// `flickr` (Alice's token, which may delete: undo and --delete delete photos), a client,
    /// and the account's photo count before the test.
    static func serve(_ world: CommandWorld, seed: URL, log: URL,
                      _ body: ([String: String], FlickrClient, Int) async throws -> Void) async throws {
        try await SandboxWorld.withProcess(seed: .file(seed), accessLog: log, environment: world.environment) { sandbox in
            var env = sandbox.environment(world.environment)
            env["XDG_DATA_HOME"] = world.directory.path + "/data"
            (env["FLICKR_OAUTH_TOKEN"], env["FLICKR_OAUTH_TOKEN_SECRET"]) = (LibraryWorld.deleteToken.token, LibraryWorld.deleteToken.secret)
            let client = Self.client(env)
            try await body(env, client, try await Self.photoCount(client))
        }
    }

    static func lines(_ out: String, _ action: String) -> [String] {
        out.split(separator: "\n").filter { $0.hasPrefix(action + " ") }.map(String.init)
    }

    @Test("A tree of 200 files pushed, then re-pushed: unchanged costs no byte read and ≤ 5 calls; added files upload, a renamed folder moves, an edited sidecar writes only its tags, changed bytes replace; undo takes back exactly that push; --delete on an empty or missing folder is refused; a lost library uploads nothing twice")
    func pushAndRepush() async throws {
        let world = try CommandWorld("push")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let seed = try LibraryWorld(count: 5, seed: "push").writeSeed(in: world.directory)
        let log = world.directory.appendingPathComponent("access.jsonl")
        let dir = world.directory.appendingPathComponent("Photos")
        try await Self.tree(dir, salt: "a", ["2024/Iceland=100", "2024/Norway=60", ".=40"])
        // What a photo manager leaves beside the photos, and a sidecar that beats the file.
        for junk in ["Thumbs.db", "notes.txt", ".hidden.jpg", "@eaDir/p0000.jpg"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(junk).deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("not a photo".utf8).write(to: dir.appendingPathComponent(junk))
        }
        let sidecar = dir.appendingPathComponent("2024/Iceland/p0000.xmp").path
        try Self.xmp(title: "From the sidecar", keywords: ["places|Iceland|Reykjavík", "sea"]).write(toFile: sidecar, atomically: true, encoding: .utf8)
        try await Self.serve(world, seed: seed, log: log) { env, client, before in

            // First push: 200 uploads, each folder's set in file-name order.
            let planFile = world.directory.appendingPathComponent("plan.json")
            let plan = try await Self.flickr(["push", "plan", dir.path, "--out", planFile.path], env)
            #expect(plan.status == 1, "\(plan.stderr)")
            #expect(Self.lines(plan.stdout, "upload").count == 200, "\(plan.stdout.suffix(2000))")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: planFile)) as? [String: Any])
            #expect((document["photos"] as? [[String: Any]])?.count == 200 && document["job"] as? String != nil, "\(document.keys)")
            #expect(Self.lines(plan.stdout, "ignored").count == 3 && !plan.stdout.contains(".hidden"), "\(plan.stdout.prefix(600))")
            let apply = try await Self.flickr(["push", "apply", planFile.path, "--yes"], env)
            #expect(apply.status == 0, "\(apply.stdout) \(apply.stderr)")
            #expect(Self.count(log, path: "/services/upload/") == 200)
            #expect(try await Self.photoCount(client) == before + 200)
            let iceland = try #require(try await Self.set("2024/Iceland", client))
            #expect(iceland.map(\.title) == ["From the sidecar"] + (1..<100).map { String(format: "p%04d", $0) })
            #expect(try await Self.set("2024/Norway", client)?.count == 60)
            #expect(try await Self.set("Photos", client)?.count == 40)
            let first = try #require(iceland.first?.id)
            var info = try await client.call("flickr.photos.getInfo", ["photo_id": first])
            var tags = Set((info["photo"]?["tags"]?["tag"]?.array ?? []).compactMap { $0.text })
            #expect(tags == ["reykjavík", "sea"], "keywords as tags, the hierarchical one as its last part: \(tags)")
            #expect(info["photo"]?["dates"]?["taken"]?.string == "2019-07-02 14:03:05")

            // Nothing changed: no file read, no step, at most the incremental sync's calls.
            let again = try await Self.flickr(["push", "plan", dir.path], env)
            #expect(again.status == 0 && again.stdout.contains("nothing to push") && again.stdout.contains(" 0 files hashed"), "\(again.stdout.suffix(400))")
            // Its sync read the apply's uploads; with nothing changed on Flickr since, a plan costs ≤ 5 calls.
            let steady = try await Self.flickr(["push", "plan", dir.path], env)
            let planCalls = steady.stdout.firstMatch(of: /(\d+) calls? to plan/).flatMap { Int($0.1) }
            #expect(steady.status == 0 && (planCalls ?? 99) <= 5, "\(steady.stdout.suffix(300))")

            // Three added, a folder renamed, a sidecar edited, one file's bytes changed.
            try await Self.tree(dir.appendingPathComponent("2024/Iceland/new"), salt: "b", [".=3"])
            try FileManager.default.moveItem(at: dir.appendingPathComponent("2024/Norway"), to: dir.appendingPathComponent("2024/Norge"))
            try Self.xmp(title: "From the sidecar", keywords: ["places|Iceland|Reykjavík", "harbour"]).write(toFile: sidecar, atomically: true, encoding: .utf8)
            let changedFile = dir.appendingPathComponent("p0000.jpg")
            let other = world.directory.appendingPathComponent("other")
            try await Self.tree(other, salt: "c", [".=1"])
            try FileManager.default.removeItem(at: changedFile)
            try FileManager.default.copyItem(at: other.appendingPathComponent("p0000.jpg"), to: changedFile)
            let second = try await Self.flickr(["push", "plan", dir.path, "--replace"], env)
            #expect(second.status == 1)
            #expect(Self.lines(second.stdout, "upload").count == 3 && Self.lines(second.stdout, "move").count == 60
                    && Self.lines(second.stdout, "replace").count == 1 && Self.lines(second.stdout, "meta").count == 1
                    && Self.lines(second.stdout, "skip").count == 138, "\(second.stdout.suffix(1500))")
            #expect(Self.lines(second.stdout, "meta").first?.contains("tags +harbour -sea") == true, "\(Self.lines(second.stdout, "meta"))")
            let secondApply = try await Self.flickr(["push", "apply", "last", "--yes"], env)
            #expect(secondApply.status == 0, "\(secondApply.stdout) \(secondApply.stderr)")
            #expect(Self.count(log, path: "/services/upload/") == 203 && Self.count(log, path: "/services/replace/") == 1)
            #expect(try await Self.set("2024/Norge", client)?.count == 60)
            #expect(try await Self.set("2024/Norway", client) == nil, "Flickr drops a set its last photo left")
            info = try await client.call("flickr.photos.getInfo", ["photo_id": first])
            tags = Set((info["photo"]?["tags"]?["tag"]?.array ?? []).compactMap { $0.text })
            #expect(tags == ["reykjavík", "harbour"], "\(tags)")
            #expect(info["photo"]?["title"]?.text == "From the sidecar")

            // Undo that push: the three uploads deleted, the sets put back, the tags as before; the replace reported.
            let added = try #require(try await Self.set("2024/Iceland/new", client)).map(\.id)
            #expect(added.count == 3)
            let undo = try await Self.flickr(["push", "undo", "last", "--yes"], env)
            #expect(undo.status == 0, "\(undo.stdout) \(undo.stderr)")
            #expect(undo.stdout.contains("cannot undo: p0000.jpg") && undo.stdout.contains("Flickr keeps no earlier version"), "\(undo.stdout)")
            for id in added {
                await #expect(throws: FlickrError.self) { _ = try await client.call("flickr.photos.getInfo", ["photo_id": id]) }
            }
            #expect(try await Self.set("2024/Norway", client)?.count == 60)
            info = try await client.call("flickr.photos.getInfo", ["photo_id": first])
            tags = Set((info["photo"]?["tags"]?["tag"]?.array ?? []).compactMap { $0.text })
            #expect(tags == ["reykjavík", "sea"], "\(tags)")
            #expect(try await Self.photoCount(client) == before + 200)

            // An unmounted disk looks like a deleted library: --delete on an empty or missing folder plans nothing.
            let jobs = try await Self.flickr(["jobs", "--json"], env).stdout
            let empty = world.directory.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let sentBefore = Self.count(log, path: "/services/rest/")
            for target in [empty.path, world.directory.appendingPathComponent("unmounted").path] {
                let refused = try await Self.flickr(["push", "plan", target, "--delete"], env)
                #expect(refused.status == 2 && refused.stderr.contains(target), "\(target): \(refused.status) \(refused.stderr)")
            }
            #expect(Self.count(log, path: "/services/rest/") == sentBefore, "a refused plan sent a request")
            #expect(try await Self.flickr(["jobs", "--json"], env).stdout == jobs, "a refused plan stored a job")

            // The library lost (a new machine): nothing goes up twice — Flickr's duplicate check names each photo.
            try FileManager.default.removeItem(atPath: world.directory.path + "/data")
            let lost = try await Self.flickr(["push", "plan", dir.path, "--sets", "none"], env)
            #expect(lost.status == 1)
            let relaunch = try await Self.flickr(["push", "apply", "last", "--yes"], env)
            #expect(relaunch.status == 0, "\(relaunch.stdout) \(relaunch.stderr)")
            // The three undone files are new to Flickr again; everything else was there.
            #expect(try await Self.photoCount(client) == before + 203)
            let settled = try await Self.flickr(["push", "plan", dir.path, "--sets", "none"], env)
            #expect(settled.status == 0 && settled.stdout.contains(" 0 files hashed"), "\(settled.stdout.suffix(500))")

            // --delete deletes only what a push uploaded: these photos were found on Flickr by the duplicate check.
            try FileManager.default.removeItem(at: dir.appendingPathComponent("p0001.jpg"))
            let gone = try await Self.flickr(["push", "plan", dir.path, "--sets", "none", "--delete"], env)
            #expect(Self.lines(gone.stdout, "delete").isEmpty && Self.lines(gone.stdout, "gone").count == 1
                    && gone.stdout.contains("this push did not upload it"), "\(gone.stdout.suffix(600))")
        }
    }

    @Test("kill -9 twenty times during a push's apply (each right after an upload's answer, before the journal has it), each followed by resume: every file on Flickr once, each set whole; a second push of the folder meanwhile exits 75 naming the holder")
    func killAndResume() async throws {
        let world = try CommandWorld("push-kill")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let seed = try LibraryWorld(count: 5, seed: "push-kill").writeSeed(in: world.directory)
        let log = world.directory.appendingPathComponent("access.jsonl")
        let dir = world.directory.appendingPathComponent("Photos")
        try await Self.tree(dir, salt: "k", ["A=30", "B=30"])
        try await Self.serve(world, seed: seed, log: log) { env, client, before in
            let plan = try await Self.flickr(["push", "plan", dir.path], env)
            #expect(plan.status == 1, "\(plan.stderr)")

            // Held at a crash point, the first run keeps the folder: a second push is refused.
            let held = try InteractiveProcess(try Products.executable("flickr"), ["push", "apply", "last", "--yes"],
                                              environment: env.merging(["FLICKR_TEST_STOP_AFTER_WRITE": "1"]) { $1 })
            defer { if held.process.isRunning { kill(held.process.processIdentifier, SIGKILL) } }
            let stopped = await held.waitForErrorLine(timeout: 120) { $0.contains("stopped for a crash test") }
            try #require(stopped != nil, "\(held.stderr)")
            let second = try await Self.flickr(["push", "plan", dir.path], env)
            #expect(second.status == 75 && second.stderr.contains("is being pushed by process \(held.process.processIdentifier) on host"),
                    "\(second.status) \(second.stderr)")
            kill(held.process.processIdentifier, SIGKILL)
            _ = await held.wait(timeout: 30)

            var kills = 1
            for round in 0..<19 {
                let (run, killed) = try await Products.runKilledAfterWrite(1 + round % 4, ["push", "resume", "last"], environment: env)
                if !killed {
                    #expect(run.status == 0, "round \(round): \(run.stdout) \(run.stderr)")
                    break
                }
                kills += 1
            }
            let last = try await Self.flickr(["push", "resume", "last"], env)
            #expect(last.status == 0, "\(last.stdout) \(last.stderr)")
            #expect(kills >= 10, "the job ended after \(kills) kills")
            // Every file once: the account grew by the files, whatever was sent again and answered as a duplicate.
            #expect(try await Self.photoCount(client) == before + 60)
            // The access log: 60 uploads stored; every other one was answered as a duplicate (code 9).
            let uploads = Self.count(log, path: "/services/upload/"), stored = Self.count(log, path: "/services/upload/", stat: "ok")
            #expect(stored == 60 && uploads >= 60, "\(stored) of \(uploads) uploads stored")
            #expect(uploads - stored == ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
                    .filter { $0.contains("\"path\": \"/services/upload/\"") && $0.contains("\"code\": 9") }.count)
            #expect(try await Self.set("A", client)?.map(\.title) == (0..<30).map { String(format: "p%04d", $0) })
            #expect(try await Self.set("B", client)?.count == 30)
            let again = try await Self.flickr(["push", "plan", dir.path], env)
            #expect(again.status == 0 && again.stdout.contains("nothing to push"), "\(again.stdout.suffix(500))")
            // Every upload, resent or not, is known as this job's: its undo deletes all 60, and only them.
            let undo = try await Self.flickr(["push", "undo", "last", "--yes"], env)
            #expect(undo.status == 0, "\(undo.stdout) \(undo.stderr)")
            #expect(try await Self.photoCount(client) == before)
        }
    }

    @Test("flickr.push.plan in Lua is push plan's plan: its steps and lines as tables, :apply() runs it as flickr push apply does, a second plan has no job; bad options are usage errors before any request, and so is --delete with a login that may not delete")
    func luaPlan() async throws {
        let world = try CommandWorld("push-lua")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let seed = try LibraryWorld(count: 5, seed: "push-lua").writeSeed(in: world.directory)
        let log = world.directory.appendingPathComponent("access.jsonl")
        let dir = world.directory.appendingPathComponent("Photos")
        try await Self.tree(dir, salt: "l", ["Trip=4", ".=2"])
        let script = world.directory.appendingPathComponent("push.lua")
        try """
        local dir = ...
        local plan = flickr.push.plan{ dirs = { dir }, sets = "folder", tags = "fromlua", ignore = { "nothing*" } }
        print("job", plan.job ~= nil, "steps", #plan.steps, "upload", plan.counts.upload, "lines", #plan.lines)
        for _, s in ipairs(plan.steps) do print("step", s.action, s.path, s.set) end
        local done = plan:apply()
        print("applied", done.state, done.done, done.kind)
        local again = flickr.push.plan{ dirs = { dir } }
        print("again", again.job == nil, again.counts.skip, again.hashed)
        local ok, err = pcall(flickr.push.plan, { dirs = { dir }, colour = "red" })
        print("bad", ok, err.kind, tostring(err.message):match("colour") ~= nil)
        ok, err = pcall(flickr.push.plan, { dirs = { dir .. "/missing" }, delete = true })
        print("missing", ok, err.kind)
        """.write(to: script, atomically: true, encoding: .utf8)
        try await Self.serve(world, seed: seed, log: log) { env, client, before in
            let run = try await Self.flickr([script.path, dir.path], env)
            #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
            let out = run.stdout
            #expect(out.contains("job\ttrue\tsteps\t6\tupload\t6\tlines\t6"), "\(out)")
            #expect(out.contains("step\tupload\tTrip/p0000.jpg\tTrip") && out.contains("step\tupload\tp0000.jpg\tPhotos"), "\(out)")
            #expect(out.contains("applied\tdone\t6\tpush"), "\(out)")
            #expect(out.contains("again\ttrue\t6\t0"), "\(out)")
            #expect(out.contains("bad\tfalse\tusage\ttrue") && out.contains("missing\tfalse\tusage"), "\(out)")
            #expect(try await Self.photoCount(client) == before + 6)
            #expect(try await Self.set("Trip", client)?.count == 4)

            // A login its profile says may write but not delete: --delete is refused before any request.
            let profile = URL(fileURLWithPath: env["XDG_CONFIG_HOME"]! + "/flickr/profiles/default.json")
            try FileManager.default.createDirectory(at: profile.deletingLastPathComponent(), withIntermediateDirectories: true)
            let fields = ["api_key": env["FLICKR_API_KEY"]!, "api_secret": env["FLICKR_API_SECRET"]!, "oauth_token": env["FLICKR_OAUTH_TOKEN"]!,
                          "oauth_token_secret": env["FLICKR_OAUTH_TOKEN_SECRET"]!, "endpoint": env["FLICKR_ENDPOINT"]!, "perms": "write"]
            try JSONSerialization.data(withJSONObject: fields).write(to: profile)
            chmod(profile.path, 0o600)
            var fromProfile = env
            for key in ["FLICKR_API_KEY", "FLICKR_API_SECRET", "FLICKR_OAUTH_TOKEN", "FLICKR_OAUTH_TOKEN_SECRET", "FLICKR_ENDPOINT"] { fromProfile[key] = nil }
            let sent = Self.count(log, path: "/services/rest/")
            let refused = try await Self.flickr(["push", "plan", dir.path, "--delete"], fromProfile)
            #expect(refused.status == 2 && refused.stderr.contains("flickr login --perms delete"), "\(refused.status) \(refused.stderr)")
            #expect(Self.count(log, path: "/services/rest/") == sent, "a request was sent")
        }
    }
}
