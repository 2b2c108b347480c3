import Foundation

/// Flickr JSON (`format=json`, with or without `nojsoncallback=1`) → ``FlickrNode``, and the
/// tree back to JSON text.
///
/// Flickr's JSON mixes numbers and strings for the same field across years (`"total":"15849"`
/// vs `"total":112301`). The tree keeps scalars as strings the way the XML format does: numbers
/// in their shortest form, booleans as `"1"`/`"0"` (XML's `machine_tag="0"`), null as `""`.
public enum FlickrJSON {
    /// Parses a body, stripping a `jsonFlickrApi(…)` (or any `callback(…)`) wrapper.
    public static func parse(_ data: Data) throws(FlickrParseError) -> FlickrNode {
        let payload = unwrapJSONP(data)
        guard !payload.isEmpty else { throw FlickrParseError(message: "empty document") }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: payload).node
        } catch let error as DecodingError {
            throw FlickrParseError(message: "malformed JSON: \(Self.describe(error))")
        } catch {
            throw FlickrParseError(message: "malformed JSON: \(error)")
        }
    }

    /// The JSON inside `name(…)` (trailing `;` and whitespace allowed), or the data unchanged.
    public static func unwrapJSONP(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var start = 0
        while start < bytes.count, FlickrXMLMapper.isSpace(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] != UInt8(ascii: "{"), bytes[start] != UInt8(ascii: "[") else {
            return data
        }
        guard let open = bytes[start...].firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close > open else { return data }
        return Data(bytes[(open + 1)..<close])
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            return (c.underlyingError as NSError?)?.localizedDescription ?? c.debugDescription
        @unknown default:
            return "\(error)"
        }
    }

    /// JSON text for a tree. `sortedKeys` gives stable output for tools like jq.
    public static func serialize(_ node: FlickrNode, sortedKeys: Bool = true, pretty: Bool = false) -> String {
        var out = ""
        write(node, to: &out, sorted: sortedKeys, pretty: pretty, indent: 0)
        return out
    }

    private static func write(_ node: FlickrNode, to out: inout String, sorted: Bool, pretty: Bool, indent: Int) {
        let nl = pretty ? "\n" : ""
        func pad(_ n: Int) -> String { pretty ? String(repeating: "  ", count: n) : "" }
        switch node {
        case .string(let s):
            out += quote(s)
        case .list(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, item) in items.enumerated() {
                out += pad(indent + 1)
                write(item, to: &out, sorted: sorted, pretty: pretty, indent: indent + 1)
                out += (i < items.count - 1 ? "," : "") + nl
            }
            out += pad(indent) + "]"
        case .map(let m):
            if m.isEmpty { out += "{}"; return }
            var order = Array(m.indices)
            if sorted { order.sort { m.keys[$0] < m.keys[$1] } }
            out += "{" + nl
            for (n, i) in order.enumerated() {
                out += pad(indent + 1) + quote(m.keys[i]) + (pretty ? ": " : ":")
                write(m.values[i], to: &out, sorted: sorted, pretty: pretty, indent: indent + 1)
                out += (n < order.count - 1 ? "," : "") + nl
            }
            out += pad(indent) + "}"
        }
    }

    /// A JSON string literal. With `escapeSlash`, `/` becomes `\/` as Flickr's own JSON has it
    /// (`https:\/\/live.staticflickr.com…`).
    public static func quote(_ s: String, escapeSlash: Bool = false) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where escapeSlash: out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

/// Decodes any JSON value into a ``FlickrNode``.
private struct JSONValue: Decodable {
    let node: FlickrNode

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var map = FlickrMap()
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                map[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key).node
            }
            node = .map(map)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [FlickrNode] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValue.self).node) }
            node = .list(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            node = .string("")
        } else if let b = try? single.decode(Bool.self) {
            node = .string(b ? "1" : "0")
        } else if let i = try? single.decode(Int64.self) {
            node = .string(String(i))
        } else if let d = try? single.decode(Double.self) {
            node = .string(d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d))
        } else {
            node = .string(try single.decode(String.self))
        }
    }
}
