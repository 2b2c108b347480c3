/// Flickr's base58 for `https://flic.kr/p/{id}` short URLs: alphabet without `0 O I l`,
/// most significant digit first.
public enum Base58 {
    static let alphabet: [Character] = Array("123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ")
    static let index: [Character: UInt64] = {
        var d: [Character: UInt64] = [:]
        for (i, c) in alphabet.enumerated() { d[c] = UInt64(i) }
        return d
    }()

    /// Encodes a photo id.
    public static func encode(_ value: UInt64) -> String {
        if value == 0 { return String(alphabet[0]) }
        var n = value
        var out: [Character] = []
        while n > 0 {
            out.append(alphabet[Int(n % 58)])
            n /= 58
        }
        return String(out.reversed())
    }

    /// Decodes a short id; nil for characters outside the alphabet or overflow.
    public static func decode(_ string: String) -> UInt64? {
        guard !string.isEmpty else { return nil }
        var n: UInt64 = 0
        for c in string {
            guard let d = index[c] else { return nil }
            let (m, o1) = n.multipliedReportingOverflow(by: 58)
            let (s, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            n = s
        }
        return n
    }
}
