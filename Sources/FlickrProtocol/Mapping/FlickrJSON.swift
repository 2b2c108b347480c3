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
            return node(try JSONDecoder().decode(JSONValue.self, from: payload))
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

    /// A decoded JSON value as a tree, scalars as strings (see above).
    public static func node(_ value: JSONValue) -> FlickrNode {
        switch value {
        case .null: return .string("")
        case .bool(let b): return .string(b ? "1" : "0")
        case .number(let n): return .string(String(n))
        case .double(let d): return .string(d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d))
        case .string(let s): return .string(s)
        case .array(let items): return .list(items.map(node))
        case .object(let members):
            var map = FlickrMap()
            for (key, member) in members { map[key] = node(member) }
            return .map(map)
        }
    }

    /// A tree as a JSON value: strings, arrays, objects (members in the tree's order).
    public static func value(_ node: FlickrNode) -> JSONValue {
        switch node {
        case .string(let s): return .string(s)
        case .list(let items): return .array(items.map(value))
        case .map(let m): return .object(m.indices.map { (m.keys[$0], value(m.values[$0])) })
        }
    }

    /// JSON text for a tree. `sortedKeys` gives stable output for tools like jq.
    public static func serialize(_ node: FlickrNode, sortedKeys: Bool = true, pretty: Bool = false) -> String {
        value(node).render(sortedKeys: sortedKeys, pretty: pretty)
    }

    /// A JSON string literal (``JSONValue/quote(_:escapingSlashes:)``). With `escapeSlash`, `/`
    /// becomes `\/` as Flickr's own JSON has it (`https:\/\/live.staticflickr.com…`).
    public static func quote(_ s: String, escapeSlash: Bool = false) -> String {
        JSONValue.quote(s, escapingSlashes: escapeSlash)
    }
}
