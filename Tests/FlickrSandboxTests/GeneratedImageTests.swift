import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// A seeded photo has no file of its own: every size the sandbox serves for it must still be an
/// image of the format and dimensions `getSizes` states, as an independent decoder (Pillow,
/// `Tests/scripts/image_dims.py`, every pixel decoded) reads it.
@Suite("Generated images of seeded photos", .timeLimit(.minutes(3)), .tags(.crossCheck))
struct GeneratedImageTests {
    @Test("each size of a seeded PNG, GIF and JPEG photo decodes to the format and dimensions getSizes states")
    func everySizeIsWhatGetSizesSays() async throws {
        let photos: [[String: Any]] = [
            ["id": "8300000001", "owner": "alice", "title": "png", "original_format": "png", "width": 1024, "height": 768, "date_posted": 1_500_000_000],
            ["id": "8300000002", "owner": "alice", "title": "gif", "original_format": "gif", "width": 300, "height": 200, "date_posted": 1_500_000_000],
            ["id": "8300000003", "owner": "alice", "title": "jpg", "original_format": "jpg", "width": 4032, "height": 3024, "date_posted": 1_500_000_000],
        ]
        let seed = FileManager.default.temporaryDirectory.appendingPathComponent("image-seed-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: ["users": [["username": "alice", "nsid": "20000001@N01"]], "default_user": "alice",
                                                    "photos": photos]).write(to: seed)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: seed)
            try? FileManager.default.removeItem(at: folder)
        }
        var files: [String] = []
        var expected: [String] = []
        try await withSandbox(SandboxConfiguration(dataFile: seed.path)) { server in
            let token = try await server.issueToken(username: "alice", perms: .read)
            let me = SandboxClient(server, token: token.token, tokenSecret: token.secret)
            for photo in photos {
                let id = photo["id"] as! String
                let sizes = try await me.ok("flickr.photos.getSizes", [("photo_id", id)], verb: "GET")
                let labels = XMLProbe.attributes("label", of: "size", in: sizes)
                let sources = XMLProbe.attributes("source", of: "size", in: sizes)
                let widths = XMLProbe.attributes("width", of: "size", in: sizes)
                let heights = XMLProbe.attributes("height", of: "size", in: sizes)
                #expect(labels.count > 5 && [sources.count, widths.count, heights.count].allSatisfy { $0 == labels.count })
                for (i, label) in labels.enumerated() {
                    let served = try await TestHTTP.get(sources[i])
                    #expect(served.status == 200, "\(id) \(label)")
                    let format = label == "Original" ? (photo["original_format"] as! String) : "jpg"
                    #expect(served.header("content-type") == ["png": "image/png", "gif": "image/gif"][format, default: "image/jpeg"])
                    #expect(served.bytes.count < 200_000, "\(id) \(label): \(served.bytes.count) bytes")
                    let file = folder.appendingPathComponent("\(id)-\(i).\(format)")
                    try Data(served.bytes).write(to: file)
                    files.append(file.path)
                    expected.append("\(["png": "PNG", "gif": "GIF"][format, default: "JPEG"]) \(widths[i]) \(heights[i])")
                }
            }
        }
        let decoded = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"),
                                             ["python3", Fixtures.repository.appendingPathComponent("Tests/scripts/image_dims.py").path] + files,
                                             timeout: 120)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let lines = decoded.stdout.split(separator: "\n").map(String.init)
        #expect(lines == expected, "Pillow read:\n\(lines.joined(separator: "\n"))\ngetSizes states:\n\(expected.joined(separator: "\n"))")
    }
}
