import NIOCore
import Synchronization

/// One timer per event loop for every ``TransferWatchdog`` on it: a tick every ``tick`` checks
/// them all. Watching and forgetting take a lock and wake no thread — only the first watchdog
/// after a quiet second schedules the tick again. The tick stops after ``idleTicks`` ticks with
/// nothing to watch, so an idle process has no timer, and a run of calls does not start and stop
/// it between calls.
enum TransferSweeper {
    /// How often limits are checked: a limit is noticed up to this late.
    static let tick = TimeAmount.milliseconds(100)
    /// Empty ticks before the timer stops.
    static let idleTicks = 10

    /// What one loop's sweep holds. A sweep is in ``sweeps`` exactly while its tick is set.
    private struct Sweep {
        let loop: any EventLoop
        var watched: [ObjectIdentifier: TransferWatchdog] = [:]
        var emptyTicks = 0
    }

    /// Every loop's sweep, by loop; one lock for all (a few operations a call: no contention to
    /// speak of), so that a sweep deciding to stop and a watchdog joining it cannot miss each
    /// other.
    private static let sweeps = Mutex<[ObjectIdentifier: Sweep]>([:])

    /// Starts checking `watchdog` at its loop's ticks.
    static func watch(_ watchdog: TransferWatchdog) {
        let key = ObjectIdentifier(watchdog.loop)
        sweeps.withLock { all in
            var sweep: Sweep
            if let existing = all[key] {
                sweep = existing
            } else {
                schedule(key, on: watchdog.loop)  // takes only the loop's queue lock: safe under ours
                sweep = Sweep(loop: watchdog.loop)
            }
            sweep.watched[ObjectIdentifier(watchdog)] = watchdog
            sweep.emptyTicks = 0
            all[key] = sweep
        }
    }

    /// Stops checking `watchdog` (no wake-up: the next tick simply finds it gone).
    static func forget(_ watchdog: TransferWatchdog) {
        let key = ObjectIdentifier(watchdog.loop)
        sweeps.withLock { all in
            _ = all[key]?.watched.removeValue(forKey: ObjectIdentifier(watchdog))
        }
    }

    private static func schedule(_ key: ObjectIdentifier, on loop: any EventLoop) {
        loop.scheduleTask(in: tick) { sweep(key, on: loop) }
    }

    /// One tick, on the loop: checks every watchdog outside the lock (an expiry cancels a task),
    /// drops those done with, and sets the next tick — or ends the sweep after enough empty ones.
    private static func sweep(_ key: ObjectIdentifier, on loop: any EventLoop) {
        let now = loop.now
        let watched = sweeps.withLock { $0[key].map { Array($0.watched.values) } ?? [] }
        let done = watched.filter { $0.check(now: now) }.map(ObjectIdentifier.init)
        sweeps.withLock { all in
            guard var sweep = all[key] else { return }
            for id in done { sweep.watched.removeValue(forKey: id) }
            if sweep.watched.isEmpty {
                sweep.emptyTicks += 1
                if sweep.emptyTicks >= idleTicks {
                    all[key] = nil  // the next watchdog on this loop starts a new sweep
                    return
                }
            } else {
                sweep.emptyTicks = 0
            }
            schedule(key, on: loop)
            all[key] = sweep
        }
    }

    /// Whether a sweep is ticking on `loop` (tests watch it stop).
    static func isTicking(on loop: any EventLoop) -> Bool {
        sweeps.withLock { $0[ObjectIdentifier(loop)] != nil }
    }

    /// How many watchdogs `loop`'s sweep holds.
    static func watchedCount(on loop: any EventLoop) -> Int {
        sweeps.withLock { $0[ObjectIdentifier(loop)]?.watched.count ?? 0 }
    }
}
