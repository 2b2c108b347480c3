import FlickrAPI
import FlickrLua
import FlickrLuaSandbox
import FlickrSandbox
import FlickrTestSupport
import Foundation
import LuaKit
import Testing

/// Runs every `lua/tests/test_*.lua` against its own in-process sandbox, through the same entry
/// (`FlickrLuaSandbox.start` + `FlickrLuaSession.runScript`) that `flickr --sandbox` uses.
@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct LuaScriptTests {
    static let directory = Fixtures.repository.appendingPathComponent("lua/tests")

    static let scripts: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("test_") && $0.hasSuffix(".lua") }.sorted()
    }()

    @Test func scriptsArePresent() {
        #expect(Self.scripts.count >= 6, "found \(Self.scripts)")
    }

    @Test(arguments: scripts)
    func script(_ name: String) async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { session.close() }
        let outcome = await session.runScript(at: Self.directory.appendingPathComponent(name).path)
        try? await server.stop()
        if let report = outcome.report { Issue.record("\(name) failed:\n\(report)") }
    }
}

/// Session options isolated from the machine: no FLICKR_* variables, profiles in a temporary
/// directory (the shipped Lua is compiled in).
enum Session {
    static func options(config: String) -> FlickrLuaSession.Options {
        FlickrLuaSession.Options(environment: ["HOME": config], profiles: ProfileStore(directory: URL(fileURLWithPath: config + "/profiles")))
    }
}

/// A directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("flickrlua-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
