import Foundation
import Synchronization

/// The worst moment to die, on demand: with `FLICKR_TEST_KILL_AFTER_WRITE=N` the process kills
/// itself (SIGKILL, no cleanup) right after the N-th write's answer arrives and before the
/// journal records it. The crash tests use it to prove that resume settles such a write by
/// reading. Unset, it does nothing.
enum CrashPoint {
    static let limit: Int? = ProcessInfo.processInfo.environment["FLICKR_TEST_KILL_AFTER_WRITE"].flatMap { Int($0) }
    static let writes = Atomic<Int>(0)

    static func afterWrite() {
        guard let limit else { return }
        if writes.add(1, ordering: .relaxed).newValue >= limit { kill(getpid(), SIGKILL) }
    }
}
