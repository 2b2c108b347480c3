import Foundation

/// JSON written a piece at a time, so that a plan of any size goes out in bounded memory: an
/// object's members in key order, one per line, an array's elements each on its own line as
/// they are read. Values are Foundation objects (`JSONSerialization`'s), written with sorted
/// keys; text already JSON (a change as the journal stores it) is written as it is.
public enum JSONText {
    /// A member of an object ``write(_:indent:to:)`` writes.
    public enum Member {
        case value(Any)
        /// An array whose elements (each JSON text) are handed to the function given.
        case array((_ element: (String) throws -> Void) throws -> Void)
        /// An object written by the function given (to this output, at this indent).
        case object((_ emit: (String) throws -> Void, _ indent: String) throws -> Void)
    }

    /// `value` as compact JSON text: sorted keys, slashes as they are.
    public static func text(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]) else {
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// JSON text read back as Foundation objects (NSNull when it is not JSON).
    public static func parsed(_ text: String) -> Any {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? NSNull()
    }

    /// An object as compact JSON text, with `raw`'s members (text already JSON) among `fields`,
    /// all in key order.
    public static func object(_ fields: [String: Any], raw: [String: String]) -> String {
        let keys = Set(fields.keys).union(raw.keys).sorted()
        return "{" + keys.map { key in text(key) + ":" + (raw[key] ?? text(fields[key]!)) }.joined(separator: ",") + "}"
    }

    /// Writes an object, its members in key order, each on its own line under `indent`; an
    /// array member's elements each on a line of their own. Ends without a newline.
    public static func write(_ members: [String: Member], indent: String = "", to emit: (String) throws -> Void) throws {
        let keys = members.keys.sorted()
        let inner = indent + "  "
        try emit("{\n")
        for (i, key) in keys.enumerated() {
            let comma = i == keys.count - 1 ? "\n" : ",\n"
            try emit(inner + text(key) + ": ")
            switch members[key]! {
            case .value(let value):
                try emit(text(value))
            case .array(let elements):
                var count = 0
                try emit("[")
                try elements { element in
                    try emit((count == 0 ? "\n" : ",\n") + inner + "  " + element)
                    count += 1
                }
                try emit(count == 0 ? "]" : "\n" + inner + "]")
            case .object(let body):
                try body(emit, inner)
            }
            try emit(comma)
        }
        try emit(indent + "}")
    }
}
