/// A mapped Flickr response: strings, maps and lists — ObjectiveFlickr's "property list", as a
/// Sendable value.
///
/// XML is mapped by these rules (``FlickrXML``): attributes become string entries; the text of an
/// element becomes the entry ``FlickrNode/textKey`` (`_text`); a child element becomes a map
/// entry named after it, or a list when ``ListRule`` says so. JSON responses map to the same
/// type (``FlickrJSON``), keeping Flickr's `_content` key.
public enum FlickrNode: Sendable, Hashable {
    /// An attribute's value, a JSON string, or text standing alone.
    case string(String)
    /// An element (or JSON object): its attributes, text and children by name, in document order.
    case map(FlickrMap)
    /// Repeated elements (or a JSON array), in order.
    case list([FlickrNode])

    /// The key under which element text is stored (ObjectiveFlickr's `OFXMLTextContentKey`).
    public static let textKey = "_text"
    /// The key Flickr's JSON format uses for element text.
    public static let jsonTextKey = "_content"

    /// Value for a key of a map; nil for other kinds or a missing key.
    public subscript(key: String) -> FlickrNode? {
        guard case .map(let m) = self else { return nil }
        if let direct = m[key] { return direct }
        guard key.contains(".") else { return nil }
        return self[path: key.split(separator: ".").map(String.init)]
    }

    /// Element of a list (0-based); nil outside.
    public subscript(index: Int) -> FlickrNode? {
        guard case .list(let l) = self, l.indices.contains(index) else { return nil }
        return l[index]
    }

    /// Walks a key path. A numeric component indexes a list (0-based); a name applied to a list
    /// is applied to its first element only if the list has exactly one element.
    public subscript(path components: [String]) -> FlickrNode? {
        var node: FlickrNode? = self
        for c in components {
            guard let n = node else { return nil }
            switch n {
            case .map(let m): node = m[c]
            case .list(let l):
                if let i = Int(c) { node = l.indices.contains(i) ? l[i] : nil }
                else if l.count == 1 { node = l[0][c] }
                else { return nil }
            case .string: return nil
            }
        }
        return node
    }

    /// The text of this node: the string itself, or the `_text` / `_content` entry of a map.
    public var text: String? {
        switch self {
        case .string(let s): return s
        case .map(let m):
            if case .string(let s)? = m[Self.textKey] { return s }
            if case .string(let s)? = m[Self.jsonTextKey] { return s }
            return nil
        case .list: return nil
        }
    }

    /// The value as a string, however Flickr sent it: an attribute (`<photo title="…">`, a
    /// string node) or element text (`<title>…</title>`, the ``textKey`` entry; `_content` in
    /// JSON). The same as ``text``; nil for a list or a map without text.
    public var string: String? { text }

    /// The map when this is a map node.
    public var map: FlickrMap? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// The elements: a list's elements, or this node alone (tolerant one-or-many access).
    public var array: [FlickrNode] {
        if case .list(let l) = self { return l }
        return [self]
    }
}

/// An insertion-ordered string-keyed map. Flickr elements have few keys, so lookup is a linear
/// scan — cheaper to build than a hash table, which is what a response parser mostly does.
public struct FlickrMap: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// The keys, in insertion order.
    public private(set) var keys: [String]
    /// The values, in the order of ``keys``.
    public private(set) var values: [FlickrNode]

    /// An empty map.
    public init() {
        keys = []
        values = []
    }

    /// A map of `keys[i]` to `values[i]`; the two must have the same length (a precondition).
    public init(keys: [String], values: [FlickrNode]) {
        precondition(keys.count == values.count, "FlickrMap: keys and values differ in length")
        self.keys = keys
        self.values = values
    }

    /// A map from a literal (`["id": "1", "title": "Cat"]`); a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, FlickrNode)...) {
        self.init()
        for (k, v) in elements { self[k] = v }
    }

    /// The first entry's position: 0.
    public var startIndex: Int { 0 }
    /// The position after the last entry: the number of entries.
    public var endIndex: Int { keys.count }
    /// The entry at `position`, as a key and its value.
    public subscript(position: Int) -> (key: String, value: FlickrNode) { (keys[position], values[position]) }

    /// Index of `key`, if present.
    @inlinable public func index(forKey key: String) -> Int? { keys.firstIndex(of: key) }

    /// The value for `key`; assigning nil removes it.
    public subscript(key: String) -> FlickrNode? {
        get {
            guard let i = index(forKey: key) else { return nil }
            return values[i]
        }
        set {
            if let i = index(forKey: key) {
                if let newValue { values[i] = newValue } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends without checking for an existing key (the parser checks itself).
    @usableFromInline mutating func appendUnchecked(_ key: String, _ value: FlickrNode) {
        keys.append(key)
        values.append(value)
    }

    @usableFromInline mutating func replaceValue(at i: Int, with value: FlickrNode) { values[i] = value }
}

extension FlickrNode: CustomStringConvertible {
    /// A compact JSON-like rendering, keys in document order.
    public var description: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let s): out += FlickrJSON.quote(s)
        case .list(let l):
            out += "["
            for (i, e) in l.enumerated() {
                if i > 0 { out += "," }
                e.write(to: &out)
            }
            out += "]"
        case .map(let m):
            out += "{"
            for (i, e) in m.enumerated() {
                if i > 0 { out += "," }
                out += FlickrJSON.quote(e.key)
                out += ":"
                e.value.write(to: &out)
            }
            out += "}"
        }
    }
}

extension FlickrNode: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// A ``string(_:)`` node from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A ``list(_:)`` node from an array literal.
    public init(arrayLiteral elements: FlickrNode...) { self = .list(elements) }
    /// A ``map(_:)`` node from a dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, FlickrNode)...) {
        var m = FlickrMap()
        for (k, v) in elements { m[k] = v }
        self = .map(m)
    }
}
