/// A value with an empty form (`[]`, `[:]`, a default struct).
protocol EmptyInitializable { init() }

extension Array: EmptyInitializable {}
extension Dictionary: EmptyInitializable {}

/// A stored property that decodes as empty when its key is absent, so state files written
/// before the property existed still load (Swift's synthesized `Decodable` requires every
/// non-optional key).
@propertyWrapper
struct DecodedOrEmpty<Value: Codable & Sendable & Hashable & EmptyInitializable>: Codable, Sendable, Hashable {
    var wrappedValue: Value

    init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Value.self)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    /// Picked by synthesized `init(from:)` for ``DecodedOrEmpty`` properties: absent → empty.
    func decode<V>(_ type: DecodedOrEmpty<V>.Type, forKey key: Key) throws -> DecodedOrEmpty<V> {
        try decodeIfPresent(type, forKey: key) ?? DecodedOrEmpty(wrappedValue: V())
    }
}
