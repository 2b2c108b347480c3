/// The characters an XML 1.0 document can carry (`Char` of the XML specification, 2.2): tab, line
/// feed, carriage return and everything from U+0020 but U+FFFE and U+FFFF (Swift strings hold no
/// surrogates). Flickr drops the others from text it stores, so the sandbox does too, and its
/// documents never hold one: a title with `\u{0B}` or an escape character in it would make
/// every listing that shows it malformed.
enum XMLText {
    static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return true
        case 0x20...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// `s` without the characters XML cannot carry (itself when it has none, the usual case).
    static func storable(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { !allowed($0) }) else { return s }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s.unicodeScalars.filter(allowed))
        return String(out)
    }
}
