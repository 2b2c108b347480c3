import FlickrFuzzTargets
import FlickrTestSupport
import Foundation
import Testing

/// The fuzzers' committed inputs, replayed: every file of Tests/Fuzz/corpus/TARGET (the
/// minimised corpus `scripts/fuzz` keeps) and Tests/Fuzz/crashes/TARGET (reproducers of what
/// it once found) runs through its target in the built `flickr-fuzz` (replay mode), whose
/// property checks stop the process on a regression. A crash is a failed test that names the
/// target and shows the replayer's last words, not a dead test runner.
@Suite(.timeLimit(.minutes(5)), .tags(.command))
struct FuzzCorpusTests {
    static let corpus = Fixtures.repository.appendingPathComponent("Tests/Fuzz/corpus")
    static let crashes = Fixtures.repository.appendingPathComponent("Tests/Fuzz/crashes")

    /// The inputs in `dir` (dot files such as `.keep` are not inputs); nil when `dir` is missing.
    static func inputs(in dir: URL) -> [String]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return nil }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0).path }
    }

    @Test("Every target has a corpus folder and a crashes folder, and every corpus folder a target")
    func foldersMatchTheTargets() throws {
        let names = Set(FuzzTarget.all.map(\.name))
        #expect(names.count == FuzzTarget.all.count, "two targets share a name")
        for base in [Self.corpus, Self.crashes] {
            let folders = try FileManager.default.contentsOfDirectory(atPath: base.path).filter { !$0.hasPrefix(".") }
            #expect(Set(folders) == names, "\(base.path): \(folders.sorted()) against the targets \(names.sorted())")
        }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusReplays(_ name: String) async throws {
        let corpus = try #require(Self.inputs(in: Self.corpus.appendingPathComponent(name)),
                                  "Tests/Fuzz/corpus/\(name) is missing: run scripts/fuzz")
        #expect(!corpus.isEmpty, "Tests/Fuzz/corpus/\(name) is empty: run scripts/fuzz")
        let crashes = try #require(Self.inputs(in: Self.crashes.appendingPathComponent(name)),
                                   "Tests/Fuzz/crashes/\(name) is missing")
        let files = corpus + crashes
        try #require(!files.isEmpty)
        // The replayer prints `ok FILE` after each input has run through the target: the list it
        // prints is the proof that each input was replayed, checked against the folders' listing.
        let fuzz = try Products.executable("flickr-fuzz")
        let run = try await Products.run(fuzz, [name] + files, timeout: 240)
        #expect(!run.timedOut, "\(name): the replay did not finish in 240 s")
        #expect(run.status == 0, "\(name): the replay stopped (status \(run.status)):\n\(run.stderr.suffix(2000))")
        let replayed = run.stdout.split(separator: "\n").compactMap { line in
            line.hasPrefix("ok ") ? String(line.dropFirst(3)) : nil
        }
        #expect(replayed.count == files.count, "\(name): \(replayed.count) inputs replayed of \(files.count)")
        #expect(replayed == files, "\(name): the replayed inputs are not the listed ones")
    }
}
