@testable import FlickrSandbox
import Testing
import FlickrTestSupport

/// The OAuth nonce memory: a replay inside the clock window is refused, and what the window
/// no longer accepts is forgotten, so the memory stays bounded however long the server runs.
@Suite(.tags(.unit))
struct NonceMemoryTests {
    static func controls(skew: Int = SandboxConfiguration.defaultClockSkew) -> SandboxControls {
        var configuration = SandboxConfiguration()
        configuration.clockSkewSeconds = skew
        return SandboxControls(configuration: configuration)
    }

    @Test func forgetsWhatTheClockWindowRefusesAnyway() {
        let controls = Self.controls()
        let skew = controls.clockSkew
        let now = 1_000_000
        for i in 0..<5_000 {
            #expect(controls.useNonce(consumerKey: "key", timestamp: now, nonce: "n\(i)", now: now))
        }
        #expect(controls.rememberedNonces == 5_000)
        // A replay inside the window, and the same nonce under another key or timestamp.
        #expect(!controls.useNonce(consumerKey: "key", timestamp: now, nonce: "n17", now: now + skew - 1))
        #expect(controls.useNonce(consumerKey: "other", timestamp: now, nonce: "n17", now: now + skew - 1))
        #expect(controls.useNonce(consumerKey: "key", timestamp: now + 1, nonce: "n17", now: now + skew - 1))
        // Still remembered at the last second the clock check lets the timestamp pass.
        #expect(!controls.useNonce(consumerKey: "key", timestamp: now, nonce: "n18", now: now + skew))
        // One second later all with that timestamp are gone: only the one a second younger and
        // this stay.
        #expect(controls.useNonce(consumerKey: "key", timestamp: now + skew + 1, nonce: "fresh", now: now + skew + 1))
        #expect(controls.rememberedNonces == 2)
    }

    /// Hours of calls at a steady rate: the memory holds one window's worth, not the run's — the
    /// window is the clock skew when the client's clock is right, twice it when the client's
    /// clock runs as far ahead as the server accepts; `--clock-skew` sets it.
    @Test(arguments: [(SandboxConfiguration.defaultClockSkew, 0), (SandboxConfiguration.defaultClockSkew, 300), (30, 0), (30, -30)])
    func staysBoundedOverALongRun(skew: Int, clientAhead: Int) {
        let controls = Self.controls(skew: skew)
        var peak = 0, refused = 0
        for second in 0..<7_200 {
            for i in 0..<20 where !controls.useNonce(consumerKey: "key", timestamp: second + clientAhead,
                                                     nonce: "\(second)-\(i)", now: second) {
                refused += 1  // counted, not expected one by one: 144,000 expectations hog a test thread
            }
            peak = max(peak, controls.rememberedNonces)
        }
        #expect(refused == 0)
        // Kept from arrival until timestamp + skew: skew + clientAhead + 1 seconds of arrivals.
        #expect(peak == 20 * (skew + clientAhead + 1), "peak \(peak)")
    }
}
