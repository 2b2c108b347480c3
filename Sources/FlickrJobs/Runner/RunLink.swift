import FlickrAPI
import FlickrProtocol
import Foundation
import Synchronization

/// One run's calls to the endpoint. A call that could not connect (nothing was sent) is sent
/// again after a short wait, as ``OutageWatch`` decides, until the outage outlasts the run's
/// limit: then ``JobOutage`` ends the run. Calls are counted only when they reached the server.
final class RunLink: Sendable {
    let client: FlickrClient
    let notice: @Sendable (String) -> Void
    let shouldStop: @Sendable () -> Bool
    private let watch: Mutex<OutageWatch>

    /// The run was asked to stop (Ctrl-C) while it waited for the endpoint.
    struct Stopped: Error {}

    init(client: FlickrClient, maxOutage: Double, notice: @escaping @Sendable (String) -> Void,
         shouldStop: @escaping @Sendable () -> Bool) {
        self.client = client
        self.notice = notice
        self.shouldStop = shouldStop
        watch = Mutex(OutageWatch(maxOutage: maxOutage))
    }

    /// `client.call(method, arguments)`, waiting out an outage. Throws the call's
    /// ``FlickrError``, ``JobOutage`` or ``Stopped``.
    func call(_ method: String, _ arguments: [String: String], calls: inout Int) async throws -> FlickrNode {
        try await send(calls: &calls) { [client] () async throws(FlickrError) in try await client.call(method, arguments) }
    }

    /// One request of any kind (a call, an upload, a download), waiting out an outage as
    /// ``call(_:_:calls:)`` does. Throws the request's ``FlickrError``, ``JobOutage`` or ``Stopped``.
    func send<T: Sendable>(calls: inout Int, _ request: @Sendable () async throws(FlickrError) -> T) async throws -> T {
        while true {
            let started = Date().timeIntervalSince1970
            do {
                let answer = try await request()
                calls += 1
                watch.withLock { $0.answered() }
                return answer
            } catch where error.unreachable {
                let action = watch.withLock { $0.failed(error, started: started, now: Date().timeIntervalSince1970) }
                switch action {
                case .stop(let reason):
                    throw JobOutage(reason: reason)
                case .retry(let after, let line):
                    if let line { notice(line) }
                    try await pause(after)
                }
            } catch {
                // The server answered (or the call broke after it was sent): no outage.
                calls += 1
                watch.withLock { $0.answered() }
                throw error
            }
        }
    }

    /// Sleeps `seconds`, a tenth of a second at a time, so that a stop request ends the wait.
    private func pause(_ seconds: Double) async throws {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if shouldStop() { throw Stopped() }
            try await Task.sleep(for: .milliseconds(Int64(min(100, max(1, end.timeIntervalSinceNow * 1000)))))
        }
        if shouldStop() { throw Stopped() }
    }
}
