import Foundation
import Testing
import FlickrTestSupport

/// `flickr upload` and `flickr download` as a user runs them, against a flickr-sandbox process
/// (one sandbox for the whole test, so what one command uploads the next one sees).
@Suite(.timeLimit(.minutes(3)), .tags(.command))
struct TransferCommandTests {
    let world: CommandWorld
    var dir: URL { world.directory }

    init() throws {
        world = try CommandWorld("transfer")
    }

    /// Runs `body` with the environment that points `flickr` at a flickr-sandbox process
    /// (``SandboxWorld``), stopped however `body` ends.
    func withSandbox(latency: Int = 0, _ body: ([String: String]) async throws -> Void) async throws {
        try await SandboxWorld.withProcess(["--latency", String(latency)], environment: world.environment) { sandbox in
            try await body(sandbox.environment(world.environment))
        }
    }

    func run(_ args: [String], _ env: [String: String]) async throws -> Products.Result {
        let r = try await Products.run(world.flickr, args, environment: env, directory: dir, timeout: 120)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    static func jpeg(_ n: Int) -> [UInt8] {
        var rng = TestRandom("transfer \(n)")
        return [0xFF, 0xD8, 0xFF, 0xE0] + (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    @Test func uploadThenDownloadByIdSetAndSearch() async throws {
        try await withSandbox { env in
            let first = Self.jpeg(90_000), second = Self.jpeg(40_000), third = Self.jpeg(30_000)
            try write("pics/Beach Day.jpg", first)
            try write("pics/deeper/IMG_0002", second)  // no extension: recognised by its bytes
            try write("pics/.cache/hidden.jpg", Self.jpeg(10))
            try write("pics/readme.md", Array("not a photo".utf8))
            try write("solo.jpg", third)

            let up = try await run(["upload", "pics", "--title-from-filename", "--tags", "sea \"summer day\"", "--set", "Trip", "--private"], env)
            #expect(up.status == 0, "\(up.stderr)")
            #expect(up.stderr.contains("skipping pics/readme.md: not a photo or video") && !up.stderr.contains("hidden"), "\(up.stderr)")
            #expect(up.stderr.contains("uploaded 2 of 2") && up.stderr.contains("the new set \"Trip\""), "\(up.stderr)")
            let ids = up.stdout.split(separator: "\n").map { $0.split(separator: "\t") }
            #expect(ids.count == 2 && ids.map { String($0[1]) } == ["pics/Beach Day.jpg", "pics/deeper/IMG_0002"])
            let beach = String(ids[0][0])
            let info = try await run(["call", "flickr.photos.getInfo", "photo_id=" + beach, "--json"], env)
            let photo = (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])?["photo"] as? [String: Any]
            #expect((photo?["title"] as? [String: Any])?["_text"] as? String == "Beach Day")
            #expect((photo?["visibility"] as? [String: Any])?["ispublic"] as? String == "0")
            let raws = (((photo?["tags"] as? [String: Any])?["tag"] as? [[String: Any]]) ?? []).compactMap { $0["raw"] as? String }
            #expect(Set(raws) == ["sea", "summer day"])

            // A second upload into the same set name joins the existing set.
            let more = try await run(["upload", "solo.jpg", "--set", "Trip"], env)
            #expect(more.status == 0 && more.stderr.contains("added to set \"Trip\""), "\(more.stderr)")
            let soloID = String(more.stdout.split(separator: "\t").first ?? "")

            // Download by id, then the set, then a search; what is there is skipped.
            let byID = try await run(["download", soloID, "--dir", "got"], env)
            #expect(byID.status == 0, "\(byID.stderr)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("got/\(soloID)_o.jpg")) == Data(third))
            let set = try await run(["download", "--set", try setID(env, title: "Trip"), "--dir", "got"], env)
            #expect(set.status == 0 && set.stderr.contains("downloaded 2") && set.stderr.contains("1 already there"), "\(set.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/got").sorted()
            #expect(files.count == 3 && files.allSatisfy { !$0.hasSuffix(".part") }, "\(files)")
            let contents = try files.map { try Data(contentsOf: dir.appendingPathComponent("got/" + $0)) }
            #expect(Set(contents) == [Data(first), Data(second), Data(third)])
            let search = try await run(["download", "--search", "user_id=me", "tags=summer day", "--size", "q", "--dir", "small"], env)
            #expect(search.status == 0 && search.stderr.contains("downloaded 2"), "\(search.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/small").allSatisfy { $0.hasSuffix("_q.jpg") })
        }
    }

    @Test("Off a terminal, upload writes each ID<TAB>PATH line as its file completes; SIGINT, SIGTERM and SIGHUP (a closed ssh session) each stop after the file in flight, the set gets what went up, the summary says what was not uploaded, exit 128 + the signal",
          arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func uploadInterruptedOffATerminal(signal: Int32, status: Int32) async throws {
        try await withSandbox(latency: 1000) { env in  // each request waits 1 s: files stay in flight a while
            // Forty files, each at least a second: the stop must come well before the last, also
            // when the machine is slow to deliver the signal or this test to see the lines (with
            // twelve, a fresh-clone CI rehearsal on a slow day saw all twelve go up first).
            let count = 40
            for i in 0..<count { try write("batch/img\(i).jpg", Self.jpeg(3_000 + i)) }
            let batch = dir.appendingPathComponent("batch").path
            let upload = try InteractiveProcess(world.flickr, ["upload", batch, "--set", "Halfway"], environment: env)
            // Two lines on the pipe before the batch ends: they were written (and flushed) as their files completed.
            let second = await upload.waitForLine(timeout: 60) { _ in upload.stdout.split(separator: "\n").count >= 2 }
            #expect(second != nil, "no two lines while uploading: \(upload.stdout) \(upload.stderr)")
            kill(upload.process.processIdentifier, signal)
            #expect(await upload.wait(timeout: 60) == status, "\(upload.stderr)")
            let lines = upload.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            let summary = try #require(upload.stderr.firstMatch(of: /uploaded (\d+) of (\d+), interrupted: (\d+) not uploaded, added to the new set "Halfway"/),
                                       "\(upload.stderr)")
            let seen = "stdout: \(upload.stdout)\nstderr: \(upload.stderr)"
            #expect(lines.count >= 2 && lines.count < count, "\(seen)")
            #expect(Int(summary.1) == lines.count && Int(summary.2) == count && Int(summary.3)! + lines.count == count, "\(seen)")
            #expect(lines.allSatisfy { $0.count == 2 && $0[1].hasPrefix(batch + "/img") }, "\(upload.stdout)")
            let members = try await run(["call", "flickr.photosets.getPhotos", "photoset_id=" + (try setID(env, title: "Halfway")), "--json"], env)
            let photos = (((try JSONSerialization.jsonObject(with: Data(members.stdout.utf8)) as? [String: Any])?["photoset"] as? [String: Any])?["photo"]
                as? [[String: Any]]) ?? []
            #expect(Set(photos.compactMap { $0["id"] as? String }) == Set(lines.map { $0[0] }), "\(members.stdout)")
        }
    }

    func setID(_ env: [String: String], title: String) async throws -> String {
        let r = try await run(["call", "flickr.photosets.getList", "--json"], env)
        let sets = (((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["photosets"] as? [String: Any])?["photoset"]
            as? [[String: Any]]) ?? []
        return try #require(sets.first { ($0["title"] as? [String: Any])?["_text"] as? String == title }?["id"] as? String)
    }

    @Test("download --search of 4,200 matches, past Flickr's 4,000-result cap: every photo on disk, each once, by upload-date windows; exit 0")
    func downloadPastTheSearchCap() async throws {
        let photos: [[String: Any]] = (0..<4_200).map {
            ["id": String(9_200_000_000 + $0), "owner": "alice", "tags": "capped", "date_posted": 1_400_000_000 + $0 * 60]
        }
        try await SandboxWorld.withProcess(seed: .object(["users": [["username": "alice"]], "photos": photos]),
                                           environment: world.environment) { sandbox in
            let env = sandbox.environment(world.environment)
            let r = try await run(["download", "--search", "user_id=me", "tags=capped", "--size", "s", "--dir", "capped"], env)
            #expect(r.status == 0, "\(r.stderr.suffix(400))")
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("capped").path)
            #expect(files.count == 4_200, "\(files.count) files for 4,200 matches: \(r.stderr.suffix(300))")
            #expect(Set(files.map { $0.prefix { $0 != "_" && $0 != "." } }).count == 4_200, "a photo twice or missing")
        }
    }

    @Test("A photo over Flickr's 200 MB named on the command line: refused before a byte is sent, with the reason and the limit; exit 1")
    func tooLargeRefusedBeforeSending() async throws {
        let big = dir.appendingPathComponent("big.jpg")
        try Data(Self.jpeg(4_000)).write(to: big)
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(201 * 1_048_576))  // sparse: no 201 MB written
        try handle.close()
        try write("small.jpg", Self.jpeg(4_000))
        try await withSandbox { env in
            let r = try await run(["upload", "big.jpg", "small.jpg"], env)
            #expect(r.status == 1 && r.stderr.contains("big.jpg") && r.stderr.contains("too large: 201 MB, over Flickr's limit of 200 MB for a photo"),
                    "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").count == 1 && r.stdout.contains("small.jpg") && !r.stdout.contains("big.jpg"), "\(r.stdout)")
        }
    }

    @Test("A folder tree as people have them, uploaded by an unprivileged user: a symlinked folder is followed, a link loop is named as a loop, a file reached twice goes once, an unreadable folder and file are named with their reason, as are an empty file and a text file; every file reached goes up, exit 0; the symlinked folder named alone is uploaded")
    func symlinksAndUnreadableEntries() async throws {
        let root = dir.appendingPathComponent("tree")
        func make(_ relative: String, _ bytes: [UInt8]) throws {
            let url = root.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        try make("batch/a.jpg", Self.jpeg(3_001))
        try make("batch/sub/b.jpg", Self.jpeg(3_002))
        try make("nas2020/c.jpg", Self.jpeg(3_003))
        try make("batch/secret.jpg", Self.jpeg(3_004))
        try make("batch/locked/d.jpg", Self.jpeg(3_005))
        try make("batch/empty.jpg", [])
        try make("batch/notes.txt", Array("a note".utf8))
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("batch/link2020").path, withDestinationPath: "../nas2020")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("batch/sub/loop").path, withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("batch/twice.jpg").path, withDestinationPath: "a.jpg")
        try fm.setAttributes([.posixPermissions: 0o000], ofItemAtPath: root.appendingPathComponent("batch/secret.jpg").path)
        try fm.setAttributes([.posixPermissions: 0o000], ofItemAtPath: root.appendingPathComponent("batch/locked").path)
        defer { try? fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent("batch/locked").path) }
        // As a user the permissions apply to (root reads anything): nobody, with a home of its own.
        let home = dir.appendingPathComponent("nobody-home")
        try fm.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        for folder in [dir, root] { try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        let asNobody = getuid() == 0
        try await withSandbox { env in
            var env = env
            (env["HOME"], env["XDG_STATE_HOME"], env["XDG_CONFIG_HOME"]) = (home.path, home.path + "/state", home.path + "/config")
            func upload(_ path: String) async throws -> Products.Result {
                let (executable, arguments) = asNobody
                    ? (URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", world.flickr.path, "upload", path])
                    : (world.flickr, ["upload", path])
                let r = try await Products.run(executable, arguments, environment: env, directory: root, timeout: 120)
                #expect(!r.timedOut)
                return r
            }
            let r = try await upload("batch")
            let sent = r.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
            #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
            #expect(Set(sent) == ["batch/a.jpg", "batch/sub/b.jpg", "batch/link2020/c.jpg"], "\(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("batch/sub/loop: a symbolic link loop"), "\(r.stderr)")
            if asNobody {
                #expect(r.stderr.contains("batch/locked: unreadable folder: Permission denied"), "\(r.stderr)")
                #expect(r.stderr.contains("batch/secret.jpg: unreadable: Permission denied"), "\(r.stderr)")
            }
            #expect(r.stderr.contains("batch/empty.jpg: empty file") && r.stderr.contains("batch/notes.txt: not a photo or video"), "\(r.stderr)")
            let linked = try await upload("batch/link2020")
            #expect(linked.status == 0 && linked.stdout.contains("batch/link2020/c.jpg"), "\(linked.stdout) \(linked.stderr)")
        }
    }

    @Test("File names with a quote or a newline: the title keeps the characters, and each ID<TAB>PATH line stays one line (the path escaped)")
    func oddFileNames() async throws {
        try write("odd/quote\"d.jpg", Self.jpeg(3_100))
        try write("odd/new\nline.jpg", Self.jpeg(3_101))
        try await withSandbox { env in
            let r = try await run(["upload", "odd"], env)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 2 && lines.contains { $0.hasSuffix("\todd/new\\nline.jpg") } && lines.contains { $0.hasSuffix("\todd/quote\"d.jpg") },
                    "\(r.stdout)")
            var titles: Set<String> = []
            for line in lines {
                let id = String(line.split(separator: "\t")[0])
                let info = try await run(["call", "flickr.photos.getInfo", "photo_id=" + id, "--json"], env)
                let photo = (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])?["photo"] as? [String: Any]
                titles.insert((photo?["title"] as? [String: Any])?["_text"] as? String ?? "?")
            }
            #expect(titles == ["quote\"d", "new\nline"], "\(titles)")
        }
    }

    @Test func refusalsCostNoRequest() async throws {
        // No credentials and nothing uploadable: the command stops before it would need either.
        try write("notes.txt", Array("hello".utf8))
        try write("empty.jpg", [])
        let nothing = try await run(["upload", "notes.txt", "empty.jpg"], world.environment)
        #expect(nothing.status == 1 && nothing.stderr.contains("skipping notes.txt") && nothing.stderr.contains("skipping empty.jpg: empty file")
                && nothing.stderr.contains("nothing to upload"), "\(nothing.stderr)")
        let missing = try await run(["upload", "nowhere"], world.environment)
        #expect(missing.status == 2 && missing.stderr.contains("nowhere: no such file or directory"), "\(missing.stderr)")
        let both = try await run(["upload", "notes.txt", "--public", "--private"], world.environment)
        #expect(both.status == 2)
        let size = try await run(["download", "1", "--size", "huge"], world.environment)
        #expect(size.status == 2 && size.stderr.contains("--size"), "\(size.stderr)")
        let notID = try await run(["download", "abc"], world.environment)
        #expect(notID.status == 2 && notID.stderr.contains("not a photo id"), "\(notID.stderr)")
        let neither = try await run(["download"], world.environment)
        #expect(neither.status == 2)
        // Through the sandbox with --debug: a .txt alone never reaches the upload endpoint.
        let traced = try await run(["--sandbox", "--debug", "upload", "notes.txt"], world.environment)
        #expect(traced.status == 1 && !traced.stderr.contains("/services/upload"), "\(traced.stderr)")
        let help = try await run(["upload", "--help"], world.environment)
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: flickr [global options] upload PATH...") && help.stdout.contains("--title-from-filename"))
    }

    @Test("Downloaded files carry the date taken (local time, here New York) as their modification time; a rerun of an up-to-date download asks for no image, play URL or getSizes; by id it asks getInfo alone")
    func downloadDatesAndRerun() async throws {
        let seed: [String: Any] = [
            "users": [["username": "alice", "nsid": "20000001@N01"]], "default_user": "alice",
            "photos": [
                ["id": "8400000001", "owner": "alice", "title": "harbour", "date_posted": 1_600_000_000, "date_taken": "2019-07-14 09:30:05",
                 "original_format": "png", "width": 640, "height": 480],
                ["id": "8400000002", "owner": "alice", "title": "waves", "date_posted": 1_600_000_100, "date_taken": "2018-01-02 03:04:05",
                 "media": "video", "original_format": "mp4"],
            ],
        ]
        let log = dir.appendingPathComponent("download-access.jsonl")
        try await SandboxWorld.withProcess(seed: .object(seed), accessLog: log, environment: world.environment) { sandbox in
            let env = sandbox.environment(world.environment).merging(["TZ": "America/New_York"]) { $1 }
            func entries() throws -> [[String: Any]] {
                try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap {
                    try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
            }
            let first = try await run(["download", "--search", "user_id=me", "--dir", "out"], env)
            #expect(first.status == 0, "\(first.stderr)")
            let photo = dir.appendingPathComponent("out/8400000001_o.png").path, video = dir.appendingPathComponent("out/8400000002_o.mp4").path
            var newYork = Calendar(identifier: .gregorian)
            newYork.timeZone = try #require(TimeZone(identifier: "America/New_York"))
            for (path, taken) in [(photo, DateComponents(year: 2019, month: 7, day: 14, hour: 9, minute: 30, second: 5)),
                                  (video, DateComponents(year: 2018, month: 1, day: 2, hour: 3, minute: 4, second: 5))] {
                let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                #expect(modified == newYork.date(from: taken), "\(path): \(String(describing: modified))")
            }
            // The PNG original is a PNG (the sandbox serves the seeded format).
            #expect(try Data(contentsOf: URL(fileURLWithPath: photo)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let before = try entries().count
            let again = try await run(["download", "--search", "user_id=me", "--dir", "out"], env)
            #expect(again.status == 0 && again.stderr.contains("downloaded 0 files") && again.stderr.contains("2 already there"), "\(again.stderr)")
            let rerun = try entries().dropFirst(before)
            #expect(!rerun.isEmpty && rerun.allSatisfy { ($0["path"] as? String) == "/services/rest/" && ($0["method"] as? String) != "flickr.photos.getSizes" },
                    "the rerun asked: \(rerun.map { "\($0["path"] ?? "") \($0["method"] ?? "")" })")
            // By id: one getInfo, nothing else, and the file is still the same.
            let mark = try entries().count
            let byID = try await run(["download", "8400000001", "8400000002", "--dir", "out"], env)
            #expect(byID.status == 0 && byID.stderr.contains("2 already there"), "\(byID.stderr)")
            let asked = try entries().dropFirst(mark).map { ($0["method"] as? String) ?? ($0["path"] as? String) ?? "" }
            #expect(asked == ["flickr.photos.getInfo", "flickr.photos.getInfo"], "\(asked)")
        }
    }
}

