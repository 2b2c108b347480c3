import Testing

/// The kinds of test: every suite carries exactly one, and `.heavy` when it loads the machine
/// most (the library at thousands of photos, jobs killed and resumed, a package built). This
/// toolchain's `swift test` cannot select by tag, so `scripts/test` reads the tags from the
/// sources (`scripts/lib/test_suites.py`) and selects the suites by name: the heavy ones run in
/// a round of their own, and `FLICKR_TEST_KINDS=unit,pty scripts/test` runs only those kinds.
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
    /// Loads both cores for minutes: run after the rest, so that the tests that measure pacing,
    /// timeouts and skews do not share the machine with it.
    @Tag public static var heavy: Self
}
