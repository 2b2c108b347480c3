import FlickrFuzzTargets
import FlickrTestSupport
import Foundation
import Testing

/// The fuzzers' committed inputs, replayed: every file of Tests/Fuzz/corpus/TARGET (the
/// minimised corpus `scripts/fuzz` keeps) and Tests/Fuzz/crashes/TARGET (reproducers of what
/// it once found) runs through its target, whose property checks stop the process on a
/// regression.
@Suite(.timeLimit(.minutes(5)), .tags(.unit), .kind("unit"))
struct FuzzCorpusTests {
    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusReplays(_ name: String) async throws {
        let target = try #require(FuzzTarget.named(name))
        var files: [URL] = []
        for folder in ["Tests/Fuzz/corpus/\(name)", "Tests/Fuzz/crashes/\(name)"] {
            let dir = Fixtures.repository.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            files += names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
        }
        #expect(!files.isEmpty, "no committed corpus for \(name): run scripts/fuzz")
        let inputs = try files.map { try Data(contentsOf: $0) }
        // On a plain thread: the Lua target blocks its caller while the Lua thread works.
        let replayed = await onThread {
            var n = 0
            for input in inputs {
                input.withUnsafeBytes { target.run($0) }
                n += 1
            }
            return n
        }
        #expect(replayed == files.count)
    }
}
