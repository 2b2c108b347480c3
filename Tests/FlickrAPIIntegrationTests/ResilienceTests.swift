import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct ResilienceTests {
    static let patient = RetryPolicy(maxAttempts: 10, baseDelay: 0.01, maxDelay: 0.05)

    @Test func readsSurviveInjectedFaults() async throws {
        // 30 % of answers broken: a call fails 10 times in a row with probability 0.3^10 ≈ 6e-6,
        // so 40 calls all succeed unless retrying is broken; no retry at all has odds 0.7^40 ≈ 6e-7.
        let faults = try FaultSpec.parse("5xx=0.1,reset=0.05,truncate=0.05,html=0.1")
        try await SandboxHarness.with(SandboxConfiguration(faults: faults), retry: Self.patient) { h in
            for i in 0..<40 {
                let rsp = try await h.client.call("flickr.test.echo", ["i": String(i)])
                #expect(rsp["i"]?.text == String(i))
            }
            // With a third of the answers broken, some retries must have happened.
            #expect(h.log.count(containing: "retrying flickr.test.echo") > 0)
        }
    }

    @Test func writesAreNotRetriedBlindly() async throws {
        try await SandboxHarness.with(SandboxConfiguration(faults: try FaultSpec.parse("5xx=1")), retry: Self.patient) { h in
            do {
                _ = try await h.client.call("flickr.photosets.create", ["title": "t", "primary_photo_id": "1"])
                Issue.record("write succeeded under 100% 5xx")
            } catch let error as FlickrError {
                #expect(error.kind == .http && (error.httpStatus ?? 0) >= 500)
            }
            #expect(h.log.count(containing: "retrying flickr.photosets.create") == 0)
            // An idempotent write is retried until the attempts run out.
            do {
                _ = try await h.client.call("flickr.photos.setTags", ["photo_id": "1", "tags": "x"])
            } catch {}
            #expect(h.log.count(containing: "retrying flickr.photos.setTags") == Self.patient.maxAttempts - 1)
        }
    }

    @Test func honoursRetryAfterFrom429() async throws {
        // 6 calls at once against a server allowing 1 call/s: some get 429 + Retry-After: 1 and
        // are retried after it, so all succeed and the whole takes at least a second.
        try await SandboxHarness.with(SandboxConfiguration(rateLimit: 1), retry: Self.patient) { h in
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                try await withThrowingTaskGroup(of: String?.self) { group in
                    for i in 0..<6 {
                        group.addTask { try await h.client.call("flickr.test.echo", ["i": String(i)])["i"]?.text }
                    }
                    var seen = Set<String>()
                    for try await value in group { if let value { seen.insert(value) } }
                    #expect(seen.count == 6)
                }
            }
            #expect(h.log.count(containing: "rate limited") > 0)
            #expect(elapsed >= .milliseconds(900))
        }
    }

    @Test func surfacesEachFaultShapeWithoutRetries() async throws {
        for (spec, kinds) in [("5xx=1", [FlickrError.Kind.http]), ("html=1", [.http]), ("truncate=1", [.parse, .network]),
                              ("reset=1", [.network, .parse]), ("429=1", [.http])] {
            try await SandboxHarness.with(SandboxConfiguration(faults: try FaultSpec.parse(spec))) { h in
                do {
                    _ = try await h.client.call("flickr.test.echo")
                    Issue.record("\(spec): call succeeded")
                } catch let error as FlickrError {
                    #expect(kinds.contains(error.kind), "\(spec): got \(error.kind) \(error)")
                    if spec == "429=1" { #expect(error.httpStatus == 429 && error.retryAfter != nil) }
                }
            }
        }
    }

    @Test func cancellingTheTaskAbortsTheRequest() async throws {
        // The answer would take 15 s; the cancelled call must end long before (a wide margin:
        // the whole suite runs in parallel on two cores). Timed from the cancellation: at the
        // suite's start the 200 ms pause before it has itself taken seconds.
        try await SandboxHarness.with(SandboxConfiguration(latencyMilliseconds: 15_000)) { h in
            let clock = ContinuousClock()
            let task = Task { try await h.client.call("flickr.test.echo") }
            try await Task.sleep(for: .milliseconds(200))
            let cancelled = clock.now
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("cancelled call succeeded")
            } catch let error as FlickrError {
                #expect(error.kind == .cancelled)
            }
            #expect(clock.now - cancelled < .seconds(10))
        }
    }

    @Test func timeoutIsItsOwnKind() async throws {
        try await SandboxHarness.with(SandboxConfiguration(latencyMilliseconds: 3000)) { h in
            do {
                _ = try await h.client.call("flickr.test.echo", timeout: 0.5)
                Issue.record("no timeout")
            } catch let error as FlickrError {
                #expect(error.kind == .timeout)
                #expect(error.isTransient)
            }
        }
    }

    @Test func connectionRefusedIsANetworkError() async throws {
        let client = FlickrClient(context: FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: "http://127.0.0.1:1"),
                                                         retryPolicy: .none, ratePolicy: .unlimited))
        let result: Result<FlickrNode, FlickrError> = await { () async -> Result<FlickrNode, FlickrError> in
            do throws(FlickrError) { return .success(try await client.call("flickr.test.echo")) } catch { return .failure(error) }
        }()
        guard case .failure(let error) = result else {
            Issue.record("connected to port 1")
            return
        }
        #expect(error.kind == .network)
        #expect(error.message.hasPrefix("cannot connect to 127.0.0.1:1: connection refused"), "\(error)")
    }
}
