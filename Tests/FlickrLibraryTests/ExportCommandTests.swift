import FlickrAPI
import FlickrLibrary
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// `flickr export` as a user runs it: a backup made by the real binary against a sandbox, then
/// the export read back file by file, by stat(2) (links, times), sha256sum and ExifTool (an
/// independent reader of what was embedded).
@Suite("flickr export: named, dated copies by set, date or flat; embedded metadata; incremental; --verify; kill -9",
       .timeLimit(.minutes(10)), .tags(.command, .heavy))
struct ExportCommandTests {
    static func flickr(_ args: [String], _ env: [String: String]) async throws -> Products.Result {
        let r = try await Products.run(try Products.executable("flickr"), args, environment: env, timeout: 300)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// Every regular file under `dir` outside its dot-folders: relative path → stat.
    static func tree(_ dir: URL) -> [String: stat] {
        var out: [String: stat] = [:]
        let walker = FileManager.default.enumerator(atPath: dir.path)
        while let relative = walker?.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") { walker?.skipDescendants(); continue }
            var st = stat()
            if lstat(dir.appendingPathComponent(relative).path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { out[relative] = st }
        }
        return out
    }

    /// The photo id of an exported file's name, `… (ID).EXT`.
    static func photoID(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        return name.firstMatch(of: /\((\d+)\)\.[a-z0-9]+(\.xmp)?$/).map { String($0.1) }
    }

    /// What ExifTool reads of `paths` (`-j -G1 -n`), by path.
    static func exiftool(_ paths: [String], tags: [String]) async throws -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for start in stride(from: 0, to: paths.count, by: 100) {
            let chunk = Array(paths[start..<min(paths.count, start + 100)])
            let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-j", "-G1", "-n", "-struct"] + tags.map { "-" + $0 } + chunk,
                                           timeout: 120)
            let array = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r.stderr)")
            for o in array { out[o["SourceFile"] as? String ?? ""] = o }
        }
        return out
    }

    static func strings(_ v: Any?) -> [String] {
        switch v {
        case let a as [Any]: a.map { ($0 as? String) ?? ($0 as? NSNumber)?.stringValue ?? "\($0)" }
        case let s as String: [s]
        case let n as NSNumber: [n.stringValue]
        default: []
        }
    }

    /// The date taken `2019-07-02 14:03:05` read in `zone`.
    static func date(_ taken: String, zone: TimeZone) -> Date? {
        let n = taken.split { $0 == "-" || $0 == " " || $0 == ":" }.compactMap { Int($0) }
        guard n.count == 6 else { return nil }
        var c = DateComponents(year: n[0], month: n[1], day: n[2], hour: n[3], minute: n[4], second: n[5])
        c.calendar = Calendar(identifier: .gregorian)
        c.timeZone = zone
        return c.date
    }

    /// A name any file system takes: no `<>:"/\|?*` or control character, no trailing dot or
    /// space, no device name, ≤ 255 bytes.
    static func safe(_ name: String) -> Bool {
        let devices = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })
        let base = String(name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").uppercased()
        return !name.unicodeScalars.contains { $0.value < 0x20 || "<>:\"/\\|?*".unicodeScalars.contains($0) }
            && !name.hasSuffix(".") && !name.hasSuffix(" ") && !devices.contains(base.trimmingCharacters(in: .whitespaces))
            && name.utf8.count <= 255 && !name.isEmpty
    }

    @Test("A backup exported by set with --embed: each photo once per set (hard links, one file), names safe on every file system and apart ignoring case, mtime = date taken in the local zone, EXIF/IPTC/XMP as ExifTool reads them equal Flickr's, the backup untouched, a video's XMP sidecar; --verify sound; a second run writes only what changed, moves a renamed set without copying; --verify finds a flipped bit and a missing file, --verify --repair mends them, a copy saved over is written again; refusals before any write")
    func exportLifecycle() async throws {
        var world = LibraryWorld(count: 60, seed: "export")
        // Titles no file system takes as they are.
        world.photos[0].title = "CON"
        world.photos[1].title = "a/b:c*?\"<>|\\ ends with dots. . "
        world.photos[2].title = String(repeating: "é", count: 200)
        world.photos[3].title = ""
        world.photos[4].title = "Reykjavík\ttab\nnew line"
        world.photos[5].description = "Two lines\nof description, with a \\ backslash"
        world.photos[6].media = "video"
        try await world.serve { _, alice, baseEnv, _ in
            var env = baseEnv
            env["TZ"] = "America/New_York"
            let home = URL(fileURLWithPath: env["HOME"]!)
            let backup = home.appendingPathComponent("Flickr backup"), out = home.appendingPathComponent("Photos from Flickr")
            // Sets whose titles differ only by case, one titled like the folder of photos in no
            // set, and a photo in several sets.
            var made: [String] = []
            for (title, primary) in [("Iceland", 10), ("iceland", 11), ("Not in a set", 12)] {
                let rsp = try await alice.call("flickr.photosets.create", ["title": title, "primary_photo_id": world.photos[primary].id])
                made.append(try #require(rsp["photoset"]?["id"]?.string))
            }
            // A photo in no set.
            for s in world.sets where s.photos.contains(world.photos[30].id) {
                _ = try await alice.call("flickr.photosets.removePhoto", ["photoset_id": s.id, "photo_id": world.photos[30].id])
            }
            _ = try await alice.call("flickr.photosets.addPhoto", ["photoset_id": made[1], "photo_id": world.photos[10].id])
            _ = try await alice.call("flickr.photosets.addPhoto", ["photoset_id": made[2], "photo_id": world.photos[10].id])

            let backedUp = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(backedUp.status == 0, "\(backedUp.stdout)\(backedUp.stderr)")
            let manifestBefore = try BackupCommandTests.manifest(backup)

            // Refused before anything is written.
            let notEmpty = home.appendingPathComponent("not empty")
            try FileManager.default.createDirectory(at: notEmpty, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: notEmpty.appendingPathComponent("notes.txt"))
            for (args, words) in [(["export", notEmpty.path, "--from", backup.path], "is not empty and is not an export"),
                                  (["export", out.path, "--from", home.path], "is not a backup"),
                                  (["export", backup.appendingPathComponent("inside").path, "--from", backup.path], "inside each other"),
                                  (["export", out.path], "give the backup")] {
                let r = try await Self.flickr(args, env)
                #expect(r.status == 2 && r.stderr.contains(words), "\(args): \(r.status) \(r.stderr)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: notEmpty.path) == ["notes.txt"])
            #expect(!FileManager.default.fileExists(atPath: out.path))

            let first = try await Self.flickr(["export", out.path, "--from", backup.path, "--embed"], env)
            try #require(first.status == 0, "\(first.stdout)\(first.stderr)")
            let photos = world.photos.count
            #expect(first.stdout.contains("exported \(photos) photos") && first.stdout.contains("\(photos) written"), "\(first.stdout)")

            let store = try LibraryWorld.store(env)
            let records = Dictionary(uniqueKeysWithValues: try store.records(try store.ids(LibraryFilter([:]))).map { ($0.photo.id, $0) })
            let sets = try store.sets()
            let files = Self.tree(out)
            let media = files.keys.filter { !$0.hasSuffix(".xmp") }
            // Each photo under each of its sets (none: Not in a set/), one file for all.
            var byPhoto: [String: [String]] = [:]
            for path in media { if let id = Self.photoID(path) { byPhoto[id, default: []].append(path) } }
            #expect(Set(byPhoto.keys) == Set(records.keys), "\(Set(records.keys).subtracting(byPhoto.keys))")
            for (id, record) in records {
                let paths = byPhoto[id] ?? []
                let folders = Set(paths.map { ($0 as NSString).deletingLastPathComponent })
                #expect(paths.count == max(1, record.sets.count), "photo \(id): \(paths) for sets \(record.sets)")
                if record.sets.isEmpty { #expect(folders == ["Not in a set"], "\(paths)") }
                let inodes = Set(paths.compactMap { files[$0].map { $0.st_ino } })
                #expect(inodes.count == 1, "photo \(id): \(paths) are not one file")
                if let st = files[paths.first ?? ""] {
                    #expect(Int(st.st_nlink) == paths.count, "photo \(id): \(st.st_nlink) links for \(paths.count) places")
                    if let taken = Self.date(record.photo.date_taken ?? "", zone: TimeZone(identifier: "America/New_York")!) {
                        #expect(Int(st.st_mtim.tv_sec) == Int(taken.timeIntervalSince1970), "photo \(id): mtime is not the date taken")
                    }
                }
            }
            // The set folders: the two Icelands and the set named like the no-set folder told apart by id.
            let folders = Set(media.map { ($0 as NSString).deletingLastPathComponent })
            #expect(folders.contains("Iceland (\(made[0]))") && folders.contains("iceland (\(made[1]))")
                    && folders.contains("Not in a set (\(made[2]))") && folders.contains("Not in a set"), "\(folders.sorted())")
            for s in sets where !made.contains(s.id) { #expect(folders.contains(s.title), "set \(s.title): \(folders.sorted())") }
            // Safe names, apart ignoring case in each folder.
            for path in files.keys {
                for part in path.split(separator: "/") { #expect(Self.safe(String(part)), "unsafe name: \(part.debugDescription)") }
            }
            for folder in folders {
                let names = files.keys.filter { ($0 as NSString).deletingLastPathComponent == folder }.map { ($0 as NSString).lastPathComponent.lowercased() }
                #expect(Set(names).count == names.count, "\(folder): names equal ignoring case")
            }
            let long = try #require(byPhoto[world.photos[2].id]?.first)
            #expect((long as NSString).lastPathComponent.utf8.count <= 255 && long.hasSuffix("(\(world.photos[2].id)).jpg"), "\(long)")
            let untitled = try #require(byPhoto[world.photos[3].id]?.first)
            #expect((untitled as NSString).lastPathComponent == "\(records[world.photos[3].id]!.photo.date_taken!.prefix(10)) (\(world.photos[3].id)).jpg")
            #expect((try #require(byPhoto[world.photos[0].id]?.first) as NSString).lastPathComponent.contains("CON ("))

            // What ExifTool reads from each copy is Flickr's.
            let tags = ["XMP-dc:Title", "XMP-dc:Description", "XMP-dc:Subject", "IPTC:ObjectName", "IPTC:Caption-Abstract", "IFD0:ImageDescription",
                        "ExifIFD:DateTimeOriginal", "Composite:GPSLatitude", "Composite:GPSLongitude", "XMP-dc:Source", "XMP-dc:Identifier",
                        "XMP-xmpRights:UsageTerms", "IPTC:Keywords"]
            let firstPaths = byPhoto.compactMapValues { $0.sorted().first }
            let read = try await Self.exiftool(firstPaths.map { id, path in
                out.appendingPathComponent(path + (records[id]?.photo.media == "video" ? ".xmp" : "")).path
            }, tags: tags)
            for (id, path) in firstPaths {
                let r = records[id]!, p = r.photo
                let video = p.media == "video"
                let o = try #require(read[out.appendingPathComponent(path + (video ? ".xmp" : "")).path],
                                     "\(path): \(read.keys.filter { $0.contains(id) })")
                // The library's tags: raw forms after a deep sync, clean ones here.
                let raw = r.tags
                #expect(Self.strings(o["XMP-dc:Title"]) == (p.title.isEmpty ? [] : [p.title]), "\(id) title \(o["XMP-dc:Title"] ?? "none")")
                #expect(Self.strings(o["XMP-dc:Description"]) == (p.description.isEmpty ? [] : [p.description]), "\(id) description")
                #expect(Self.strings(o["XMP-dc:Subject"]) == raw, "\(id) keywords \(Self.strings(o["XMP-dc:Subject"])) vs \(raw)")
                #expect(Self.strings(o["XMP-dc:Source"]) == ["https://www.flickr.com/photos/\(p.owner)/\(id)/"])
                #expect(Self.strings(o["XMP-dc:Identifier"]) == [id])
                let license = FlickrLicense.named(id: p.license ?? "")?.name
                #expect(Self.strings(o["XMP-xmpRights:UsageTerms"]) == (license.map { [$0] } ?? []), "\(id) licence")
                if !video {
                    #expect(Self.strings(o["IPTC:Caption-Abstract"]) == Self.strings(o["XMP-dc:Description"]))
                    #expect(Self.strings(o["IFD0:ImageDescription"]) == Self.strings(o["XMP-dc:Description"]))
                    #expect(Self.strings(o["IPTC:Keywords"]).count == raw.count)
                    let taken = p.date_taken!.replacingOccurrences(of: "-", with: ":")
                    #expect(Self.strings(o["ExifIFD:DateTimeOriginal"]) == [taken], "\(id) date \(o["ExifIFD:DateTimeOriginal"] ?? "none")")
                    if let lat = p.latitude, let lon = p.longitude {
                        let (a, b) = ((o["Composite:GPSLatitude"] as? NSNumber)?.doubleValue ?? 999, (o["Composite:GPSLongitude"] as? NSNumber)?.doubleValue ?? 999)
                        #expect(abs(a - lat) < 1e-5 && abs(b - lon) < 1e-5, "\(id) GPS \(a),\(b) vs \(lat),\(lon)")
                    } else {
                        #expect(o["Composite:GPSLatitude"] == nil, "\(id) has GPS it should not")
                    }
                }
            }
            // The video: its copy is the backup's original byte for byte, beside its sidecar.
            let videoPath = try #require(firstPaths[world.photos[6].id])
            let videoSums = try await BackupCommandTests.sha256sum([videoPath], in: out)
            #expect(manifestBefore.values.contains { $0.1 == videoSums[videoPath] }, "the video copy is its original")
            // The backup's originals are untouched.
            let sums = try await BackupCommandTests.sha256sum(Array(manifestBefore.keys), in: backup)
            #expect(manifestBefore.allSatisfy { sums[$0.key] == $0.value.1 }, "the backup changed")

            let verified = try await Self.flickr(["export", "--verify", out.path], env)
            #expect(verified.status == 0 && verified.stdout.contains("— sound"), "\(verified.stdout)\(verified.stderr)")

            // A title edited, a set renamed, a photo leaves a set; backup, then `export DIR` alone.
            let edited = world.photos[20].id
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": edited, "title": "A new title", "description": ""])
            let renamed = try #require(sets.filter { !made.contains($0.id) && $0.photos >= 2 }.min { $0.photos < $1.photos })
            _ = try await alice.call("flickr.photosets.editMeta", ["photoset_id": renamed.id, "title": "Renamed set"])
            _ = try await alice.call("flickr.photosets.removePhoto", ["photoset_id": made[2], "photo_id": world.photos[10].id])
            let again = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(again.status == 0, "\(again.stdout)\(again.stderr)")
            let beforeSecond = Self.tree(out)
            let second = try await Self.flickr(["export", out.path], env)
            #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
            let after = Self.tree(out)
            let movedPhotos = Set(renamed.members).subtracting([edited, world.photos[10].id])
            #expect(second.stdout.contains("1 written") && second.stdout.contains("\(movedPhotos.count + 1) moved"), "\(second.stdout)")
            #expect(!after.keys.contains { $0.hasPrefix(renamed.title + "/") } && after.keys.contains { $0.hasPrefix("Renamed set/") })
            #expect(!after.keys.contains { $0.hasPrefix("Not in a set (\(made[2]))/") && Self.photoID($0) == world.photos[10].id },
                    "the photo that left a set left its folder")
            let editedPath = try #require(after.keys.first { Self.photoID($0) == edited })
            #expect(editedPath.contains("A new title (\(edited))"), "\(editedPath)")
            // Photos that did not change keep their file (same inode, same time).
            for (path, st) in beforeSecond where !path.hasPrefix(renamed.title + "/") {
                guard let id = Self.photoID(path), id != edited, id != world.photos[10].id, let now = after[path] else { continue }
                #expect(now.st_ino == st.st_ino && now.st_mtim.tv_nsec == st.st_mtim.tv_nsec, "\(path) was rewritten")
            }
            for member in movedPhotos {
                let old = beforeSecond.first { Self.photoID($0.key) == member && $0.key.hasPrefix(renamed.title + "/") && !$0.key.hasSuffix(".xmp") }
                let new = after.first { Self.photoID($0.key) == member && $0.key.hasPrefix("Renamed set/") && !$0.key.hasSuffix(".xmp") }
                #expect(old != nil && old?.value.st_ino == new?.value.st_ino, "photo \(member) was copied again, not moved")
            }

            // Faults --verify finds.
            let flipped = try #require(after.keys.sorted().first { !$0.hasSuffix(".xmp") && Self.photoID($0) != world.photos[6].id })
            // A bit flipped on the disk: same size, same modification time.
            var bytes = try Data(contentsOf: out.appendingPathComponent(flipped))
            bytes[bytes.count / 2] ^= 0x40
            let time = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(flipped).path)[.modificationDate] as! Date
            try bytes.write(to: out.appendingPathComponent(flipped))
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: out.appendingPathComponent(flipped).path)
            let gone = try #require(after.keys.sorted().last { !$0.hasSuffix(".xmp") && Self.photoID($0) != Self.photoID(flipped) })
            try FileManager.default.removeItem(at: out.appendingPathComponent(gone))
            let faults = try await Self.flickr(["export", "--verify", out.path], env)
            #expect(faults.status == 1 && faults.stdout.contains("corrupt: \(flipped)") && faults.stdout.contains("missing: \(gone)"), "\(faults.stdout)")
            // A flipped bit keeps the file's size and time: a run does not read every copy, so
            // only the missing file is written again; --verify --repair mends the other.
            let rerun = try await Self.flickr(["export", out.path], env)
            #expect(rerun.status == 0 && rerun.stdout.contains("1 written"), "\(rerun.stdout)\(rerun.stderr)")
            let still = try await Self.flickr(["export", "--verify", out.path], env)
            #expect(still.status == 1 && still.stdout.contains("corrupt: \(flipped)") && !still.stdout.contains("missing:"), "\(still.stdout)")
            let repaired = try await Self.flickr(["export", "--verify", "--repair", out.path], env)
            #expect(repaired.status == 0 && repaired.stdout.contains("— sound"), "\(repaired.stdout)\(repaired.stderr)")
            // A copy an editor saved over (another size and time) is written again by a plain run.
            let saved = out.appendingPathComponent(flipped)
            try Data("edited by hand".utf8).write(to: saved)
            let rewritten = try await Self.flickr(["export", out.path], env)
            #expect(rewritten.status == 0 && rewritten.stdout.contains("1 written"), "\(rewritten.stdout)")
            #expect(BackupCommandTests.whole(saved))
        }
    }

    @Test("--by date and flat: each photo once (YYYY/MM-DD/ of its date taken, or the folder itself), a plain copy equal to its original; a copy changed in place is written again, a person's own file in the tree is kept")
    func dateAndFlat() async throws {
        let world = LibraryWorld(count: 40, seed: "export-layouts")
        try await world.serve { _, _, env, _ in
            let home = URL(fileURLWithPath: env["HOME"]!)
            let backup = home.appendingPathComponent("backup")
            let b = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(b.status == 0, "\(b.stdout)\(b.stderr)")
            let store = try LibraryWorld.store(env)
            let records = try store.records(try store.ids(LibraryFilter([:])))
            for layout in ["date", "flat"] {
                let out = home.appendingPathComponent(layout)
                let r = try await Self.flickr(["export", out.path, "--from", backup.path, "--by", layout], env)
                #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
                let files = Self.tree(out)
                #expect(files.count == records.count, "\(layout): \(files.count) files")
                for record in records {
                    let matches = files.keys.filter { Self.photoID($0) == record.photo.id }
                    let day = String(record.photo.date_taken!.prefix(10))
                    let folder = layout == "flat" ? "" : String(day.prefix(4)) + "/" + String(day.dropFirst(5))
                    #expect(matches.count == 1 && (matches.first.map { ($0 as NSString).deletingLastPathComponent } == folder), "\(layout) \(matches)")
                    #expect(matches.first.map { ($0 as NSString).lastPathComponent.hasPrefix(day) } == true)
                }
                // A copy is the original byte for byte without --embed.
                let sums = try await BackupCommandTests.sha256sum(Array(files.keys), in: out)
                let originals = Set(try BackupCommandTests.manifest(backup).values.map(\.1))
                #expect(sums.values.allSatisfy(originals.contains), "\(layout): a plain copy differs from its original")
            }
            // A copy of the export's changed in place is written again; a person's own file is kept.
            let flat = home.appendingPathComponent("flat")
            let someone = try #require(Self.tree(flat).keys.sorted().first)
            try FileManager.default.removeItem(at: flat.appendingPathComponent(someone))
            try Data("my own notes".utf8).write(to: flat.appendingPathComponent(someone))
            let mine = flat.appendingPathComponent("mine.txt")
            try Data("mine".utf8).write(to: mine)
            let r = try await Self.flickr(["export", flat.path], env)
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
            #expect((try? String(contentsOf: mine, encoding: .utf8)) == "mine", "a person's own file is kept")
            #expect(r.stdout.contains("1 written"), "the changed copy is written again: \(r.stdout)")
        }
    }

    @Test("--gallery: a static site in the export (index by year and by set, a page per set and per photo) opened in headless Chromium from file://: every page loads with no console error, every <img> decodes and has alt text, every link resolves to a file of the tree, every page is valid HTML5 and under 1 MB; screenshots at 1280x800 and 390x844 attached; a rerun rewrites only the pages of what changed")
    func gallery() async throws {
        var world = LibraryWorld(count: 60, seed: "export-gallery")
        world.photos[0].title = "Hash # per%cent & <tags> \"quoted\""
        world.photos[1].description = "Line one\nline two <b>not bold</b>"
        try await world.serve { _, alice, env, _ in
            let home = URL(fileURLWithPath: env["HOME"]!)
            let backup = home.appendingPathComponent("backup"), out = home.appendingPathComponent("Export with a gallery")
            let b = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(b.status == 0, "\(b.stdout)\(b.stderr)")
            let first = try await Self.flickr(["export", out.path, "--from", backup.path, "--gallery"], env)
            try #require(first.status == 0, "\(first.stdout)\(first.stderr)")
            let store = try LibraryWorld.store(env)
            let records = try store.records(try store.ids(LibraryFilter([:])))
            let sets = try store.sets().filter { !$0.members.isEmpty }
            let years = Set(records.map { String($0.photo.date_taken!.prefix(4)) })
            let pages = 1 + records.count + sets.reduce(0) { $0 + max(1, ($1.members.count + 249) / 250) } + years.count
            #expect(first.stdout.contains("\(pages + 1) gallery pages written"), "\(first.stdout)")

            let shots = home.appendingPathComponent("screenshots")
            let check = try await Products.python("gallery_check.py", [out.path, shots.path], timeout: 300)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any],
                                      "\(check.stdout)\(check.stderr)")
            #expect(check.status == 0, "\((report["problems"] as? [String] ?? []).prefix(20))")
            #expect(report["pages"] as? Int == pages, "\(report["pages"] ?? "none") pages opened, \(pages) expected")
            let screenshots = report["screenshots"] as? [String] ?? []
            #expect(screenshots.count == 6)
            for path in screenshots {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 1_000, "\(path)")
                Attachment.record(data, named: (path as NSString).lastPathComponent)
            }
            // The photo page of the title with # and % links its copy and escapes its text.
            let page = try String(contentsOf: out.appendingPathComponent("gallery/photos/\(world.photos[0].id).html"), encoding: .utf8)
            #expect(page.contains("Hash # per%cent &amp; &lt;tags&gt; &quot;quoted&quot;") && page.contains("%23") && page.contains("%25"), "\(page)")

            // Nothing changed: no page written. One title changed: its photo page, its year's and
            // its sets' pages (and the index only if a count moved: it did not).
            let again = try await Self.flickr(["export", out.path], env)
            #expect(again.status == 0 && again.stdout.contains("0 gallery pages written"), "\(again.stdout)")
            let edited = records[5].photo
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": edited.id, "title": "Renamed photo", "description": edited.description])
            let b2 = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(b2.status == 0, "\(b2.stdout)\(b2.stderr)")
            let third = try await Self.flickr(["export", out.path], env)
            let expected = 1 + 1 + records[5].sets.count
            #expect(third.status == 0 && third.stdout.contains("\(expected) gallery pages written"), "\(third.stdout) (expected \(expected))")
            let check2 = try await Products.python("gallery_check.py", [out.path, shots.path], timeout: 300)
            #expect(check2.status == 0, "\(check2.stdout.prefix(3000))")
        }
    }

    @Test("A full disk (a 1 MiB tmpfs the test mounts) stops the export: no file half written under its name, a summary of what was exported and what was not, exit 1; once the disk grows a rerun finishes and verifies sound")
    func fullDisk() async throws {
        let world = LibraryWorld(count: 60, seed: "export-full")
        try await world.serve { _, _, env, _ in
            let home = URL(fileURLWithPath: env["HOME"]!)
            let backup = home.appendingPathComponent("backup"), out = home.appendingPathComponent("small disk")
            let b = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(b.status == 0, "\(b.stdout)\(b.stderr)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let mount = try await Products.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", out.path], timeout: 30)
            guard mount.status == 0 else {
                print("fullDisk: not run here: this machine does not let the test mount a tmpfs (\(mount.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
                return
            }
            defer { _ = umount2(out.path, Int32(MNT_DETACH)) }
            let first = try await Self.flickr(["export", out.path, "--from", backup.path, "--by", "date"], env)
            #expect(first.status == 1 && first.stderr.contains("no space left on the disk") && first.stderr.contains("free some space"),
                    "\(first.status) \(first.stdout) \(first.stderr.suffix(600))")
            #expect(first.stdout.contains("of \(world.photos.count) photos"), "\(first.stdout)")
            let partial = Self.tree(out).keys.filter { !BackupCommandTests.whole(out.appendingPathComponent($0)) }
            #expect(partial.isEmpty, "partial files under final names: \(partial)")
            #expect(!Self.tree(out).isEmpty && Self.tree(out).count < world.photos.count, "\(Self.tree(out).count) files")
            let grow = try await Products.run(URL(fileURLWithPath: "/bin/mount"), ["-o", "remount,size=64m", out.path], timeout: 30)
            try #require(grow.status == 0, "\(grow.stderr)")
            let second = try await Self.flickr(["export", out.path], env)
            #expect(second.status == 0 && second.stdout.contains("exported \(world.photos.count) photos"), "\(second.stdout) \(second.stderr)")
            #expect(Self.tree(out).count == world.photos.count)
            let verified = try await Self.flickr(["export", "--verify", out.path], env)
            #expect(verified.status == 0 && verified.stdout.contains("— sound"), "\(verified.stdout)")
        }
    }

    @Test("kill -9 twenty times during an --embed export, each followed by a rerun: no partial file under a final name, and the last run's tree equals a clean export's, file for file")
    func killNine() async throws {
        let world = LibraryWorld(count: 120, seed: "export-kill")
        try await world.serve { _, _, env, _ in
            let home = URL(fileURLWithPath: env["HOME"]!)
            let backup = home.appendingPathComponent("backup"), out = home.appendingPathComponent("out"), clean = home.appendingPathComponent("clean")
            let b = try await BackupCommandTests.flickr(["backup", backup.path], env)
            try #require(b.status == 0, "\(b.stdout)\(b.stderr)")
            var kills = 0
            for round in 0..<20 {
                let run = try InteractiveProcess(try Products.executable("flickr"), ["export", out.path, "--from", backup.path, "--embed", "--events"],
                                                 environment: env)
                let after = 1 + (round * 7) % 5
                let deadline = Date().addingTimeInterval(60)
                var hit = false
                while Date() < deadline, run.process.isRunning {
                    hit = run.stderr.split(separator: "\n").contains { line in
                        line.contains("\"phase\":\"export\"") && ((line.firstMatch(of: /"done":(\d+)/).flatMap { Int($0.1) }) ?? 0) >= after
                    }
                    if hit { break }
                    try await Task.sleep(for: .milliseconds(2))
                }
                guard hit, run.process.isRunning else {
                    let status = await run.wait(timeout: 60)
                    #expect(status == 0, "round \(round): ended (\(String(describing: status))) before the kill: \(run.stdout) \(run.stderr)")
                    continue
                }
                kill(run.process.processIdentifier, SIGKILL)
                _ = await run.wait(timeout: 30)
                kills += 1
                let partial = Self.tree(out).keys.filter { !BackupCommandTests.whole(out.appendingPathComponent($0)) }
                #expect(partial.isEmpty, "round \(round): partial files under final names: \(partial)")
            }
            #expect(kills >= 10, "only \(kills) of 20 runs were killed mid-export")
            let last = try await Self.flickr(["export", out.path], env)
            #expect(last.status == 0, "\(last.stdout)\(last.stderr)")
            let whole = try await Self.flickr(["export", clean.path, "--from", backup.path, "--embed"], env)
            #expect(whole.status == 0, "\(whole.stdout)\(whole.stderr)")
            let (a, c) = (Self.tree(out), Self.tree(clean))
            #expect(Set(a.keys) == Set(c.keys), "paths differ: \(Set(a.keys).symmetricDifference(c.keys).sorted().prefix(10))")
            let (sa, sc) = (try await BackupCommandTests.sha256sum(Array(a.keys), in: out), try await BackupCommandTests.sha256sum(Array(c.keys), in: clean))
            #expect(sa == sc, "contents differ: \(sa.filter { sc[$0.key] != $0.value }.keys.sorted().prefix(10))")
            let verified = try await Self.flickr(["export", "--verify", out.path], env)
            #expect(verified.status == 0 && verified.stdout.contains("— sound"), "\(verified.stdout)")
            let stray = (try? FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent(".flickr-export/tmp").path)) ?? []
            #expect(stray.isEmpty, "left in tmp/: \(stray)")
        }
    }
}
