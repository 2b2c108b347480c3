import FlickrAPI
import FlickrJobs
import FlickrTestSupport
import Foundation
import Testing

/// The pure parts of the fail-safe rules: the outage watch, the undo step, the runner lock.
@Suite("Jobs fail safe: outage watch, undo step, runner lock", .tags(.unit))
struct FailSafeUnitTests {
    static var refused: FlickrError {
        var e = FlickrError(kind: .network, message: "cannot connect to 127.0.0.1:9: connection refused")
        e.unreachable = true
        return e
    }

    @Test("An outage is waited out up to --max-outage from the first failing call's start, with a notice at most every interval; any answer ends it")
    func outageWatch() {
        var watch = OutageWatch(maxOutage: 30, noticeInterval: 10)
        guard case .retry(let wait, let notice?) = watch.failed(Self.refused, started: 100, now: 103) else {
            Issue.record("the first failure must retry with a notice")
            return
        }
        #expect(wait > 0 && wait <= 2 && notice.contains("connection refused") && notice.contains("down for 3 s"))
        // No second notice within the interval, one after it.
        guard case .retry(_, nil) = watch.failed(Self.refused, started: 104, now: 108) else {
            Issue.record("a notice within 10 s of the last")
            return
        }
        guard case .retry(_, .some) = watch.failed(Self.refused, started: 110, now: 113.5) else {
            Issue.record("no notice after 10 s")
            return
        }
        // Measured from the first failing call's start (100), not from this call's.
        guard case .stop(let reason) = watch.failed(Self.refused, started: 128, now: 130) else {
            Issue.record("30 s of outage must stop")
            return
        }
        #expect(reason.contains("unreachable for 30 s") && reason.contains("--max-outage 30"))
        // An answer resets it: a new outage gets its full window again.
        watch.answered()
        guard case .retry(_, .some) = watch.failed(Self.refused, started: 200, now: 229) else {
            Issue.record("a new outage must start afresh")
            return
        }
        // A zero window stops at the first failure.
        var none = OutageWatch(maxOutage: 0)
        guard case .stop = none.failed(Self.refused, started: 1, now: 1) else {
            Issue.record("--max-outage 0 must stop at once")
            return
        }
        // The interval is capped at 30 s: a log without a terminal shows life at least that often.
        #expect(OutageWatch(maxOutage: 600, noticeInterval: 120).noticeInterval == 30)
    }

    static func change(_ pre: [String], _ target: [String]) -> PhotoChange {
        PhotoChange(pre: PhotoTags(photoID: "1", owner: "me", lastUpdate: 1, tags: pre.enumerated().map { PhotoTag(id: "t\($0.offset)", author: "me", raw: $0.element) }),
                    target: target)
    }

    @Test("Undo removes what the job added and brings back what it removed, keeps a tag added since, and reports a later edit in what it touches unless forced")
    func undoStep() {
        // The job renamed "paris" to "Paris", added "city trip", removed "tram".
        let step = UndoStep(job: Self.change(["paris", "tram", "night"], ["Paris", "night", "city trip"]), wroteAll: true)
        #expect(Set(step.added) == ["Paris", "city trip"] && Set(step.removed) == ["paris", "tram"])
        // A tag added after the job stays.
        let later = step.target(current: ["Paris", "night", "city trip", "favourite"], force: false)
        #expect(later.conflict == nil && Set(later.target) == ["paris", "tram", "night", "favourite"], "\(later)")
        // A tag the job added was removed since: a conflict, left as it is.
        let removed = step.target(current: ["Paris", "night"], force: false)
        #expect(removed.conflict?.contains("city trip") == true && removed.target == ["Paris", "night"])
        // A tag the job removed was put back (in another raw form): a conflict.
        let back = step.target(current: ["Paris", "night", "city trip", "Tram"], force: false)
        #expect(back.conflict?.contains("Tram") == true && back.target == ["Paris", "night", "city trip", "Tram"])
        // Forced: what the job added leaves, what it removed comes back as it was written.
        let forced = step.target(current: ["Paris", "night", "city trip", "Tram"], force: true)
        #expect(forced.conflict == nil && Set(forced.target) == ["paris", "tram", "night"], "\(forced)")
        // A run cut short (not every write made): missing writes are no conflict.
        let partial = UndoStep(job: Self.change(["paris", "tram"], ["Paris", "city trip"]), wroteAll: false)
        let cut = partial.target(current: ["Paris", "tram"], force: false)
        #expect(cut.conflict == nil && Set(cut.target) == ["paris", "tram"], "\(cut)")
    }

    @Test("One holder per lock: a second taker is told the holder's pid, host and command; closing releases; a probe sees both states")
    func runnerLock() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locks-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(RunnerLock.probe("job-1", in: dir) == .free)
        var held: RunnerLock? = try RunnerLock.acquire("job-1", in: dir, command: "flickr retag apply")
        #expect(held != nil)
        do {
            _ = try RunnerLock.acquire("job-1", in: dir, command: "flickr retag resume")
            Issue.record("a second holder got the lock")
        } catch let busy as RunnerLock.Busy {
            #expect(busy.holder?.pid == getpid() && busy.holder?.command == "flickr retag apply")
            #expect(busy.description.contains("process \(getpid()) on host ") && busy.description.contains("flickr retag apply"))
        }
        guard case .held(let by) = RunnerLock.probe("job-1", in: dir) else {
            Issue.record("the probe did not see the lock held")
            return
        }
        #expect(by?.pid == getpid())
        // Another job's lock is independent.
        _ = try RunnerLock.acquire("job-2", in: dir, command: "x")
        held = nil
        #expect(RunnerLock.probe("job-1", in: dir) == .free)
        _ = try RunnerLock.acquire("job-1", in: dir, command: "again")
        // The files are the owner's only.
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/job-1.lock")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("A private file keeps what it holds: an existing 0644 file in a 0755 folder becomes 0600 in 0700, not emptied; new folders are 0700; a folder that cannot be made is named in the error")
    func privateFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func mode(_ path: String) throws -> Int {
            ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1) & 0o777
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let existing = dir + "/jobs.sqlite"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: existing))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: existing)
        try PrivateFile.prepare(existing)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "kept")
        #expect(try mode(existing) == 0o600 && mode(dir) == 0o700)

        let fresh = dir + "/a/b/library.sqlite"
        try PrivateFile.prepare(fresh)
        #expect(try mode(fresh) == 0o600 && mode(dir + "/a/b") == 0o700 && mode(dir + "/a") == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: fresh)[.size] as? Int == 0)

        // A file stands where the folder would be.
        #expect {
            try PrivateFile.prepare(existing + "/inner/x.sqlite")
        } throws: { error in
            (error as? JobError)?.message.contains("cannot create \(existing)/inner") == true
        }
    }

    @Test("kill -9 of the holder releases the lock at once: the kernel drops a dead process's flock")
    func lockReleasedByKill() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locks-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Another process holds the same kind of lock RunnerLock takes (flock(2), exclusive).
        let script = "import fcntl, sys, time\nf = open(sys.argv[1], 'w')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(600)\n"
        let holder = try InteractiveProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, dir + "/job-9.lock"],
                                            environment: ProcessInfo.processInfo.environment)
        #expect(await holder.waitForLine(timeout: 30) { $0 == "held" } != nil)
        #expect(throws: RunnerLock.Busy.self) { _ = try RunnerLock.acquire("job-9", in: dir, command: "x") }
        kill(holder.process.processIdentifier, SIGKILL)
        _ = await holder.wait(timeout: 30)
        #expect(try RunnerLock.acquire("job-9", in: dir, command: "x").name == "job-9")
    }
}
