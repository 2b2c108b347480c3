import Foundation

/// The executables the package builds, for end-to-end tests that run them as a user would.
public enum Products {
    /// The built product `name`, next to the test bundle (`<scratch>/debug/`).
    public static func executable(_ name: String) throws -> URL {
        var candidates: [URL] = []
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = argv0.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent(name))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(Fixtures.repository.appendingPathComponent(".build/debug/\(name)"))
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) { return found }
        throw ProcessFailure(description: "\(name) is not built next to the tests (looked in \(candidates.map(\.path)))")
    }

    /// What a finished process left.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// True when the process had to be killed at the deadline.
        public var timedOut: Bool

        public init(status: Int32, stdout: String, stderr: String, timedOut: Bool) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.timedOut = timedOut
        }
    }

    /// Runs `executable` to the end (killed after `timeout` seconds) on a plain thread, so the
    /// waiting never blocks a Swift concurrency thread.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: String? = nil, directory: URL? = nil, timeout: Double = 60) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread {
                let outBox = DataBox(), errBox = DataBox()
                let group = DispatchGroup()
                for (pipe, box) in [(output, outBox), (errors, errBox)] {
                    group.enter()
                    Thread {
                        box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                        group.leave()
                    }.start()
                }
                if let stdin {
                    input.fileHandleForWriting.write(Data(stdin.utf8))
                    try? input.fileHandleForWriting.close()
                }
                let deadline = Date().addingTimeInterval(timeout)
                var timedOut = false
                while process.isRunning {
                    if Date() > deadline {
                        timedOut = true
                        process.terminate()
                        usleep(200_000)
                        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                        break
                    }
                    usleep(10_000)
                }
                process.waitUntilExit()
                _ = group.wait(timeout: .now() + 10)
                continuation.resume(returning: Result(status: process.terminationStatus,
                                                      stdout: String(decoding: outBox.data, as: UTF8.self),
                                                      stderr: String(decoding: errBox.data, as: UTF8.self), timedOut: timedOut))
            }.start()
        }
    }

    final class DataBox: @unchecked Sendable { var data = Data() }

    /// Runs a Python helper of `Tests/scripts/` (or a script at an absolute path) with
    /// ``run(_:_:environment:stdin:directory:timeout:)``: both pipes drained, killed at the
    /// deadline. `HOME` is a fresh directory so no helper touches the real one.
    public static func python(_ script: String, _ arguments: [String] = [], environment: [String: String] = [:],
                              stdin: String? = nil, timeout: Double = 60) async throws -> Result {
        let path = script.hasPrefix("/") ? script : Fixtures.repository.appendingPathComponent("Tests/scripts/\(script)").path
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-py-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.merge(environment) { $1 }
        return try await run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", path] + arguments, environment: env,
                             stdin: stdin, timeout: timeout)
    }
}

extension Products {
    /// Runs the debug build's `flickr` with `FLICKR_TEST_STOP_AFTER_WRITE=writes`: when it says it
    /// stopped after that write (before its journal records it), it is killed from outside with
    /// SIGKILL, as a crash would end it. `killed` is false when it ended by itself first (fewer
    /// writes than that). A debug build's hook (FlickrJobs' CrashPoint); a release build has none.
    public static func runKilledAfterWrite(_ writes: Int, _ arguments: [String], environment: [String: String],
                                           timeout: Double = 120) async throws -> (result: Result, killed: Bool) {
        try await runKilled(stop: "FLICKR_TEST_STOP_AFTER_WRITE", after: writes, arguments, environment: environment, timeout: timeout)
    }

    /// ``runKilledAfterWrite(_:_:environment:timeout:)`` for a plan: killed after it stored its
    /// `batches`-th batch of photos, before the plan is complete.
    public static func runKilledAfterPlanBatch(_ batches: Int, _ arguments: [String], environment: [String: String],
                                               timeout: Double = 120) async throws -> (result: Result, killed: Bool) {
        try await runKilled(stop: "FLICKR_TEST_STOP_AFTER_PLAN_BATCH", after: batches, arguments, environment: environment, timeout: timeout)
    }

    /// Runs `flickr` with the crash point `stop` set to `count`, killed with SIGKILL once it says it stopped there.
    private static func runKilled(stop: String, after count: Int, _ arguments: [String], environment: [String: String],
                                  timeout: Double) async throws -> (result: Result, killed: Bool) {
        var env = environment
        env[stop] = String(count)
        let run = try InteractiveProcess(try executable("flickr"), arguments, environment: env)
        let stopped = await run.waitForErrorLine(timeout: timeout) { $0.hasPrefix("flickr: stopped for a crash test") } != nil
        if stopped { kill(run.process.processIdentifier, SIGKILL) }
        let status = await run.wait(timeout: timeout)
        return (Result(status: status ?? -1, stdout: run.stdout, stderr: run.stderr, timedOut: status == nil), stopped)
    }
}

/// A running process with its standard streams, driven line by line (login dialogs).
public final class InteractiveProcess: @unchecked Sendable {
    public let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""
    /// Streams read to their end (0, 1 or 2): what was written before the exit is all in.
    private var streamsEnded = 0

    public init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        for (pipe, isOut) in [(output, true), (errors, false)] {
            Thread { [weak self] in
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    guard let self else { break }
                    self.lock.withLock {
                        if chunk.isEmpty {
                            self.streamsEnded += 1
                        } else if isOut {
                            self.outText += String(decoding: chunk, as: UTF8.self)
                        } else {
                            self.errText += String(decoding: chunk, as: UTF8.self)
                        }
                    }
                    if chunk.isEmpty { break }
                }
            }.start()
        }
    }

    public var stdout: String { lock.lock(); defer { lock.unlock() }; return outText }
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return errText }

    /// Waits (polling, off the concurrency pool) until stdout has a line matching `predicate`.
    public func waitForLine(timeout: Double, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await waitForLine(in: { $0.stdout }, timeout: timeout, predicate)
    }

    /// Waits like ``waitForLine(timeout:_:)``, for a line of stderr.
    public func waitForErrorLine(timeout: Double, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await waitForLine(in: { $0.stderr }, timeout: timeout, predicate)
    }

    /// The first line of `stream`'s text so far that matches `predicate`, waited for until the
    /// deadline or the process's end.
    private func waitForLine(in stream: (InteractiveProcess) -> String, timeout: Double,
                             _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = stream(self).split(separator: "\n").map(String.init).first(where: predicate) { return line }
            if !process.isRunning { return stream(self).split(separator: "\n").map(String.init).first(where: predicate) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    public func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Waits for the exit (killing at the deadline); returns the status, nil when killed.
    public func wait(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        // Told, not guessed: both readers have seen the end of their pipe (a grandchild that
        // kept one open only delays this to the deadline).
        while lock.withLock({ streamsEnded < 2 }), Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return process.terminationStatus
    }
}

public struct ProcessFailure: Error, CustomStringConvertible {
    public var description: String
}

/// A clean world for running `flickr` as a user: the binary, a temporary home, and an
/// environment with no credentials and no user files except those a test creates.
public struct CommandWorld: Sendable {
    public let flickr: URL
    public let directory: URL
    public let environment: [String: String]

    public init(_ label: String) throws {
        flickr = try Products.executable("flickr")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path,
                       "XDG_CONFIG_HOME": directory.path + "/config", "XDG_STATE_HOME": directory.path + "/state"]
    }
}
