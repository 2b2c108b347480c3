import Foundation

/// The random numbers of the tests: seeded, so that a failure can be reproduced. The seed is
/// fixed (20261122) unless `FLICKR_TEST_SEED` gives another; it is printed once per process.
public struct TestRandom: RandomNumberGenerator, Sendable {
    public static let seed: UInt64 = {
        let seed = ProcessInfo.processInfo.environment["FLICKR_TEST_SEED"].flatMap { UInt64($0) } ?? 20_261_122
        print("test random seed: \(seed) (set FLICKR_TEST_SEED to change it)")
        return seed
    }()

    private var state: UInt64

    /// A generator for one test: the process seed mixed with `stream` (name the test), so that
    /// tests draw independent sequences whatever order they run in.
    public init(_ stream: String) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a of the stream name
        for b in stream.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        state = Self.seed ^ h
    }

    /// SplitMix64.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
