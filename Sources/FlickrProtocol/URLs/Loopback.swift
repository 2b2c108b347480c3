/// Whether a host or URL names this machine — the one test of the client's defaults (no rate
/// limit, no shared budget against a loopback endpoint) and of `flickr-sandbox --host`.
///
/// Loopback is 127.0.0.0/8 written as a dotted quad, `::1` in any of its IPv6 spellings, with or
/// without brackets (`[::1]`, `0:0:0:0:0:0:0:1`), and `localhost` in any case. Nothing else is:
/// not `127.example.org`, not `localhost.example.org`, not `0.0.0.0`.
package enum Loopback {
    /// `host` as written in a URL or given to `--host` (brackets around an IPv6 address allowed).
    package static func isLoopback(host: String) -> Bool {
        var h = Substring(host)
        if h.hasPrefix("["), h.hasSuffix("]") { h = h.dropFirst().dropLast() }
        let name = h.lowercased()
        if name == "localhost" { return true }
        if name.contains(":") { return isIPv6Loopback(name) }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The host of `url` (`scheme://[userinfo@]host[:port][/…]`); false when it has none.
    package static func isLoopback(url: String) -> Bool {
        guard let start = url.range(of: "://")?.upperBound else { return false }
        var authority = url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host = authority.hasPrefix("[")
            ? authority.prefix { $0 != "]" } + (authority.contains("]") ? "]" : "")
            : authority.prefix { $0 != ":" }
        return !host.isEmpty && isLoopback(host: String(host))
    }

    /// `::1` in any spelling: eight 16-bit groups (`::` standing for one or more zero groups),
    /// all zero but the last, which is 1.
    private static func isIPv6Loopback(_ text: String) -> Bool {
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            for g in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(g.count), let v = UInt16(g, radix: 16) else { return nil }
                out.append(v)
            }
            return out
        }
        let halves = text.components(separatedBy: "::")
        let words: [UInt16]
        switch halves.count {
        case 1:
            guard let all = groups(Substring(halves[0])), all.count == 8 else { return false }
            words = all
        case 2:
            guard let head = groups(Substring(halves[0])), let tail = groups(Substring(halves[1])),
                  head.count + tail.count <= 7 else { return false }
            words = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return false
        }
        return words.dropLast().allSatisfy { $0 == 0 } && words.last == 1
    }
}
