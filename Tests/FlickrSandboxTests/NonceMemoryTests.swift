@testable import FlickrSandbox
import Testing
import FlickrTestSupport

/// The OAuth nonce memory: a replay inside the clock window is refused, and what the window
/// no longer accepts is forgotten, so the memory stays bounded however long the server runs.
@Suite(.tags(.unit), .kind("unit"))
struct NonceMemoryTests {
    @Test func forgetsWhatTheClockWindowRefusesAnyway() {
        let controls = SandboxControls(configuration: SandboxConfiguration())
        let now = 1_000_000
        for i in 0..<5_000 {
            #expect(controls.useNonce(consumerKey: "key", timestamp: now, nonce: "n\(i)", now: now))
        }
        #expect(controls.rememberedNonces == 5_000)
        // A replay inside the window, and the same nonce under another key or timestamp.
        #expect(!controls.useNonce(consumerKey: "key", timestamp: now, nonce: "n17", now: now + 299))
        #expect(controls.useNonce(consumerKey: "other", timestamp: now, nonce: "n17", now: now + 299))
        #expect(controls.useNonce(consumerKey: "key", timestamp: now + 1, nonce: "n17", now: now + 299))
        // Still remembered at the last second a timestamp of now + skew could pass.
        #expect(!controls.useNonce(consumerKey: "key", timestamp: now, nonce: "n18", now: now + 2 * OAuthLimits.timestampSkew))
        // One second later the first 5,000 are gone; only the three recent ones and this stay.
        #expect(controls.useNonce(consumerKey: "key", timestamp: now + 601, nonce: "fresh", now: now + 2 * OAuthLimits.timestampSkew + 1))
        #expect(controls.rememberedNonces == 3)
    }

    /// Hours of calls at a steady rate: the memory holds one window's worth, not the run's.
    @Test func staysBoundedOverALongRun() {
        let controls = SandboxControls(configuration: SandboxConfiguration())
        var peak = 0
        for second in 0..<7_200 {
            for i in 0..<20 {
                #expect(controls.useNonce(consumerKey: "key", timestamp: second, nonce: "\(second)-\(i)", now: second))
            }
            peak = max(peak, controls.rememberedNonces)
        }
        #expect(peak == 20 * (2 * OAuthLimits.timestampSkew + 1), "peak \(peak)")
    }
}
