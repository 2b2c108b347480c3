/// A JSON value, the one type for JSON on both sides of the wire: what ``FlickrJSON`` decodes a
/// body into and renders a tree from, and what an emulator can build Flickr's JSON answers with.
///
/// Objects keep their members in the order given (Flickr's JSON keeps the XML order and puts
/// `stat` last). Decoded objects come with their members in key order: `JSONDecoder` does not
/// report the document's.
public indirect enum JSONValue: Sendable, Equatable, Decodable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case number(Int)
    /// A number with a fraction or an exponent, or one beyond `Int`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object: its members in order, names not necessarily unique.
    case object([(String, JSONValue)])

    /// Equal values; objects are equal when their members are, in the same order.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.double(x), .double(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    // MARK: Decoding

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any JSON value; an object's members come sorted by name (see the type's note).
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = .object(try keyed.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
                (key.stringValue, try keyed.decode(JSONValue.self, forKey: key))
            })
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? single.decode(Int64.self), let n = Int(exactly: i) {
            self = .number(n)
        } else if let d = try? single.decode(Double.self) {
            self = .double(d)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    // MARK: Rendering

    /// JSON text. `sortedKeys` orders each object's members by key (stable output for tools
    /// like jq); `pretty` indents by two spaces; `escapingSlashes` writes `/` as `\/`, as
    /// Flickr's own JSON does (`https:\/\/live.staticflickr.com…`).
    public func render(sortedKeys: Bool = false, pretty: Bool = false, escapingSlashes: Bool = false) -> String {
        var out = ""
        write(to: &out, sorted: sortedKeys, pretty: pretty, slashes: escapingSlashes, indent: 0)
        return out
    }

    private func write(to out: inout String, sorted: Bool, pretty: Bool, slashes: Bool, indent: Int) {
        let nl = pretty ? "\n" : ""
        func pad(_ n: Int) -> String { pretty ? String(repeating: "  ", count: n) : "" }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += String(n)
        case .double(let d): out += d.isFinite ? "\(d)" : "null"
        case .string(let s): out += Self.quote(s, escapingSlashes: slashes)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, item) in items.enumerated() {
                out += pad(indent + 1)
                item.write(to: &out, sorted: sorted, pretty: pretty, slashes: slashes, indent: indent + 1)
                out += (i < items.count - 1 ? "," : "") + nl
            }
            out += pad(indent) + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            let ordered = sorted ? members.sorted { $0.0 < $1.0 } : members
            out += "{" + nl
            for (i, member) in ordered.enumerated() {
                out += pad(indent + 1) + Self.quote(member.0, escapingSlashes: slashes) + (pretty ? ": " : ":")
                member.1.write(to: &out, sorted: sorted, pretty: pretty, slashes: slashes, indent: indent + 1)
                out += (i < ordered.count - 1 ? "," : "") + nl
            }
            out += pad(indent) + "}"
        }
    }

    /// A JSON string literal (control characters and DEL as `\uXXXX`); with `escapingSlashes`,
    /// `/` becomes `\/`.
    public static func quote(_ s: String, escapingSlashes: Bool = false) -> String {
        var out = ""
        appendQuoted(s, to: &out, escapingSlashes: escapingSlashes)
        return out
    }

    /// ``quote(_:escapingSlashes:)`` appended to `out`. A string with nothing to escape (most
    /// are) is copied whole: `flickr find --json` writes millions of them.
    public static func appendQuoted(_ s: String, to out: inout String, escapingSlashes: Bool = false) {
        out += "\""
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || ($0 == 0x2F && escapingSlashes) }) else {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where escapingSlashes: out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // DEL too: valid JSON either way, and visible in a diff or a terminal.
            case _ where u.value < 0x20 || u.value == 0x7F:
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}
