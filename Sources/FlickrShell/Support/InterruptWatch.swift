import CReadlineShim
import Foundation
import Synchronization

/// Ctrl-C for a command that ends cleanly instead of dying: while the watch is on, SIGINT does
/// not kill the process; each one is counted and handed to the handler (1 for the first) on a
/// thread of the watch's own. ``stop()`` gives SIGINT its default action back.
///
/// Used by the jobs (`retag apply`: stop after the current photo), the transfers (`upload`,
/// `download`: stop after the file in flight, abort it on the second Ctrl-C) and the script
/// runner (lua.c's "interrupted!").
///
/// The signal goes through CReadlineShim's self-pipe (the REPL's own), installed and removed
/// synchronously. Not a dispatch signal source: libdispatch installs its handler when its
/// manager thread gets to it, which on a loaded machine came after the REPL that follows the
/// script runner had installed its own, and Ctrl-C at the prompt was then lost.
final class InterruptWatch: @unchecked Sendable {
    private let count = Atomic<Int>(0)
    private let abort = Mutex<(@Sendable () -> Void)?>(nil)
    /// Written by ``stop()`` to end the thread; (-1, -1) when the watch could not start.
    private let stopPipe: (read: Int32, write: Int32)
    /// Signalled by the thread as it ends.
    private let ended = DispatchSemaphore(value: 0)
    /// Touched only by `init` and `stop()`, on the thread that owns the watch.
    private var stopped = false

    /// Starts watching; `handler` gets the number of Ctrl-Cs so far. Should the watch not start
    /// (no descriptor left for its pipe), SIGINT keeps its default action.
    init(_ handler: @escaping @Sendable (Int) -> Void) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            stopPipe = (-1, -1)
            return
        }
        guard frl_signals_install() == 0 else {
            for fd in fds { close(fd) }
            stopPipe = (-1, -1)
            return
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        stopPipe = (fds[0], fds[1])
        // The thread holds the watch until stop() ends it.
        let thread = Thread { [self] in
            while true {
                let n = frl_wait_interrupts(stopPipe.read)
                guard n > 0 else { break }
                for _ in 0..<n {
                    let k = count.add(1, ordering: .acquiringAndReleasing).newValue
                    handler(k)
                    if k >= 2, let action = abort.withLock({ $0 }) { action() }
                }
            }
            ended.signal()
        }
        thread.name = "flickr-interrupts"
        thread.start()
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
    /// The watch of an upload or download: the first Ctrl-C — or SIGTERM, or SIGHUP (a closed
    /// terminal, a stopped service) — stops after the file in flight, a second aborts it.
    static func forTransfers(progress: BatchProgress?) -> InterruptWatch {
        let watch = InterruptWatch { n in
            progress?.clearLine()
            let cause = switch frl_termination_signal() {
            case SIGTERM: " (SIGTERM)"
            case SIGHUP: " (SIGHUP)"
            default: ""
            }
            FileHandleOutput.standardError(n == 1 ? "stopping after the file in flight\(cause) (Ctrl-C again to abort it)…\n"
                                                  : "aborting the file in flight…\n")
        }
        _ = frl_termination_install()
        return watch
    }

    /// The exit status of a run this watch stopped: 128 + the signal (130 for Ctrl-C, 143
    /// for SIGTERM, 129 for SIGHUP), as the shell reports a process the signal ended.
    var interruptStatus: Int32 {
        let signal = frl_termination_signal()
        return signal > 0 ? 128 + signal : 130
    }

    /// Whether Ctrl-C was pressed at least once.
    var interrupted: Bool { count.load(ordering: .acquiring) > 0 }

    /// Ends the watch (its thread has ended when this returns): SIGINT kills the process again.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if stopPipe.write >= 0 {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
            ended.wait()
            frl_signals_restore()
            close(stopPipe.read)
            close(stopPipe.write)
        }
        signal(SIGINT, SIG_DFL)
    }
}
