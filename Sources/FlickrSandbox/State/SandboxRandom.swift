/// A small deterministic generator (SplitMix64) so the demo world is the same on every start.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Identifier formats Flickr uses.
enum SandboxIDs {
    static func hex<G: RandomNumberGenerator>(_ count: Int, using rng: inout G) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<count).map { _ in digits[Int(rng.next() % 16)] })
    }

    static func hex(_ count: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return hex(count, using: &rng)
    }

    static func digits(_ count: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(String(rng.next() % 10)) })
    }

    /// `72157626737672178-022bbd2f4c2f3432`: 17 digits, a hyphen, 16 hex.
    static func token() -> String { "72157" + digits(12) + "-" + hex(16) }

    /// A 9-digit verifier shown to the user, `123-456-789`.
    static func verifier() -> String { digits(3) + "-" + digits(3) + "-" + digits(3) }
}
