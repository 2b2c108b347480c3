import Foundation

/// Locates shared/fixtures: `$FLICKR_FIXTURES`, else `../shared/fixtures` beside the repository
/// (where CI and every developer machine have it).
public enum Fixtures {
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["FLICKR_FIXTURES"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir.deleteLastPathComponent() }  // Tests/FlickrTestSupport/Fixtures.swift → repo
        return dir.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    /// The repository root.
    public static let repository: URL = {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir.deleteLastPathComponent() }
        return dir
    }()

    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

    public static func string(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self)
    }

    /// Relative paths of every file under `folder` whose name ends with `suffix`, sorted.
    public static func files(in folder: String, suffix: String) -> [String] {
        let base = url(folder)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base.path) else { return [] }
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
    }

    /// A doc example payload wrapped the way a live server sends it.
    public static func wrapped(_ payload: String, stat: String = "ok") -> String {
        if payload.contains("<rsp") { return payload }  // two doc examples carry the envelope
        return "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"\(stat)\">\n" + payload + "\n</rsp>\n"
    }

    /// Parses a JSON fixture into Foundation objects.
    public static func json(_ relative: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(relative))
    }
}
