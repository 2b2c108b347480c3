import Foundation
import Synchronization
import Testing
import FlickrTestSupport
@testable import FlickrShell

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct ProgressBarTests {
    @Test func rendersFractionSizesAndRate() {
        let frame = ProgressBar.render(sent: 512 << 10, total: 1 << 20, elapsed: .seconds(1), width: 10)
        #expect(frame == "\ruploading [#####-----]  50%  0.5 MiB of 1.0 MiB  0.5 MiB/s")
        let full = ProgressBar.render(sent: 300 << 20, total: 300 << 20, elapsed: .seconds(2), width: 4)
        #expect(full == "\ruploading [####] 100%  300 MiB of 300 MiB  150 MiB/s")
        let unknown = ProgressBar.render(sent: 3 << 20, total: nil, elapsed: .seconds(1), width: 4)
        #expect(unknown == "\ruploading  3.0 MiB sent  3.0 MiB/s")
    }

    @Test func throttlesAndEndsWithANewline() {
        let frames = Mutex<[String]>([])
        let bar = ProgressBar(width: 4) { s in frames.withLock { $0.append(s) } }
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
        let line = BatchProgress(verb: "uploading", files: 2, batchTotal: 2 * total) { text in
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

@Suite(.timeLimit(.minutes(3)), .tags(.unit))
struct ProgressBarTerminalTests {
    @Test func uploadWithoutCallbackDrawsTheBarOnATerminal() async throws {
        let world = try CommandWorld("progress")
        let script = world.directory.appendingPathComponent("up.lua")
        try """
            local path = os.tmpname() .. ".jpg"
            local f = assert(io.open(path, "wb"))
            f:write("\\255\\216\\255\\224\\0\\16JFIF\\0\\1\\1\\0\\0\\1\\0\\1\\0\\0", ("x"):rep(300000), "\\255\\217")
            f:close()
            print("uploaded " .. flickr.upload{ file = path, title = "bar" })
            os.remove(path)
            """.write(to: script, atomically: true, encoding: .utf8)
        let driver = Fixtures.repository.appendingPathComponent("Tests/scripts/progress_pty.py").path
        let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", driver, world.flickr.path, script.path],
                                       environment: world.environment, timeout: 60)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        // Without a terminal no bar is drawn.
        let plain = try await Products.run(world.flickr, ["--sandbox", script.path], environment: world.environment)
        #expect(plain.status == 0 && !plain.stderr.contains("uploading [") && plain.stdout.hasPrefix("uploaded "))
    }
}
