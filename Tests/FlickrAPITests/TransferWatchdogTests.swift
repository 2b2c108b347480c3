import AsyncHTTPClient
import Foundation
import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import FlickrAPI

/// The watchdog that limits response bodies and downloads: its decision alone, then the timer on
/// a test loop whose clock the test moves, and a real event loop cutting off real child tasks.
@Suite(.tags(.unit), .timeLimit(.minutes(1))) struct TransferWatchdogTests {
    struct TimedOut: Error {}

    let loop = HTTPClient.defaultEventLoopGroup.next()

    @Test func aDeadlineExpiresAtItsInstantWhateverArrives() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let limit = TransferWatchdog.Limit.deadline(start + .seconds(10))
        let touchedLate = start + .seconds(9)
        #expect(TransferWatchdog.verdict(for: limit, lastActivity: touchedLate, now: start + .seconds(5))
            == .rearm(at: start + .seconds(10)))
        #expect(TransferWatchdog.verdict(for: limit, lastActivity: touchedLate, now: start + .seconds(10)) == .expire)
    }

    @Test func anIdleLimitMovesOnWithEachTouch() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let limit = TransferWatchdog.Limit.idle(.seconds(2))
        // Set at start for start+2; a touch at start+1.5 means it fires early and waits on.
        #expect(TransferWatchdog.verdict(for: limit, lastActivity: start + .milliseconds(1500), now: start + .seconds(2))
            == .rearm(at: start + .milliseconds(3500)))
        #expect(TransferWatchdog.verdict(for: limit, lastActivity: start, now: start + .seconds(2)) == .expire)
    }

    @Test func aTransferPastItsDeadlineIsCancelledAndReportedAsTimedOut() async throws {
        let began = ContinuousClock.now
        await #expect(throws: TimedOut.self) {
            try await HTTPTransport.watched(by: .deadline(.now() + .milliseconds(100)), on: loop,
                                            timeoutError: { TimedOut() }) { _ in
                // Only cancellation ends this early.
                try await Task.sleep(for: .seconds(50))
                return 1
            }
        }
        #expect(ContinuousClock.now - began < .seconds(40))
    }

    /// A transfer that touches every 100 ms for 3 s (six times its 0.5 s idle limit) on a loop
    /// whose clock the test moves, so no scheduling delay of a busy machine can pass for silence
    /// (a real-time version failed once on CI when a tick came late); then the same transfer goes
    /// quiet for 0.6 s and is cut off.
    @Test func aTransferThatKeepsTouchingOutlivesItsIdleLimitThenFailsWhenSilent() async throws {
        let clock = NIOAsyncTestingEventLoop()
        defer { Task { await clock.shutdownGracefully() } }
        let (touches, touchOut) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        let (finish, finishIn) = AsyncStream.makeStream(of: Int.self)
        let call = Task {
            try await HTTPTransport.failingWhenIdle(for: 0.5, on: clock) { touch in
                touchOut.yield(touch)
                for await value in finish { return value }
                throw CancellationError()  // the stream ends only when the watchdog cancels
            }
        }
        var iterator = touches.makeAsyncIterator()
        let touch = try #require(await iterator.next())
        for _ in 0..<30 {
            touch()
            await clock.advanceTime(by: .milliseconds(100))
        }
        finishIn.yield(30)
        #expect(try await call.value == 30)

        let (silence, silenceOut) = AsyncStream.makeStream(of: Void.self)
        let quiet = Task {
            try await HTTPTransport.failingWhenIdle(for: 0.5, on: clock) { touch in
                touch()
                silenceOut.yield()
                try await Task.sleep(for: .seconds(50))  // only cancellation ends this early
                return 0
            }
        }
        var started = silence.makeAsyncIterator()
        _ = await started.next()
        await clock.advanceTime(by: .milliseconds(600))
        await #expect(throws: IdleTimeout.self) { try await quiet.value }
    }

    /// The watchdog alone on the test loop: a touch moves the idle limit on, a stop keeps it from
    /// ever expiring.
    @Test func touchesMoveTheIdleLimitAndStopEndsIt() async throws {
        let clock = NIOAsyncTestingEventLoop()
        defer { Task { await clock.shutdownGracefully() } }
        let fired = Mutex(0)
        let watchdog = TransferWatchdog(.idle(.seconds(2)), on: clock)
        watchdog.start { fired.withLock { $0 += 1 } }
        await clock.advanceTime(by: .milliseconds(1500))
        watchdog.touch()
        await clock.advanceTime(by: .milliseconds(1500))  // 3 s in, 1.5 s after the touch
        #expect(fired.withLock { $0 } == 0 && !watchdog.expired)
        await clock.advanceTime(by: .milliseconds(500))
        #expect(fired.withLock { $0 } == 1 && watchdog.expired)
        await clock.advanceTime(by: .seconds(10))
        #expect(fired.withLock { $0 } == 1)

        let stopped = TransferWatchdog(.idle(.seconds(2)), on: clock)
        stopped.start { Issue.record("expired after stop") }
        stopped.stop()
        await clock.advanceTime(by: .seconds(10))
        #expect(!stopped.expired)
    }

    /// A stopped watchdog leaves its loop's sweep at once; the sweep's tick goes on through a
    /// quiet second (calls in a row do not start and stop it) and then stops, leaving the loop
    /// with no timer.
    @Test func theSweepForgetsAStoppedTransferAndStopsWhenIdle() async throws {
        let clock = NIOAsyncTestingEventLoop()
        defer { Task { await clock.shutdownGracefully() } }
        let watchdog = TransferWatchdog(.deadline(clock.now + .seconds(30)), on: clock)
        watchdog.start { Issue.record("expired after stop") }
        #expect(TransferSweeper.isTicking(on: clock) && TransferSweeper.watchedCount(on: clock) == 1)
        watchdog.stop()
        #expect(TransferSweeper.watchedCount(on: clock) == 0)
        await clock.advanceTime(by: TransferSweeper.tick * Int64(TransferSweeper.idleTicks - 1))
        #expect(TransferSweeper.isTicking(on: clock))
        let again = TransferWatchdog(.deadline(clock.now + .seconds(30)), on: clock)
        again.start { Issue.record("expired after stop") }
        again.stop()
        await clock.advanceTime(by: TransferSweeper.tick * Int64(TransferSweeper.idleTicks))
        #expect(!TransferSweeper.isTicking(on: clock))
        await clock.advanceTime(by: .seconds(60))
        #expect(!watchdog.expired && !again.expired)
    }

    @Test func cancellingTheCallerCancelsTheTransferAndIsNotATimeout() async throws {
        let call = Task {
            try await HTTPTransport.watched(by: .deadline(.now() + .seconds(30)), on: loop,
                                            timeoutError: { TimedOut() }) { _ in
                try await Task.sleep(for: .seconds(50))
                return 1
            }
        }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    /// A transfer runs on the caller's task executor (a call from Lua reads its answer on the
    /// Lua thread): here a one-thread executor of the test's, whose thread the transfer sees.
    @Test func theTransferRunsOnTheCallersTaskExecutor() async throws {
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let seen = try await withTaskExecutorPreference(executor) {
            try await HTTPTransport.watched(by: .deadline(.now() + .seconds(30)), on: loop, timeoutError: { TimedOut() }) { _ in
                await Task.yield()
                return executor.isCurrent
            }
        }
        #expect(seen)
    }

    @Test func anAlarmAnswersItsFirstSettlementWhenEverItIsAwaited() async {
        let rungFirst = TransferAlarm()
        rungFirst.ring()
        rungFirst.silence()
        #expect(await rungFirst.wait())
        let silenced = TransferAlarm()
        async let waited = silenced.wait()
        silenced.silence()
        silenced.ring()
        #expect(await waited == false)
        let abandoned = Task { await TransferAlarm().wait() }
        abandoned.cancel()
        #expect(await abandoned.value == false)
    }
}

/// A task executor with a thread of its own, to see where jobs run.
final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var thread: Thread?
    private let key = "OneThreadExecutor"

    init() {
        let thread = Thread { self.run() }  // holds the executor until stop() lets the thread end
        thread.threadDictionary[key] = true
        self.thread = thread
        thread.start()
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool { Thread.current.threadDictionary[key] as? Bool == true }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty { condition.unlock(); return }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }
}
