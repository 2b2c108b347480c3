/// Flickr's tag strings (setTags, addTags, upload `tags`) and tag forms.
///
/// A tag string is space-separated; double quotes group words (`Amsterdam "central station"`),
/// and a quote may open inside a word. Each tag has a raw form (as typed) and a clean form
/// (lower-cased, only letters and digits kept; a machine tag keeps `namespace:predicate=` and
/// cleans its value). Tags that clean alike collapse, the first raw form wins.
public enum TagString {
    /// The raw tags of a tag string, de-duplicated by clean form.
    ///
    /// Read scalar by scalar, not by `Character`: a quote or a space followed by a combining
    /// mark is one `Character` in Swift, but still a quote or a space to Flickr. (Found by the
    /// `tags` fuzz target: `a"` + U+06DC kept the quote inside the tag, and join dropped it.)
    public static func parse(_ string: String) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for raw in tokens(string) {
            let clean = self.clean(raw)
            guard !clean.isEmpty, seen.insert(clean).inserted else { continue }
            result.append(raw)
        }
        return result
    }

    /// The words of a tag string that Flickr stores as no tag at all: no letter or digit in
    /// them (`📷`, `--`), so their clean form is empty. ``parse(_:)`` leaves them out, as
    /// Flickr does; a caller that must not lose a tag silently refuses them first.
    public static func unstorable(in string: String) -> [String] {
        tokens(string).filter { clean($0).isEmpty }
    }

    /// How Flickr would store `raw` given as one tag (``join(_:)`` then ``parse(_:)``): without
    /// double quotes (a tag cannot hold one; they only group words) and without the spaces
    /// around it; nil when it would store nothing (``unstorable(in:)``).
    public static func stored(_ raw: String) -> String? {
        parse(join([raw])).first
    }

    /// The tags of a tag string, trimmed, before empty and duplicate ones are dropped.
    private static func tokens(_ string: String) -> [String] {
        var tags: [String] = []
        var current = String.UnicodeScalarView()
        var inQuotes = false
        var started = false
        func flush() {
            if started, !current.isEmpty { tags.append(String(current)) }
            current = String.UnicodeScalarView()
            started = false
        }
        for scalar in string.unicodeScalars {
            if scalar == "\"" {
                inQuotes.toggle()
                started = true
            } else if !inQuotes && isSeparator(scalar) {
                flush()
            } else {
                current.append(scalar)
                started = true
            }
        }
        flush()
        return tags.map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }

    /// A tag string for `tags`: a tag holding anything ``parse(_:)`` separates on (a space, a
    /// tab, a line break) is quoted, so that parsing the string gives the tags back. (Found by
    /// the `tags` fuzz target: a tag with a line break in it came back as two.)
    public static func join(_ tags: [String]) -> String {
        tags.map { tag in
            let t = tag.replacingAll("\"", with: "")
            return t.unicodeScalars.contains(where: isSeparator) ? "\"" + t + "\"" : t
        }.joined(separator: " ")
    }

    /// What separates tags outside quotes: a space, a tab, a line break. ``join(_:)`` quotes
    /// a tag holding one, so the two must agree.
    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    /// `(namespace, predicate, value)` when `raw` is a machine tag `ns:pred=value`.
    public static func machineTagParts(_ raw: String) -> (namespace: String, predicate: String, value: String)? {
        guard let colon = raw.firstIndex(of: ":") else { return nil }
        let ns = raw[..<colon]
        let rest = raw[raw.index(after: colon)...]
        guard let eq = rest.firstIndex(of: "=") else { return nil }
        let pred = rest[..<eq]
        let value = rest[rest.index(after: eq)...]
        guard isMachineName(ns), isMachineName(pred), !value.isEmpty else { return nil }
        return (String(ns), String(pred), String(value))
    }

    /// True when `raw` is a machine tag.
    public static func isMachineTag(_ raw: String) -> Bool { machineTagParts(raw) != nil }

    /// The clean form of one raw tag.
    public static func clean(_ raw: String) -> String {
        if let (ns, pred, value) = machineTagParts(raw) {
            return ns.lowercased() + ":" + pred.lowercased() + "=" + cleanWord(value)
        }
        return cleanWord(raw)
    }

    private static func cleanWord<S: StringProtocol>(_ s: S) -> String {
        var out = ""
        for ch in s.lowercased() where ch.isLetter || ch.isNumber {
            out.append(ch)
        }
        return out
    }

    /// Namespaces and predicates: a letter `a-z`, then `a-z 0-9 _` (case-insensitive).
    private static func isMachineName<S: StringProtocol>(_ s: S) -> Bool {
        guard let first = s.utf8.first else { return false }
        let lower = first | 0x20
        guard lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z") else { return false }
        return s.utf8.allSatisfy { b in
            let l = b | 0x20
            return (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (scalars, as ``TagString/parse(_:)`` reads).
    func trimmingSpaces() -> String {
        var s = Substring(self).unicodeScalars
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
