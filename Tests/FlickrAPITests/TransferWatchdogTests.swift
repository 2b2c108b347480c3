import AsyncHTTPClient
import NIOCore
import Testing
@testable import FlickrAPI

/// The watchdog that limits response bodies and downloads: its decision alone, then the timer on
/// a real event loop cutting off real child tasks.
@Suite(.tags(.unit), .kind("unit"), .timeLimit(.minutes(1))) struct TransferWatchdogTests {
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

    /// Touches every 50 ms from an event loop thread, as bytes arriving on the I/O thread do, and
    /// returns after `times` touches; cancelled, it stops and throws. (Touching from the task pool
    /// instead would make the test depend on that pool being free while other suites run.)
    func ticking(_ touch: @escaping @Sendable () -> Void, times: Int) async throws -> Int {
        let promise = loop.makePromise(of: Int.self)
        let count = NIOLoopBoundBox.makeBoxSendingValue(0, as: Int.self, eventLoop: loop)  // touched on the loop only
        let ticker = loop.scheduleRepeatedTask(initialDelay: .milliseconds(50), delay: .milliseconds(50)) { task in
            touch()
            count.value += 1
            if count.value == times {
                task.cancel()
                promise.succeed(times)
            }
        }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            ticker.cancel()
            // On the loop, so it is ordered with the ticks: fails only a promise not yet kept.
            loop.execute { if count.value < times { promise.fail(CancellationError()) } }
        }
    }

    @Test func aTransferThatKeepsTouchingOutlivesItsIdleLimitThenFailsWhenSilent() async throws {
        // 30 touches 50 ms apart: 1.5 s in all, three times the limit.
        let count = try await HTTPTransport.failingWhenIdle(for: 0.5, on: loop) { touch in
            try await ticking(touch, times: 30)
        }
        #expect(count == 30)
        await #expect(throws: IdleTimeout.self) {
            try await HTTPTransport.failingWhenIdle(for: 0.3, on: loop) { touch in
                touch()
                try await Task.sleep(for: .seconds(50))
                return 0
            }
        }
    }

    @Test func theTimerLeavesTheLoopWhenTheTransferEnds() async throws {
        let watchdog = TransferWatchdog(.deadline(.now() + .seconds(30)), on: loop)
        watchdog.start { Issue.record("expired after stop") }
        let timer = try #require(watchdog.pendingTimer)
        watchdog.stop()
        // Cancelled now, not at its instant 30 s away: its future fails at once.
        await #expect(throws: EventLoopError.self) { try await timer.futureResult.get() }
        #expect(watchdog.pendingTimer == nil && !watchdog.expired)
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
}
