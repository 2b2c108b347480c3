import Foundation
import Testing

/// The kinds of test, so that one kind can be run alone (`swift test --filter tag:pty`,
/// see README): every suite carries exactly one.
extension Tag {
    /// Pure functions and in-memory values: no server, no process, no network.
    @Tag public static var unit: Self
    /// Real components together over loopback: the sandbox, the client, Lua runtimes.
    @Tag public static var integration: Self
    /// The built executables run as a user runs them (processes, files, exit statuses).
    @Tag public static var command: Self
    /// The REPL through a pseudo-terminal (readline on).
    @Tag public static var pty: Self
    /// Against an independent implementation (python-flickrapi, oauthlib).
    @Tag public static var crossCheck: Self
    /// scripts/install into a temporary prefix, the installed programs with the checkout hidden.
    @Tag public static var install: Self
}

/// `FLICKR_TEST_KINDS=pty,unit swift test` runs only those kinds (this toolchain's `swift test`
/// cannot filter by tag yet); unset, every kind runs. Every suite carries `.kind(...)` beside
/// its tag.
public enum TestKinds {
    public static let selected: Set<String>? = ProcessInfo.processInfo.environment["FLICKR_TEST_KINDS"]
        .map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }

    public static func isSelected(_ kind: String) -> Bool { selected?.contains(kind) ?? true }
}

extension Trait where Self == ConditionTrait {
    /// Runs the suite unless `FLICKR_TEST_KINDS` names other kinds only.
    public static func kind(_ name: String) -> Self {
        .enabled(if: TestKinds.isSelected(name), "FLICKR_TEST_KINDS leaves out \(name) tests")
    }
}
