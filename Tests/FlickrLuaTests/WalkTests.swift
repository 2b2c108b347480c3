import FlickrLua
import FlickrLuaSandbox
import FlickrSandbox
import FlickrTestSupport
import Foundation
import LuaKit
import Testing

/// flickr.walk over a search with more results than Flickr's 4,000 cap.
@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct WalkTests {
    @Test("a search of 4,500: without windows the walk stops with an error at the cap; with windows it reaches each photo once")
    func windowsPastTheCap() async throws {
        let photos: [[String: Any]] = (0..<4_500).map {
            ["id": String(9_200_000_000 + $0), "owner": "alice", "tags": "fog", "date_posted": 1_400_000_000 + $0 * 60]
        }
        let seed: [String: Any] = ["users": [["username": "alice"]], "photos": photos]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("walk-seed-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: seed).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(SandboxConfiguration(dataFile: file.path),
                                                                 options: Session.options(config: config.path))
        defer { session.close() }
        let r = try await session.run("""
            local query = { user_id = "me", tags = "fog", per_page = 500 }
            local n = 0
            local ok, err = pcall(function() for _ in flickr.walk("flickr.photos.search", query) do n = n + 1 end end)
            assert(not ok, "walked past the cap without windows")
            assert(tostring(err):find("windows = true", 1, true), tostring(err))
            local capped = n
            local seen, m = {}, 0
            for p in flickr.walk("flickr.photos.search", query, { windows = true }) do
              assert(not seen[p.id], "twice: " .. p.id)
              seen[p.id], m = true, m + 1
            end
            return capped, m
            """)
        try? await server.stop()
        #expect(r == [4_000, 4_500])
    }
}
