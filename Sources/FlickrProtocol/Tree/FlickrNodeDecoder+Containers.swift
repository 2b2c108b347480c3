import Foundation

/// A coding key for a list index or a key met in the tree.
struct NodeCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

/// The `Decoder` ``FlickrNodeDecoder`` hands to `init(from:)`: one node and where it is.
struct NodeDecoding: Decoder {
    let node: FlickrNode
    let codingPath: [any CodingKey]
    let options: FlickrNodeDecoder
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch node {
        case .map(let m): return KeyedDecodingContainer(NodeKeyedContainer<Key>(map: m, decoder: self))
        // An element with nothing but text, mapped to a string: its text is its only key.
        case .string(let s): return KeyedDecodingContainer(NodeKeyedContainer<Key>(map: [FlickrNode.textKey: .string(s)], decoder: self))
        case .list:
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath,
                                                                       debugDescription: "expected a map, found a list"))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        NodeUnkeyedContainer(items: node.array, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { NodeSingleValue(decoder: self) }

    func child(_ node: FlickrNode, key: any CodingKey) -> NodeDecoding {
        NodeDecoding(node: node, codingPath: codingPath + [key], options: options)
    }

    /// The value of this node as `T`: scalars from Flickr's strings, anything else through its
    /// own `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return try scalar("a string") { $0 } as! T }
        if T.self == Substring.self { return try scalar("a string") { Substring($0) } as! T }
        if T.self == Bool.self { return try scalar("a flag (1/0, true/false)", FlickrNode.flag) as! T }
        if T.self == Int.self { return try integer(Int.self) as! T }
        if T.self == Int64.self { return try integer(Int64.self) as! T }
        if T.self == Int32.self { return try integer(Int32.self) as! T }
        if T.self == Int16.self { return try integer(Int16.self) as! T }
        if T.self == Int8.self { return try integer(Int8.self) as! T }
        if T.self == UInt.self { return try integer(UInt.self) as! T }
        if T.self == UInt64.self { return try integer(UInt64.self) as! T }
        if T.self == UInt32.self { return try integer(UInt32.self) as! T }
        if T.self == UInt16.self { return try integer(UInt16.self) as! T }
        if T.self == UInt8.self { return try integer(UInt8.self) as! T }
        if T.self == Double.self { return try scalar("a number") { Double($0.trimmingCharacters(in: .whitespaces)) } as! T }
        if T.self == Float.self { return try scalar("a number") { Float($0.trimmingCharacters(in: .whitespaces)) } as! T }
        if T.self == Date.self {
            return try scalar("a date (a Unix timestamp or YYYY-MM-DD HH:MM:SS)", FlickrDateFormat.date(fromAny:)) as! T
        }
        if T.self == URL.self { return try scalar("a URL") { URL(string: $0) } as! T }
        return try T(from: self)
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try scalar("a whole number (\(I.self))") { I($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The node's string read by `read`; a type mismatch naming `expected` when there is none
    /// or `read` refuses it.
    func scalar<V>(_ expected: String, _ read: (String) -> V?) throws -> V {
        guard let text = node.string else {
            let found = switch node {
            case .list: "a list"
            case .map: "a map without text"
            case .string: "a string"
            }
            throw DecodingError.typeMismatch(V.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(found)"))
        }
        guard let value = read(text) else {
            throw DecodingError.typeMismatch(V.self, .init(codingPath: codingPath,
                                                          debugDescription: "expected \(expected), found \(FlickrJSON.quote(text))"))
        }
        return value
    }

    /// Whether an optional `T` reads this node as nil: an empty value for any type but a string.
    func isEmptyValue<T>(for type: T.Type) -> Bool {
        guard case .string(let s) = node, s.isEmpty else { return false }
        return T.self != String.self && T.self != Substring.self
    }
}

/// The keys of one map, matched by the decoder's key strategy.
struct NodeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let map: FlickrMap
    let decoder: NodeDecoding
    /// Coding-key name → Flickr key (built once per container).
    private let names: [String: String]

    init(map: FlickrMap, decoder: NodeDecoding) {
        self.map = map
        self.decoder = decoder
        var names: [String: String] = [:]
        for key in map.keys {
            for name in decoder.options.swiftNames(for: key) where names[name] == nil { names[name] = key }
        }
        self.names = names
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        map.keys.compactMap { key in decoder.options.swiftNames(for: key).lazy.compactMap { Key(stringValue: $0) }.first }
    }

    /// The node a key names; `_content` and `_text` both read the element's text.
    private func value(for key: Key) -> FlickrNode? {
        let name = key.stringValue
        if let flickrKey = names[name], let v = map[flickrKey] { return v }
        if name == FlickrNode.textKey || name == FlickrNode.jsonTextKey {
            return map[FlickrNode.textKey] ?? map[FlickrNode.jsonTextKey]
        }
        return nil
    }

    private func required(_ key: Key) throws -> FlickrNode {
        guard let v = value(for: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                                                       debugDescription: "no value for \(FlickrJSON.quote(key.stringValue))"
                                                           + " (keys here: \(map.keys.joined(separator: ", ")))"))
        }
        return v
    }

    func contains(_ key: Key) -> Bool { value(for: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { value(for: key) == nil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.child(try required(key), key: key).decodeValue(T.self)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try optional(T.self, key) }

    /// A present value as `T`, nil for a missing key or (but for strings) an empty value.
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let v = value(for: key) else { return nil }
        let child = decoder.child(v, key: key)
        if child.isEmptyValue(for: T.self) { return nil }
        return try child.decodeValue(T.self)
    }

    // The primitive forms read as the generic one does (an empty value is nil for each).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try required(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try required(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(.map(map), key: NodeCodingKey(stringValue: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(try required(key), key: key)
    }
}

/// The elements of a list (or of a single element read as a list of one).
struct NodeUnkeyedContainer: UnkeyedDecodingContainer {
    let items: [FlickrNode]
    let decoder: NodeDecoding
    var currentIndex = 0

    init(items: [FlickrNode], decoder: NodeDecoding) {
        self.items = items
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next(_ type: Any.Type) throws -> NodeDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [NodeCodingKey(intValue: currentIndex)],
                                                          debugDescription: "the list has only \(items.count) elements"))
        }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], key: NodeCodingKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .string("") = items[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(T.self).decodeValue(T.self) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}

/// One value.
struct NodeSingleValue: SingleValueDecodingContainer {
    let decoder: NodeDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(T.self) }
}
