import Foundation
import Testing
import FlickrTestSupport

/// The one test-kind mechanism: every suite carries exactly one kind tag (and `.heavy` or not),
/// and scripts/test's selection (scripts/lib/test_suites.py) sees every suite the sources declare.
@Suite(.timeLimit(.minutes(2)), .tags(.unit))
struct TestKindTests {
    static func suites(_ arguments: [String]) async throws -> Products.Result {
        try await Products.run(URL(fileURLWithPath: "/usr/bin/env"),
                               ["python3", Fixtures.repository.appendingPathComponent("scripts/lib/test_suites.py").path] + arguments,
                               timeout: 60)
    }

    @Test func everySuiteHasOneKindAndTheSelectionSeesThemAll() async throws {
        let check = try await Self.suites(["--check"])
        #expect(check.status == 0, "\(check.stderr)")
        let listed = try await Self.suites(["--list"])
        let lines = listed.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        // As many suites as the sources have @Suite attributes (each opens its line).
        var declared = 0
        let tests = Fixtures.repository.appendingPathComponent("Tests")
        // Not a package's build folder (Tests/Consumer/.build holds other packages' tests).
        for case let url as URL in FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])!
        where url.pathExtension == "swift" {
            declared += try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
                .filter { $0.drop { $0 == " " || $0 == "\t" }.hasPrefix("@Suite(") }.count
        }
        #expect(lines.count == declared && declared > 90, "\(lines.count) listed, \(declared) declared")
        let kinds = Set(["unit", "integration", "command", "pty", "crossCheck", "install"])
        #expect(lines.allSatisfy { $0.count >= 2 && kinds.contains($0[1]) })
        let heavy = Set(lines.filter { $0.last == "heavy" }.map { $0[0] })
        #expect(heavy.contains("LibrarySyncTests") && heavy.contains("EditCommandTests") && !heavy.contains("TestKindTests"), "\(heavy)")
        // The patterns scripts/test hands to swift test: the heavy round and, for a kind, its suites.
        let heavyPattern = try await Self.suites(["--heavy", "yes"]).stdout
        #expect(heavy.allSatisfy { heavyPattern.contains($0) } && !heavyPattern.contains("TestKindTests"))
        let unit = try await Self.suites(["--kinds", "unit", "--heavy", "no"]).stdout
        #expect(unit.contains("TestKindTests") && !unit.contains("InstallTests"), "\(unit)")
        #expect(try await Self.suites(["--kinds", "nonsense"]).status == 2)
    }
}
