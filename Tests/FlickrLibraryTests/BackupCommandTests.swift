import FlickrAPI
import FlickrLibrary
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `flickr backup` as a user runs it: the real binary against a sandbox over loopback, the
/// backup folder read back file by file, the calls and downloads counted in the access log.
@Suite("flickr backup: originals once, sidecars, incremental runs, --prune, --verify, kill -9",
       .timeLimit(.minutes(10)), .tags(.command, .heavy))
struct BackupCommandTests {
    static func flickr(_ args: [String], _ env: [String: String]) async throws -> Products.Result {
        let r = try await Products.run(try Products.executable("flickr"), args, environment: env, timeout: 180)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// The requests of the access log: (path, API method).
    static func requests(_ log: URL) -> [(path: String, method: String)] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return ((o["path"] as? String) ?? "", (o["method"] as? String) ?? "")
        }
    }

    /// Downloads of originals in the log (`/static/…_o.EXT` and videos' `/play/orig/`), by photo id.
    static func originalDownloads(_ log: URL) -> [String: Int] {
        var out: [String: Int] = [:]
        for (path, _) in requests(log) {
            if path.hasPrefix("/static/"), let name = path.split(separator: "/").last, name.contains("_o.") {
                out[String(name.prefix { $0 != "_" }), default: 0] += 1
            } else if path.contains("/play/orig/") {
                let parts = path.split(separator: "/")
                if let i = parts.firstIndex(of: "play"), i > 0 { out[String(parts[i - 1]), default: 0] += 1 }
            }
        }
        return out
    }

    /// The manifest's entries: path → (size, sha256).
    static func manifest(_ dir: URL) throws -> [String: (Int, String)] {
        let data = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: files.map { ($0["path"] as! String, ($0["size"] as! Int, $0["sha256"] as! String)) })
    }

    /// SHA-256 of files by coreutils' sha256sum (an independent hasher): path → hex.
    static func sha256sum(_ paths: [String], in dir: URL) async throws -> [String: String] {
        var out: [String: String] = [:]
        for start in stride(from: 0, to: paths.count, by: 200) {
            let chunk = Array(paths[start..<min(paths.count, start + 200)])
            let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), ["--"] + chunk.map { dir.appendingPathComponent($0).path },
                                           timeout: 60)
            for line in r.stdout.split(separator: "\n") {
                let hash = String(line.prefix(64)), path = String(line.dropFirst(66))
                out[String(path.dropFirst(dir.path.count + 1))] = hash
            }
        }
        return out
    }

    /// Every regular file under `dir` outside its dot-folders (relative paths).
    static func files(_ dir: URL) -> [String] {
        var out: [String] = []
        let walker = FileManager.default.enumerator(atPath: dir.path)
        while let relative = walker?.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") { walker?.skipDescendants(); continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent(relative).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out.append(relative)
            }
        }
        return out.sorted()
    }

    /// A file under its final name is whole: a JPEG from SOI to EOI, an MP4 whose first box is
    /// an ftyp of the length it says, a PNG with its IEND, JSON that parses, XMP that parses.
    static func whole(_ url: URL) -> Bool {
        guard let data = try? Data(contentsOf: url) else { return false }
        let b = [UInt8](data)
        switch url.pathExtension {
        case "jpg": return b.starts(with: [0xFF, 0xD8]) && b.suffix(2) == [0xFF, 0xD9]
        case "png": return b.starts(with: [0x89, 0x50, 0x4E, 0x47]) && b.suffix(8).starts(with: [0x49, 0x45, 0x4E, 0x44])
        case "mp4": return b.count >= 8 && Array(b[4..<8]) == Array("ftyp".utf8) && Int(b[3]) <= b.count
        case "json": return (try? JSONSerialization.jsonObject(with: data)) != nil
        case "xmp": return XMLParser(data: data).parse()
        default: return false
        }
    }

    /// A 1×1 PNG, and a JPEG of `n` bytes whose content is its own (a file Flickr takes).
    static let png: [UInt8] = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)
    static func jpeg(_ seed: UInt8, _ n: Int = 600) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0] + (0..<n).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed)) | 0x01 } + [0xFF, 0xD9]
    }

    @Test("A first backup holds every original once under its format's extension (videos as video), a sidecar per photo, the sets and a manifest that sha256sum agrees with; a second costs no download and no call past the sync; edits, a replace, a deletion and a set change rewrite only what changed; --prune; --verify finds a flipped byte, a missing file and an extra file")
    func backupLifecycle() async throws {
        let world = LibraryWorld(count: 240, seed: "backup")
        try await world.serve { server, alice, env, log in
            let dir = URL(fileURLWithPath: env["HOME"]!).appendingPathComponent("Flickr backup")
            // Two uploads with bytes of their own: a JPEG (replaced by a PNG later) and another JPEG.
            let replaced = try #require(try await alice.upload(.bytes(Self.jpeg(1), filename: "a.jpg"), arguments: ["title": "to be replaced"]).photoID)
            let kept = try #require(try await alice.upload(.bytes(Self.jpeg(2), filename: "b.jpg"), arguments: ["title": "kept"]).photoID)

            let first = try await Self.flickr(["backup", dir.path], env)
            try #require(first.status == 0, "\(first.stdout)\(first.stderr)")
            let photos = world.photos.count + 2
            #expect(first.stdout.contains("backed up \(photos) photos into \(dir.path): \(photos) originals downloaded"), "\(first.stdout)")
            let store = try LibraryWorld.store(env)
            let records = try store.records(try store.ids(LibraryFilter([:])))
            #expect(records.count == photos)
            let entries = try Self.manifest(dir)
            // Every photo: its original under photos/YYYY/MM/ID.EXT, a video's as .mp4, and a sidecar naming it.
            for record in records {
                let p = record.photo
                let originals = entries.keys.filter { $0.hasPrefix("photos/") && ($0 as NSString).lastPathComponent.hasPrefix(p.id + ".")
                    && !$0.hasSuffix(".json") && !$0.hasSuffix(".xmp") }
                try #require(originals.count == 1, "photo \(p.id): \(originals)")
                let original = originals[0]
                #expect(original.hasSuffix(p.media == "video" ? ".mp4" : ".jpg"), "\(original) of a \(p.media ?? "?")")
                let sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(
                    (original as NSString).deletingPathExtension + ".json"))) as? [String: Any])
                #expect(sidecar["id"] as? String == p.id && sidecar["title"] as? String == p.title && sidecar["original"] as? String == original)
                #expect(sidecar["tags"] as? [String] == record.tags && sidecar["date_taken"] as? String == p.date_taken)
                // The original's modification time is the date taken, in the local time zone.
                if let taken = p.date_taken, let expected = DownloadedFile.takenDate(taken) {
                    let modified = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(original).path)[.modificationDate] as? Date
                    #expect(modified == expected, "\(original): \(String(describing: modified)), taken \(taken)")
                }
            }
            let uploaded = try #require(entries.keys.first { ($0 as NSString).lastPathComponent == kept + ".jpg" })
            #expect(try Data(contentsOf: dir.appendingPathComponent(uploaded)) == Data(Self.jpeg(2)), "the uploaded bytes, unchanged")
            for set in world.sets {
                let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("sets/\(set.id).json"))) as? [String: Any])
                #expect((manifest["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == set.photos)
            }
            // The manifest lists exactly the files outside the dot-folders, and coreutils agrees with every hash.
            let onDisk = Self.files(dir).filter { $0 != "manifest.json" }
            #expect(Set(onDisk) == Set(entries.keys))
            let hashes = try await Self.sha256sum(onDisk, in: dir)
            #expect(onDisk.allSatisfy { hashes[$0] == entries[$0]?.1 }, "sha256sum disagrees with the manifest")
            #expect(Self.originalDownloads(log).count == photos && Self.originalDownloads(log).values.allSatisfy { $0 == 1 })
            let verified = try await Self.flickr(["backup", "--verify", dir.path], env)
            #expect(verified.status == 0 && verified.stdout.contains("0 missing, 0 corrupt, 0 extra, 0 stale, 0 not backed up")
                    && verified.stdout.contains("— sound"), "\(verified.stdout)\(verified.stderr)")

            // Nothing changed: no download, no sidecar, only the incremental sync's calls.
            let (second, calls) = try await LibraryWorld.counting(log) { try await Self.flickr(["backup", dir.path], env) }
            #expect(second.status == 0 && second.stdout.contains(": 0 originals downloaded (0.0 MiB), 0 sidecars written, 0 sets written, \(photos) unchanged"),
                    "\(second.stdout)\(second.stderr)")
            #expect(calls == 4, "\(calls) calls for an unchanged library (test.login, recentlyUpdated, people.getInfo, photosets.getList)")
            #expect(Self.originalDownloads(log).values.reduce(0, +) == photos, "an unchanged library downloads nothing")

            // Changes: a title, a replace by another format, a deletion, a photo added to a set.
            let titled = world.photos[3].id, deleted = world.photos[4].id, added = world.photos[5].id
            let set = try #require(world.sets.last { !$0.photos.contains(added) })
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": titled, "title": "Renamed", "description": ""])
            _ = try await alice.replace(photoID: replaced, with: .bytes(Self.png, filename: "a.png"))
            _ = try await alice.call("flickr.photosets.addPhoto", ["photoset_id": set.id, "photo_id": added])
            _ = try await LibraryWorld.client(server.credentials, url: server.url, token: LibraryWorld.deleteToken)
                .call("flickr.photos.delete", ["photo_id": deleted])
            let third = try await Self.flickr(["backup", dir.path], env)
            try #require(third.status == 0, "\(third.stdout)\(third.stderr)")
            // The set the photo went into, and those the deleted photo left.
            let changedSets = Set(world.sets.filter { $0.photos.contains(deleted) }.map(\.id) + [set.id]).count
            #expect(third.stdout.contains(": 1 original downloaded (0.0 MiB), 3 sidecars written, \(changedSets) set\(changedSets == 1 ? "" : "s") written, \(photos - 4) unchanged; "
                                          + "1 deleted on Flickr kept (--prune moves them to"), "\(third.stdout)")
            let after = try Self.manifest(dir)
            let png = try #require(after.keys.first { ($0 as NSString).lastPathComponent == replaced + ".png" })
            #expect(try Data(contentsOf: dir.appendingPathComponent(png)) == Data(Self.png))
            #expect(!after.keys.contains { ($0 as NSString).lastPathComponent == replaced + ".jpg" }
                    && !Self.files(dir).contains { ($0 as NSString).lastPathComponent == replaced + ".jpg" }, "the replaced JPEG is gone")
            let renamed = try #require(after.keys.first { ($0 as NSString).lastPathComponent == titled + ".json" })
            #expect(String(decoding: try Data(contentsOf: dir.appendingPathComponent(renamed)), as: UTF8.self).contains("\"title\": \"Renamed\""))
            let kept1 = Self.files(dir).filter { ($0 as NSString).lastPathComponent.hasPrefix(deleted + ".") }
            #expect(kept1.count == 2, "the deleted photo's original and sidecar are kept: \(kept1)")
            let verifiedAgain = try await Self.flickr(["backup", "--verify", dir.path], env)
            #expect(verifiedAgain.status == 0 && verifiedAgain.stdout.contains("1 deleted on Flickr kept"), "\(verifiedAgain.stdout)")
            // Right after sets changed, nothing more changed: the documented 4 calls, no set read again.
            let (idle, idleCalls) = try await LibraryWorld.counting(log) { try await Self.flickr(["backup", dir.path], env) }
            #expect(idle.status == 0 && idleCalls == 4, "\(idleCalls) calls after the sets' changes were backed up: \(idle.stdout)")

            // --prune moves the deleted photo's files under .deleted/, out of the manifest.
            let pruned = try await Self.flickr(["backup", dir.path, "--prune"], env)
            #expect(pruned.status == 0 && pruned.stdout.contains("1 deleted on Flickr moved to"), "\(pruned.stdout)\(pruned.stderr)")
            for path in kept1 {
                #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(path).path))
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(".deleted/" + path).path))
            }
            #expect(try Self.manifest(dir).keys.allSatisfy { !$0.contains("/\(deleted).") })

            // --xmp: an XMP sidecar beside each original, the metadata of the library in it; nothing else rewritten.
            let xmp = try await Self.flickr(["backup", dir.path, "--xmp"], env)
            #expect(xmp.status == 0 && xmp.stdout.contains(": 0 originals downloaded (0.0 MiB), 0 sidecars and \(photos - 1) XMP written"),
                    "\(xmp.stdout)\(xmp.stderr)")
            let xmpPath = try #require(try Self.manifest(dir).keys.first { $0.hasSuffix("/\(titled).jpg.xmp") })
            let xmpText = String(decoding: try Data(contentsOf: dir.appendingPathComponent(xmpPath)), as: UTF8.self)
            #expect(Self.whole(dir.appendingPathComponent(xmpPath)) && xmpText.contains(">Renamed</rdf:li>"), "\(xmpText)")
            let xmpAgain = try await Self.flickr(["backup", dir.path, "--xmp"], env)
            #expect(xmpAgain.stdout.contains(", 0 sidecars written, 0 sets written, \(photos - 1) unchanged"), "\(xmpAgain.stdout)")

            // Faults verify must find: a flipped byte, a missing sidecar, an extra file.
            let flipped = try #require(try Self.manifest(dir).keys.first { $0.hasSuffix("/\(kept).jpg") })
            var bytes = try Data(contentsOf: dir.appendingPathComponent(flipped))
            bytes[100] ^= 0x01
            try bytes.write(to: dir.appendingPathComponent(flipped))
            let missing = try #require(try Self.manifest(dir).keys.first { $0.hasSuffix("/\(titled).json") })
            try FileManager.default.removeItem(at: dir.appendingPathComponent(missing))
            try Data("notes".utf8).write(to: dir.appendingPathComponent("photos/notes.txt"))
            let faulty = try await Self.flickr(["backup", "--verify", dir.path], env)
            #expect(faulty.status == 1, "\(faulty.stdout)\(faulty.stderr)")
            #expect(faulty.stdout.contains("corrupt: \(flipped)\n") && faulty.stdout.contains("missing: \(missing)\n")
                    && faulty.stdout.contains("extra: photos/notes.txt\n") && faulty.stdout.contains("1 missing, 1 corrupt, 1 extra"),
                    "\(faulty.stdout)")
        }
    }

    @Test("Refusals before any request: a folder with files that is not a backup, --sizes other than o, --verify with --prune, no folder; --verify of a folder that is no backup; a read-only folder, in the system's words")
    func refusals() async throws {
        let world = try CommandWorld("backup-refusals")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        try await SandboxWorld.withProcess(accessLog: world.directory.appendingPathComponent("log"),
                                           environment: world.environment) { sandbox in
            let env = sandbox.environment(world.environment)
            let busy = world.directory.appendingPathComponent("Pictures")
            try FileManager.default.createDirectory(at: busy, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: busy.appendingPathComponent("holiday.jpg"))
            let r = try await Self.flickr(["backup", busy.path], env)
            #expect(r.status == 1 && r.stderr.contains("is not empty and is not a backup"), "\(r.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: busy.path) == ["holiday.jpg"], "nothing written into it")
            let sizes = try await Self.flickr(["backup", world.directory.appendingPathComponent("b").path, "--sizes", "k"], env)
            #expect(sizes.status == 2 && sizes.stderr.contains("--sizes: 'k'"), "\(sizes.stderr)")
            let both = try await Self.flickr(["backup", "--verify", "--prune", busy.path], env)
            #expect(both.status == 2 && both.stderr.contains("--prune"), "\(both.stderr)")
            let none = try await Self.flickr(["backup"], env)
            #expect(none.status == 2 && none.stderr.contains("give the backup's folder"), "\(none.stderr)")
            let notBackup = try await Self.flickr(["backup", "--verify", busy.path], env)
            #expect(notBackup.status == 1 && notBackup.stderr.contains("is not a backup"), "\(notBackup.stderr)")
            // A folder that cannot be written (a read-only file system: root too is refused) is
            // refused in the system's words, before the sync.
            let readOnly = world.directory.appendingPathComponent("read-only")
            try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
            let mount = try await Products.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", readOnly.path], timeout: 30)
            if mount.status == 0 {
                defer { _ = umount2(readOnly.path, Int32(MNT_DETACH)) }
                let refused = try await Self.flickr(["backup", readOnly.path], env)
                #expect(refused.status == 1 && refused.stderr.contains("Read-only file system") && !refused.stderr.contains("NSCocoaErrorDomain"),
                        "\(refused.status) \(refused.stderr)")
            } else {
                print("refusals: the read-only folder not tried here: this machine does not let the test mount a tmpfs (\(mount.stderr))")
            }
            let log = (try? String(contentsOf: world.directory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            #expect(log.isEmpty, "a refusal makes no request: \(log)")
        }
    }

    @Test("One runner per library: while a backup runs, a second backup and a sync are told its process id and host and exit 75")
    func oneRunner() async throws {
        let world = try CommandWorld("backup-runner")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        // Slow answers keep the first backup running while the others try.
        try await SandboxWorld.withProcess(["--latency", "300"], environment: world.environment) { sandbox in
            let env = sandbox.environment(world.environment)
            let dir = world.directory.appendingPathComponent("backup")
            let first = try InteractiveProcess(try Products.executable("flickr"), ["backup", dir.path, "--events"], environment: env)
            defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, first.process.isRunning, !first.stderr.contains("\"phase\":\"backup\"") {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(first.process.isRunning && first.stderr.contains("\"phase\":\"backup\""), "\(first.stderr)")
            // Held where it is (its locks with it) while the others try: however slow they are
            // on a loaded machine, the first cannot finish meanwhile.
            kill(first.process.processIdentifier, SIGSTOP)
            for args in [["backup", dir.path], ["sync"], ["backup", "--verify", dir.path]] {
                let second = try await Self.flickr(args, env)
                #expect(second.status == 75 && second.stderr.contains("process \(first.process.processIdentifier) on host"),
                        "\(args): \(second.status) \(second.stderr)")
            }
            // Another environment (a cron job with another HOME, another machine on a share): its
            // own library, the same folder — refused by the folder's own lock, before any call.
            let elsewhere = world.directory.appendingPathComponent("other-home")
            let otherEnv = env.merging(["HOME": elsewhere.path, "XDG_CONFIG_HOME": elsewhere.path + "/config",
                                        "XDG_STATE_HOME": elsewhere.path + "/state", "XDG_DATA_HOME": elsewhere.path + "/data"]) { $1 }
            let other = try await Self.flickr(["backup", dir.path], otherEnv)
            #expect(other.status == 75 && other.stderr.contains("is being backed up by process \(first.process.processIdentifier) on host"),
                    "another HOME: \(other.status) \(other.stderr)")
            #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("data").path)
                    || (try? FileManager.default.contentsOfDirectory(atPath: elsewhere.path + "/data/flickr"))?.isEmpty != false,
                    "the refused run made a library")
            // Let go, the first backup finishes its work.
            kill(first.process.processIdentifier, SIGCONT)
            let status = await first.wait(timeout: 120)
            #expect(status == 0, "the first backup, continued: \(status.map(String.init) ?? "did not end") \(first.stderr.suffix(2000))")
        }
    }

    @Test("kill -9 twenty times (during the sync and at varied points of the backup), each followed by a rerun: no partial file under a final name, no original fetched twice but those in flight, and the last run ends exact and verified")
    func killNine() async throws {
        let world = try CommandWorld("backup-kill")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let generated = LibraryWorld(count: 200, seed: "backup-kill")
        let seed = try generated.writeSeed(in: world.directory)
        let log = world.directory.appendingPathComponent("access.jsonl")
        try await SandboxWorld.withProcess(["--latency", "25"], seed: .file(seed), accessLog: log,
                                           environment: world.environment) { sandbox in
            var env = sandbox.environment(world.environment)
            env["XDG_DATA_HOME"] = world.directory.path + "/data"
            let dir = world.directory.appendingPathComponent("backup")
            var killsInBackup = 0
            for round in 0..<20 {
                let run = try InteractiveProcess(try Products.executable("flickr"), ["backup", dir.path, "--events"], environment: env)
                // Every fifth kill lands in the sync; the others after 2–8 photos of the backup.
                let inSync = round % 5 == 0
                let after = 2 + round % 7
                let deadline = Date().addingTimeInterval(60)
                var hit = false
                while Date() < deadline, run.process.isRunning {
                    let events = run.stderr.split(separator: "\n")
                    hit = inSync ? events.contains { $0.contains("\"phase\":\"") }
                        : events.contains { line in
                            line.contains("\"phase\":\"backup\"") && ((line.firstMatch(of: /"done":(\d+)/).flatMap { Int($0.1) }) ?? 0) >= after
                        }
                    if hit { break }
                    try await Task.sleep(for: .milliseconds(5))
                }
                if !(hit && run.process.isRunning) {
                    // Ended before the kill point: only a finished backup (exit 0) is acceptable.
                    let status = await run.wait(timeout: 30)
                    #expect(status == 0, "round \(round): the run ended (\(String(describing: status))) before the kill: \(run.stdout) \(run.stderr)")
                    continue
                }
                kill(run.process.processIdentifier, SIGKILL)
                _ = await run.wait(timeout: 30)
                // A kill meant for the sync may land in the backup's first downloads too: every kill counts.
                killsInBackup += 1
                let partial = Self.files(dir).filter { !Self.whole(dir.appendingPathComponent($0)) }
                #expect(partial.isEmpty, "round \(round): partial files under final names: \(partial)")
            }
            let last = try await Self.flickr(["backup", dir.path], env)
            #expect(last.status == 0, "\(last.stdout)\(last.stderr)")
            let verified = try await Self.flickr(["backup", "--verify", dir.path], env)
            #expect(verified.status == 0 && verified.stdout.contains("— sound"), "\(verified.stdout)")
            let entries = try Self.manifest(dir)
            #expect(Set(Self.files(dir).filter { $0 != "manifest.json" }) == Set(entries.keys))
            let downloads = Self.originalDownloads(log)
            #expect(downloads.count == generated.photos.count, "every photo's original fetched")
            let again = downloads.values.reduce(0, +) - downloads.count
            // Only a download in flight at a kill (4 at once) may be fetched again.
            #expect(again <= 4 * killsInBackup, "\(again) originals fetched twice over \(killsInBackup) kills in the backup")
            #expect(Self.files(dir).allSatisfy { Self.whole(dir.appendingPathComponent($0)) })
            let parts = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(".flickr-backup/parts").path)) ?? []
            #expect(parts.isEmpty, "no download left behind: \(parts)")
        }
    }

    @Test("A full disk (a 1 MiB tmpfs the test mounts) stops the backup at once: each original fetched at most once, no file half written under its name, failed lines and a summary of what was stored and what was not, exit 1; once the disk grows a rerun goes on and ends sound")
    func fullDisk() async throws {
        let world = LibraryWorld(count: 60, seed: "backup-full")
        try await world.serve { _, _, env, log in
            let dir = URL(fileURLWithPath: env["HOME"]!).appendingPathComponent("small disk")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let mount = try await Products.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.path], timeout: 30)
            guard mount.status == 0 else {
                print("fullDisk: not run here: this machine does not let the test mount a tmpfs (\(mount.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
                return
            }
            defer { _ = umount2(dir.path, Int32(MNT_DETACH)) }
            let first = try await Self.flickr(["backup", dir.path], env)
            #expect(first.status == 1 && first.stderr.contains("no space left on the disk") && first.stderr.contains("free some space"),
                    "\(first.status) \(first.stderr.suffix(600))")
            #expect(first.stdout.contains("not backed up") && first.stdout.contains("of \(world.photos.count) photos"), "\(first.stdout)")
            let fetched = Self.originalDownloads(log)
            #expect(fetched.values.allSatisfy { $0 == 1 }, "an original fetched twice: \(fetched.filter { $0.value > 1 })")
            #expect(fetched.count < world.photos.count, "the run went on past the full disk: \(fetched.count) downloads")
            for file in Self.files(dir) { #expect(Self.whole(dir.appendingPathComponent(file)), "\(file) is not whole") }
            // Room again: the rerun fetches only what is missing and ends sound.
            let grow = try await Products.run(URL(fileURLWithPath: "/bin/mount"), ["-o", "remount,size=64m", dir.path], timeout: 30)
            try #require(grow.status == 0, "\(grow.stderr)")
            let second = try await Self.flickr(["backup", dir.path], env)
            #expect(second.status == 0, "\(second.stdout) \(second.stderr.suffix(400))")
            let after = Self.originalDownloads(log)
            #expect(after.count == world.photos.count && after.values.reduce(0, +) <= world.photos.count + 4,
                    "\(after.values.reduce(0, +)) downloads for \(world.photos.count) photos")
            let verified = try await Self.flickr(["backup", "--verify", dir.path], env)
            #expect(verified.status == 0 && verified.stdout.contains("— sound"), "\(verified.stdout)")
        }
    }

    @Test("Every run checks each file's size against the backup's records: an emptied or cut original is fetched again; --verify --repair fetches a corrupt one (a flipped byte) again and ends sound, exit 0; files are 0600, folders 0700")
    func repairs() async throws {
        let world = LibraryWorld(count: 12, seed: "backup-repair")
        try await world.serve { _, _, env, log in
            let dir = URL(fileURLWithPath: env["HOME"]!).appendingPathComponent("backup")
            let first = try await Self.flickr(["backup", dir.path], env)
            try #require(first.status == 0, "\(first.stderr)")
            let originals = try Self.manifest(dir).keys.filter { $0.hasPrefix("photos/") && !$0.hasSuffix(".json") && !$0.hasSuffix(".xmp") }.sorted()
            try #require(originals.count == world.photos.count)
            // Private: the folders 0700, the files 0600.
            for file in originals.prefix(3) {
                let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(file).path)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
            }
            let folderMode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("photos").path)[.posixPermissions] as? Int
            #expect(folderMode == 0o700, "photos/: \(String(folderMode ?? 0, radix: 8))")
            // An emptied original and one cut short: the next plain run fetches both again.
            let emptied = originals[0], cut = originals[1], flipped = originals[2]
            try Data().write(to: dir.appendingPathComponent(emptied))
            let whole = try Data(contentsOf: dir.appendingPathComponent(cut))
            try whole.prefix(whole.count / 2).write(to: dir.appendingPathComponent(cut))
            let before = Self.originalDownloads(log)
            let second = try await Self.flickr(["backup", dir.path], env)
            #expect(second.status == 0, "\(second.stderr)")
            let refetched = Self.originalDownloads(log).filter { before[$0.key] != $0.value }.keys.sorted()
            let ids = [emptied, cut].map { String(($0 as NSString).lastPathComponent.prefix { $0 != "." }) }.sorted()
            #expect(refetched == ids, "fetched again: \(refetched), expected \(ids)")
            #expect(try Data(contentsOf: dir.appendingPathComponent(cut)) == whole)
            // A flipped byte keeps the size: --verify finds it, --verify --repair mends it.
            var bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent(flipped)))
            bytes[bytes.count / 2] ^= 0x40
            try Data(bytes).write(to: dir.appendingPathComponent(flipped))
            let found = try await Self.flickr(["backup", "--verify", dir.path], env)
            #expect(found.status == 1 && found.stdout.contains("corrupt: \(flipped)"), "\(found.stdout)")
            let plain = try await Self.flickr(["backup", dir.path], env)
            #expect(plain.status == 0)  // a plain run does not re-hash: the size is right
            let repaired = try await Self.flickr(["backup", "--verify", "--repair", dir.path], env)
            #expect(repaired.status == 0 && repaired.stdout.contains("— sound") && repaired.stderr.contains("1 corrupt"),
                    "\(repaired.status) \(repaired.stdout) \(repaired.stderr)")
            let usage = try await Self.flickr(["backup", "--repair", dir.path], env)
            #expect(usage.status == 2 && usage.stderr.contains("--repair"), "\(usage.stderr)")
        }
    }
}

