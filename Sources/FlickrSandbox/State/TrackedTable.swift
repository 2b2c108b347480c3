/// A dictionary that remembers which keys were set or removed since the changes were last
/// taken, so that `--state` writes exactly the records a request changed (a 100,000-photo world
/// is never rewritten for one edit). Encodes as the plain dictionary; the change set is not
/// part of the value (two tables with the same entries are equal).
struct TrackedTable<Value: Codable & Sendable & Hashable>: Sendable, Hashable, Codable, EmptyInitializable,
    ExpressibleByDictionaryLiteral {
    private(set) var storage: [String: Value]
    private var changed: Set<String> = []

    init() { storage = [:] }

    init(dictionaryLiteral elements: (String, Value)...) {
        storage = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    init(from decoder: any Decoder) throws {
        storage = try decoder.singleValueContainer().decode([String: Value].self)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(storage)
    }

    static func == (a: Self, b: Self) -> Bool { a.storage == b.storage }
    func hash(into hasher: inout Hasher) { hasher.combine(storage) }

    subscript(key: String) -> Value? {
        get { storage[key] }
        set {
            storage[key] = newValue
            changed.insert(key)
        }
    }

    var values: Dictionary<String, Value>.Values { storage.values }
    var keys: Dictionary<String, Value>.Keys { storage.keys }
    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// The keys set or removed since the last call, and forgets them.
    mutating func takeChanges() -> Set<String> {
        defer { changed = [] }
        return changed
    }
}
