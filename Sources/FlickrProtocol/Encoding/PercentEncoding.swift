/// Percent-encoding as OAuth 1.0a (RFC 5849 §3.6) and Flickr want it.
///
/// Only the RFC 3986 unreserved characters `A-Z a-z 0-9 - . _ ~` stay as they are; every other
/// byte of the UTF-8 form becomes `%XX` with upper-case hex. A space is `%20`, never `+`.
/// Foundation's `.urlQueryAllowed` is *not* this set (it keeps `+ & = ? /`), which is the classic
/// source of `signature_invalid`.
package enum PercentEncoding {
    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    @inline(__always)
    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Encodes `string` (as UTF-8) per RFC 3986 unreserved-only rules.
    package static func encode(_ string: String) -> String {
        encode(string, keeping: isUnreserved)
    }

    /// Encodes `string` as one path segment: as ``encode(_:)``, but `@` and `:` stay as they are
    /// (RFC 3986 §3.3 allows both in a segment), so that an NSID in a page URL reads
    /// `12037949754@N01`, as Flickr writes it.
    package static func encodePathSegment(_ string: String) -> String {
        encode(string) { isUnreserved($0) || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: ":") }
    }

    /// `%XX` for every byte of `string` that `keep` refuses.
    @inline(__always)
    private static func encode(_ string: String, keeping keep: (UInt8) -> Bool) -> String {
        let utf8 = string.utf8
        if utf8.allSatisfy(keep) { return string }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3)
        append(utf8, to: &out, keeping: keep)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` (UTF-8) to `out`, as ``encode(_:)`` would make it: for
    /// building a longer text (a query, a signature base string) without a string per piece.
    @inline(__always)
    package static func append(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        append(bytes, to: &out, keeping: isUnreserved)
    }

    @inline(__always)
    private static func append(_ bytes: some Sequence<UInt8>, to out: inout [UInt8], keeping keep: (UInt8) -> Bool) {
        for b in bytes {
            if keep(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
    }

    /// Decodes `%XX` sequences; with `plusAsSpace` (HTML form encoding) `+` becomes a space.
    /// Invalid escapes are kept literally; invalid UTF-8 is repaired with U+FFFD.
    package static func decode(_ string: Substring, plusAsSpace: Bool = false) -> String {
        let utf8 = Array(string.utf8)
        if !utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(string)
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            if b == UInt8(ascii: "%"), i + 2 < utf8.count,
               let hi = hexValue(utf8[i + 1]), let lo = hexValue(utf8[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
                continue
            }
            out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a full string; see ``decode(_:plusAsSpace:)-(Substring,_)``.
    package static func decode(_ string: String, plusAsSpace: Bool = false) -> String {
        decode(string[...], plusAsSpace: plusAsSpace)
    }

    @inline(__always)
    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// `application/x-www-form-urlencoded` bodies and query strings, as ordered pairs.
///
/// Order and repeated keys are kept: OAuth signs every pair, duplicates included.
package enum FormEncoding {
    /// Parses `a=1&b=2&b=3` (a leading `?` is allowed). `+` means space, as HTML forms send it.
    package static func parse(_ string: String) -> [(String, String)] {
        var body = Substring(string)
        if body.first == "?" { body = body.dropFirst() }
        var result: [(String, String)] = []
        for piece in body.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = piece.firstIndex(of: "=") {
                result.append((PercentEncoding.decode(piece[..<eq], plusAsSpace: true),
                               PercentEncoding.decode(piece[piece.index(after: eq)...], plusAsSpace: true)))
            } else {
                result.append((PercentEncoding.decode(piece, plusAsSpace: true), ""))
            }
        }
        return result
    }

    /// Serialises pairs with RFC 3986 encoding (which any form decoder accepts).
    package static func serialize<S: Sequence>(_ pairs: S) -> String where S.Element == (String, String) {
        var out: [UInt8] = []
        out.reserveCapacity(pairs.underestimatedCount * 32)
        for (name, value) in pairs {
            if !out.isEmpty { out.append(UInt8(ascii: "&")) }
            PercentEncoding.append(name.utf8, to: &out)
            out.append(UInt8(ascii: "="))
            PercentEncoding.append(value.utf8, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
