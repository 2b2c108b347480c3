import Foundation
import Synchronization

#if DEBUG
/// The worst moment to die, on demand, in a debug build only: with
/// `FLICKR_TEST_STOP_AFTER_WRITE=N` the process says so on stderr (``announcement``) and stops
/// itself (SIGSTOP) right after the N-th write's answer arrives and before the journal records
/// it. The crash tests then kill it from outside (SIGKILL, no cleanup), as a user's crash
/// happens, to prove that resume settles such a write by reading. Unset, it does nothing.
enum CrashPoint {
    /// The line the process writes to stderr before it stops.
    static let announcement = "flickr: stopped for a crash test after a write"
    static let limit: Int? = ProcessInfo.processInfo.environment["FLICKR_TEST_STOP_AFTER_WRITE"].flatMap { Int($0) }
    static let writes = Atomic<Int>(0)

    static func afterWrite() {
        guard let limit, writes.add(1, ordering: .relaxed).newValue == limit else { return }
        FileHandle.standardError.write(Data((announcement + "\n").utf8))
        // Every thread stops at once, as a kill would stop them; the test's SIGKILL ends them.
        raise(SIGSTOP)
    }

    /// With `FLICKR_TEST_STOP_AFTER_PLAN_BATCH=N`: stops the same way after a plan stored its
    /// N-th batch of photos, before the plan is complete.
    static let planBatchLimit: Int? = ProcessInfo.processInfo.environment["FLICKR_TEST_STOP_AFTER_PLAN_BATCH"].flatMap { Int($0) }
    static let planBatches = Atomic<Int>(0)
    static let planAnnouncement = "flickr: stopped for a crash test after a plan's batch"

    static func afterPlanBatch() {
        guard let planBatchLimit, planBatches.add(1, ordering: .relaxed).newValue == planBatchLimit else { return }
        FileHandle.standardError.write(Data((planAnnouncement + "\n").utf8))
        raise(SIGSTOP)
    }
}
#else
/// The crash tests' stopping point (see the debug build's): nothing in a release build.
enum CrashPoint {
    @inline(__always) static func afterWrite() {}
    @inline(__always) static func afterPlanBatch() {}
}
#endif
