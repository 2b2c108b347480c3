import Dispatch
import Foundation
import Synchronization

/// Ctrl-C for a command that ends cleanly instead of dying: while the watch is on, SIGINT does
/// not kill the process; each one is counted and handed to the handler (1 for the first) on a
/// dispatch queue. ``stop()`` gives SIGINT its default action back.
///
/// Used by the jobs (`retag apply`: stop after the current photo), the transfers (`upload`,
/// `download`: stop after the file in flight, abort it on the second Ctrl-C) and the script
/// runner (lua.c's "interrupted!").
final class InterruptWatch: @unchecked Sendable {
    private let count = Atomic<Int>(0)
    private let abort = Mutex<(@Sendable () -> Void)?>(nil)
    /// Touched only by `init` and `stop()`, on the thread that owns the watch.
    private let source: any DispatchSourceSignal

    /// Starts watching; `handler` gets the number of Ctrl-Cs so far.
    init(_ handler: @escaping @Sendable (Int) -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        // The handler holds the watch until stop() cancels the source (which drops the handler).
        source.setEventHandler { [self] in
            let n = count.add(1, ordering: .acquiringAndReleasing).newValue
            handler(n)
            if n >= 2, let action = abort.withLock({ $0 }) { action() }
        }
        source.resume()
    }

    /// Runs `work` in a task that the second Ctrl-C (and any later one) cancels, and returns
    /// what it gives: the first Ctrl-C only sets ``interrupted``, which `work` reads to stop
    /// between items; the second aborts the item in flight.
    func abortable<T: Sendable>(_ work: sending @escaping () async -> T) async -> T {
        let task = Task(operation: work)
        abort.withLock { $0 = { task.cancel() } }
        return await task.value
    }

    /// The watch of `upload` and `download`: the first Ctrl-C stops the batch after the file in
    /// flight, the second aborts that file (``abortable(_:)``); each says so on stderr,
    /// in place of the progress line.
    static func forTransfers(progress: BatchProgress?) -> InterruptWatch {
        InterruptWatch { n in
            progress?.clearLine()
            FileHandleOutput.standardError(n == 1 ? "stopping after the file in flight (Ctrl-C again to abort it)…\n"
                                                  : "aborting the file in flight…\n")
        }
    }

    /// Whether Ctrl-C was pressed at least once.
    var interrupted: Bool { count.load(ordering: .acquiring) > 0 }

    /// Ends the watch: SIGINT kills the process again.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
