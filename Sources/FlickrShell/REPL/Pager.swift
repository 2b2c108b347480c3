import Foundation

/// Long REPL output through a pager: `$PAGER` (run by `/bin/sh -c`, as git and man do), else
/// `less -R` when it is installed (`-R` keeps the colours), else none.
enum Pager {
    /// The pager command for `environment`, or nil when there is none.
    static func command(environment: [String: String]) -> String? {
        if let pager = environment["PAGER"], !pager.trimmingCharacters(in: .whitespaces).isEmpty { return pager }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/less") {
            return "less -R"
        }
        return nil
    }

    /// Runs `command` on the terminal with `text` on its standard input and waits for it to
    /// end. False when it could not be started (the caller then prints the text itself).
    static func show(_ text: String, command: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let input = Pipe()
        process.standardInput = input
        do { try process.run() } catch { return false }
        // A pager quit early (q in less) closes the pipe: the write fails with EPIPE instead of a
        // SIGPIPE ending the REPL.
        let previous = signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try? input.fileHandleForWriting.close()
        signal(SIGPIPE, previous)
        process.waitUntilExit()
        return true
    }
}
