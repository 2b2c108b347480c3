import Foundation

/// The recorded Flickr material the tests read, in the repository at `Tests/Fixtures` (its
/// README.md says where each file came from). A fixture a test asks for that is missing or
/// empty is an error that names it, so the test fails instead of checking nothing.
public enum Fixtures {
    /// The repository root (the package directory).
    public static let repository: URL = {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir.deleteLastPathComponent() }  // Tests/FlickrTestSupport/Fixtures.swift → repo
        return dir
    }()

    /// `Tests/Fixtures` in the repository.
    public static let root: URL = repository.appendingPathComponent("Tests/Fixtures")

    /// A fixture (a file or folder) that is not there, or has nothing in it.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The fixture's bytes; throws ``Missing`` naming it when it does not exist or is empty.
    public static func data(_ relative: String) throws -> Data {
        let file = url(relative)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw Missing(description: "fixture \(display(relative)) is missing (\(file.path))")
        }
        guard !data.isEmpty else { throw Missing(description: "fixture \(display(relative)) is empty") }
        return data
    }

    public static func string(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self)
    }

    /// Relative paths of every file in `folder` (`""`: the top level) whose name ends with
    /// `suffix`, sorted. Throws ``Missing`` naming the folder when it does not exist or holds no
    /// such file.
    public static func files(in folder: String, suffix: String) throws -> [String] {
        let base = url(folder)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isDirectory), isDirectory.boolValue,
              let names = try? FileManager.default.contentsOfDirectory(atPath: base.path) else {
            throw Missing(description: "fixture folder \(display(folder)) is missing (\(base.path))")
        }
        let files = names.filter { $0.hasSuffix(suffix) }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
        guard !files.isEmpty else {
            throw Missing(description: "fixture folder \(display(folder)) has no file ending in \(suffix)")
        }
        return files
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

    /// `Tests/Fixtures/…` as a reader finds it in the repository.
    static func display(_ relative: String) -> String {
        relative.isEmpty ? "Tests/Fixtures" : "Tests/Fixtures/" + relative
    }
}
