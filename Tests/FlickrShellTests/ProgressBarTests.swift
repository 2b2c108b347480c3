import Foundation
import Synchronization
import Testing
import FlickrTestSupport
@testable import FlickrShell

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct ProgressBarTests {
    /// The visible text of a frame: without the leading `\r` and the erase to the end of the row.
    static func visible(_ frame: String) -> String {
        var line = frame
        if line.hasPrefix("\r") { line.removeFirst() }
        if line.hasSuffix("\u{1B}[K") { line.removeLast(3) }
        return line
    }

    @Test func rendersFractionSizesAndRate() {
        let frame = ProgressBar.render(sent: 512 << 10, total: 1 << 20, elapsed: .seconds(1), columns: 80)
        #expect(frame == "\ruploading [############------------]  50%  0.5 MiB of 1.0 MiB  0.5 MiB/s\u{1B}[K")
        let full = ProgressBar.render(sent: 300 << 20, total: 300 << 20, elapsed: .seconds(2), columns: 80)
        #expect(Self.visible(full) == "uploading [########################] 100%  300 MiB of 300 MiB  150 MiB/s")
        let unknown = ProgressBar.render(sent: 3 << 20, total: nil, elapsed: .seconds(1), columns: 80)
        #expect(Self.visible(unknown) == "uploading  3.0 MiB sent  3.0 MiB/s")
    }

    @Test("Every frame fits the terminal it is drawn on: the bar shrinks, then the rate, the sizes and the bar give way")
    func framesFitTheWidth() {
        let big: Int64 = 800 << 20
        for columns in 10...160 {
            for sent in [0, big / 3, big] {
                let line = Self.visible(ProgressBar.render(sent: sent, total: big, elapsed: .seconds(3), columns: columns))
                #expect(line.count < columns, "\(columns) columns: \(line)")
                #expect(columns < 12 || line.hasPrefix("uploading "))
            }
        }
        #expect(Self.visible(ProgressBar.render(sent: 400 << 20, total: big, elapsed: .seconds(4), columns: 60))
                == "uploading [#####------]  50%  400 MiB of 800 MiB  100 MiB/s")
        #expect(Self.visible(ProgressBar.render(sent: 400 << 20, total: big, elapsed: .seconds(4), columns: 40))
                == "uploading [###########-----------]  50%")
        #expect(Self.visible(ProgressBar.render(sent: 400 << 20, total: big, elapsed: .seconds(4), columns: 20)) == "uploading  50%")
    }

    @Test("The batch line gives way in order: rate, then the long name, the batch bar, the file bar")
    func batchLineFitsTheWidth() {
        for columns in 12...200 {
            let frames = Mutex<[String]>([])
            let line = BatchProgress(verb: "uploading", files: 12, batchTotal: 12 << 20, columns: { columns }) { s in
                frames.withLock { $0.append(s) }
            }
            line.begin("2024/Iceland/a very long file name indeed.jpg", index: 3)
            line.report(0, 1 << 20)
            line.report(1 << 19, 1 << 20)
            for frame in frames.withLock({ $0 }) {
                #expect(Self.visible(frame).count < columns, "\(columns) columns: \(frame)")
                #expect(frame.hasPrefix("\r") && frame.hasSuffix("\u{1B}[K"))
            }
        }
        let wide = Mutex<String>("")
        let line = BatchProgress(verb: "uploading", files: 12, batchTotal: 12 << 20, columns: { 200 }) { s in wide.withLock { $0 = s } }
        line.begin("cat.jpg", index: 3)
        line.report(1 << 19, 1 << 20)
        #expect(Self.visible(wide.withLock { $0 }).hasPrefix("uploading 3/12  cat.jpg  [##########----------]  50%   all [----------]   4%  "))
    }

    @Test func throttlesAndEndsWithANewline() {
        let frames = Mutex<[String]>([])
        let bar = ProgressBar(columns: { 80 }) { s in frames.withLock { $0.append(s) } }
        for sent in stride(from: Int64(0), through: 1000, by: 10) { bar.report(sent: sent, total: 1000) }
        let drawn = frames.withLock { $0 }
        #expect(drawn.count >= 2 && drawn.count < 20)  // the first frame, maybe a few, and the last
        #expect(drawn.last?.hasSuffix("\n") == true)
        #expect(drawn.last?.contains("100%") == true)
        #expect(drawn.dropLast().allSatisfy { !$0.hasSuffix("\n") })
    }
}

@Suite(.timeLimit(.minutes(3)), .tags(.unit))
struct BatchProgressTests {
    /// Percentages and byte counts shown by each frame of `upload`/`download`'s line.
    static func frames(total: Int64, step: Int64) -> [(percent: Int, done: Int64)] {
        let drawn = Mutex<[(Int, Int64)]>([])
        let last = Mutex<Int64>(0)
        let line = BatchProgress(verb: "uploading", files: 2, batchTotal: 2 * total, columns: { 80 }) { text in
            guard let percent = text.firstMatch(of: /\]\s+(\d+)%/).flatMap({ Int($0.1) }) else { return }
            drawn.withLock { $0.append((percent, last.withLock { $0 })) }
        }
        line.begin("a.jpg", index: 1)
        var done: Int64 = 0
        while done < total {
            done = min(total, done + step)
            last.withLock { $0 = done }
            line.report(done, total)
        }
        line.end(bytes: total)
        return drawn.withLock { $0 }
    }

    @Test func redrawsAtLeastEveryPercentOr256KiB() {
        // A small file in 1 KiB steps: a frame for every whole percent.
        let small = Self.frames(total: 180_000, step: 1024)
        #expect(small.first?.percent == 0 && small.last?.percent == 100)
        #expect(zip(small, small.dropFirst()).allSatisfy { $1.percent - $0.percent <= 1 })
        // A large file in 64 KiB steps: never more than 256 KiB between two frames.
        let large = Self.frames(total: 64 << 20, step: 64 << 10)
        #expect(large.last?.percent == 100)
        #expect(zip(large, large.dropFirst()).allSatisfy { $1.done - $0.done <= 256 << 10 })
    }
}

/// The progress lines as a terminal shows them: `Tests/scripts/progress_pty.py` runs the command on
/// an 80×24 pseudo-terminal read by a terminal emulator, narrows the window to 60 columns during
/// the upload (SIGSTOP, resize, SIGCONT), and counts the rows left showing `uploading`.
@Suite(.timeLimit(.minutes(4)), .tags(.pty))
struct ProgressBarTerminalTests {
    static let driver = Fixtures.repository.appendingPathComponent("Tests/scripts/progress_pty.py").path

    static func onTerminal(_ world: CommandWorld, _ args: [String]) async throws -> Products.Result {
        try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", driver, world.flickr.path] + args,
                               environment: world.environment, timeout: 180)
    }

    /// A JPEG of `megabytes` MiB: its first bytes, then a hole (nothing written to disk).
    static func sparseJPEG(_ url: URL, megabytes: Int) throws {
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]).write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(megabytes << 20))
        try handle.close()
    }

    @Test("flickr.upload without a callback draws its bar on a terminal, on one row, following a resize; none without a terminal")
    func uploadWithoutCallbackDrawsTheBarOnATerminal() async throws {
        let world = try CommandWorld("progress")
        let script = world.directory.appendingPathComponent("up.lua")
        let photo = world.directory.appendingPathComponent("big.jpg")
        try Self.sparseJPEG(photo, megabytes: 48)
        try """
            print("uploaded " .. flickr.upload{ file = \(luaQuoted(photo.path)), title = "bar" })
            """.write(to: script, atomically: true, encoding: .utf8)
        let r = try await Self.onTerminal(world, ["--sandbox", script.path])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        // Without a terminal no bar is drawn.
        let plain = try await Products.run(world.flickr, ["--sandbox", script.path], environment: world.environment)
        #expect(plain.status == 0 && !plain.stderr.contains("uploading") && plain.stdout.hasPrefix("uploaded "))
    }

    @Test("flickr upload's batch line at 80 columns: one row, redrawn in place, following a narrowing to 60")
    func batchLineOnATerminal() async throws {
        let world = try CommandWorld("progress-batch")
        let folder = world.directory.appendingPathComponent("An uncommonly long folder name for a trip")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for n in 1...3 {
            try Self.sparseJPEG(folder.appendingPathComponent("Photo number \(n) of the long trip to Iceland.jpg"), megabytes: 24)
        }
        let r = try await Self.onTerminal(world, ["--sandbox", "upload", folder.path])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
    }

    @Test("flickr push apply on a terminal: each upload's bar on one row, redrawn in place, following a narrowing to 60")
    func pushLineOnATerminal() async throws {
        let world = try CommandWorld("progress-push")
        let folder = world.directory.appendingPathComponent("Trip")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for n in 1...2 { try Self.sparseJPEG(folder.appendingPathComponent("Photo \(n).jpg"), megabytes: 20 + n) }
        try await SandboxWorld.withProcess(environment: world.environment) { sandbox in
            var env = sandbox.environment(world.environment)
            env["XDG_DATA_HOME"] = world.directory.path + "/data"
            let plan = try await Products.run(world.flickr, ["push", "plan", folder.path], environment: env, timeout: 120)
            try #require(plan.status == 1, "\(plan.stdout) \(plan.stderr)")
            let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.driver, world.flickr.path, "push", "apply", "last", "--yes"],
                                           environment: env, timeout: 180)
            #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        }
    }

    func luaQuoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
}
