import FlickrMedia
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// What an upload reads from the file itself, as Flickr does: the file's metadata written by
/// ExifTool (a photo manager's fields), read back through getInfo.
@Suite("Uploads read the file's own metadata (EXIF, IPTC, XMP)", .timeLimit(.minutes(3)), .tags(.integration))
struct UploadMetadataTests {
    /// A JPEG with a photo manager's metadata (Tests/scripts/tagged_jpeg.py).
    static func taggedJPEG() async throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tagged-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let made = try await Products.python("tagged_jpeg.py", [path])
        try #require(made.status == 0 && !made.timedOut, "\(made.stderr)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test("Date taken from EXIF DateTimeOriginal, title and description from XMP (over IPTC), keywords as tags (each one tag, after those asked for), the GPS position as the location; what the request gives wins")
    func readsTheFile() async throws {
        let jpeg = try await Self.taggedJPEG()
        try await withSandbox { server in
            let client = SandboxClient.writer(server)
            let r = try await UploadTests.upload(server, fields: [], photoLength: jpeg.count, photoChunks: UploadTests.small(jpeg))
            let id = try #require(XMLProbe.texts(of: "photoid", in: r.body).first, "\(r.body)")
            let info = try await client.ok("flickr.photos.getInfo", [("photo_id", id)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: info) == ["Harbour at dusk"], "\(info)")
            #expect(XMLProbe.texts(of: "description", in: info) == ["Boats, Reykjavík"], "\(info)")
            #expect(XMLProbe.attributes("taken", of: "dates", in: info) == ["2019-07-02 14:03:05"], "\(info)")
            #expect(XMLProbe.attributes("raw", of: "tag", in: info) == ["harbour", "city trip", "places|Iceland|Reykjavík"], "\(info)")
            let latitude = XMLProbe.attributes("latitude", of: "location", in: info).first.flatMap(Double.init)
            let longitude = XMLProbe.attributes("longitude", of: "location", in: info).first.flatMap(Double.init)
            #expect(latitude.map { abs($0 - 64.1466) < 1e-4 } == true && longitude.map { abs($0 + 21.9426) < 1e-4 } == true, "\(info)")

            // Given with the upload, the title, description and tags win; the keywords join the tags once.
            let given = try await UploadTests.upload(server, fields: [("title", "Given"), ("description", "Mine"), ("tags", "extra Harbour")],
                                                     photoLength: jpeg.count, photoChunks: UploadTests.small(jpeg))
            let other = try #require(XMLProbe.texts(of: "photoid", in: given.body).first, "\(given.body)")
            let second = try await client.ok("flickr.photos.getInfo", [("photo_id", other)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: second) == ["Given"] && XMLProbe.texts(of: "description", in: second) == ["Mine"], "\(second)")
            #expect(XMLProbe.attributes("raw", of: "tag", in: second) == ["extra", "Harbour", "city trip", "places|Iceland|Reykjavík"], "\(second)")

            // A file with none of it: the upload's time, the file's name, no tag, no location.
            let bare = UploadTests.jpegHead(width: 10, height: 20) + [0xFF, 0xD9]
            let plain = try await UploadTests.upload(server, fields: [], photoLength: bare.count, photoChunks: UploadTests.small(bare))
            let third = try #require(XMLProbe.texts(of: "photoid", in: plain.body).first, "\(plain.body)")
            let bareInfo = try await client.ok("flickr.photos.getInfo", [("photo_id", third)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: bareInfo) == ["big"] && XMLProbe.attributes("raw", of: "tag", in: bareInfo).isEmpty
                    && XMLProbe.attributes("latitude", of: "location", in: bareInfo).isEmpty, "\(bareInfo)")
            #expect(XMLProbe.attributes("taken", of: "dates", in: bareInfo).first?.hasPrefix("2019") == false, "\(bareInfo)")
        }
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.range(of: ") ", options: .backwards) else { return false }
            // After the name: state, then the parent's pid.
            return stat[close.upperBound...].split(separator: " ").dropFirst().first.flatMap { Int32($0) } == pid
        }
    }

    @Test("A flickr-sandbox killed with kill -9 leaves no ExifTool behind: `flickr upload` of a tagged file is read (date taken, title), and after the kill its ExifTool and the supervisor are gone")
    func noExifToolLeftBehind() async throws {
        let jpeg = try await Self.taggedJPEG()
        let world = try CommandWorld("exiftool-orphan")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let file = world.directory.appendingPathComponent("harbour.jpg")
        try Data(jpeg).write(to: file)
        let sandbox = try await SandboxWorld.startProcess(["--port", "0"], environment: world.environment)
        defer { sandbox.stop() }
        let env = sandbox.environment(world.environment)
        let up = try await Products.run(try Products.executable("flickr"), ["upload", file.path], environment: env, timeout: 60)
        let id = try #require(up.stdout.split(separator: "\t").first.map(String.init), "\(up.stdout)\n\(up.stderr)")
        let info = try await Products.run(try Products.executable("flickr"), ["call", "flickr.photos.getInfo", "photo_id=\(id)", "--json"],
                                          environment: env, timeout: 60)
        #expect(info.stdout.contains("2019-07-02 14:03:05") && info.stdout.contains("Harbour at dusk"), "\(info.stdout)")
        let pid = sandbox.process.process.processIdentifier
        let supervisors = Self.children(of: pid)
        let exiftools = supervisors.flatMap(Self.children(of:))
        #expect(supervisors.count == 1 && exiftools.count == 1, "the sandbox's ExifTool: \(supervisors) \(exiftools)")
        kill(pid, SIGKILL)
        // The supervisor looks every half second; a loaded machine gets 20 s.
        let deadline = Date().addingTimeInterval(20)
        while (supervisors + exiftools).contains(where: { kill($0, 0) == 0 }) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let alive = (supervisors + exiftools).filter { kill($0, 0) == 0 && !((try? String(contentsOfFile: "/proc/\($0)/stat", encoding: .utf8))?.contains(") Z ") ?? true) }
        #expect(alive.isEmpty, "still running after the sandbox's kill: \(alive)")
    }

    @Test("ExifTool's answer read as Flickr would: EXIF dates to Flickr's form (zeros and junk refused), one keyword or many, numbers as text, XMP over IPTC")
    func answerFields() {
        #expect(EmbeddedMetadata.flickrDate(exif: "2019:07:02 14:03:05") == "2019-07-02 14:03:05")
        #expect(EmbeddedMetadata.flickrDate(exif: "2019:07:02 14:03:05.25+02:00") == "2019-07-02 14:03:05")
        for junk in ["0000:00:00 00:00:00", "2019:13:02 14:03:05", "2019:07:02", "yesterday", ""] {
            #expect(EmbeddedMetadata.flickrDate(exif: junk) == nil, "\(junk)")
        }
        let one = ExifTool.metadata(["IPTC:Keywords": "solo", "XMP-dc:Title": NSNumber(value: 1984), "IPTC:ObjectName": "iptc",
                                     "IPTC:Caption-Abstract": "caption", "IFD0:ImageDescription": "exif"])
        #expect(one == EmbeddedMetadata(title: "1984", description: "caption", keywords: ["solo"]))
        let both = ExifTool.metadata(["IPTC:Keywords": ["a", "b"], "XMP-dc:Subject": ["x", "x", "y"], "Composite:GPSLatitude": NSNumber(value: -33.5),
                                      "Composite:GPSLongitude": NSNumber(value: 151.25), "ExifIFD:DateTimeOriginal": "2001:02:03 04:05:06"])
        #expect(both == EmbeddedMetadata(keywords: ["x", "y"], dateTaken: "2001-02-03 04:05:06", latitude: -33.5, longitude: 151.25))
    }
}
