import FlickrAPI
import FlickrProtocol
import Foundation
import LuaKit

/// Lua arguments → Flickr's string parameters (LUA-API.md, "Calling methods"): strings as they
/// are; integers in decimal; floats in their shortest exact form (an integral float without
/// `.0`); booleans "1"/"0"; arrays comma-joined (`tags` of the tag-writing methods as Flickr's
/// quoted tag string). Anything else is a usage error naming the argument.
enum ArgumentConversion {
    /// Methods (and upload fields) whose `tags` argument is a space-separated, quoted tag string.
    static let tagStringMethods: Set<String> = [
        "flickr.photos.setTags", "flickr.photos.addTags", "upload", "replace",
    ]

    /// Reads the argument table at `index` (absent/nil → no arguments), sorted by name.
    /// `skip` names fields that are options of the helper rather than Flickr parameters.
    static func parameters(at index: Int32, in state: LuaState, method: String,
                           skip: Set<String> = []) throws(FlickrError) -> [(String, String)] {
        switch state.type(at: index) {
        case .nil, .none: return []
        case .table: break
        default:
            throw FlickrError.usage("bad argument #1 (table of arguments expected, got \(state.typeName(at: index)))",
                                    method: method)
        }
        var out: [(String, String)] = []
        try state.forEachRawEntry(inTableAt: index) { (e) throws(FlickrError) -> Bool in
            guard state.type(at: e.keyIndex) == .string, let keyBytes = state.bytes(at: e.keyIndex) else {
                // The key is a copy: showing a number key as text cannot disturb the traversal.
                let shown = state.type(at: e.keyIndex) == .number ? "[\(state.string(at: e.keyIndex) ?? "?")]"
                                                                  : "of type \(state.typeName(at: e.keyIndex))"
                throw FlickrError.usage("bad argument \(shown): argument names must be strings (use name = value)",
                                        method: method)
            }
            let key = try text(keyBytes, name: nil, method: method)
            if !skip.contains(key) {
                out.append((key, try string(at: e.valueIndex, in: state, name: key, method: method)))
            }
            return true
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// One parameter value as a string.
    static func string(at index: Int32, in state: LuaState, name: String, method: String) throws(FlickrError) -> String {
        if let scalar = try scalar(at: index, in: state, name: name, method: method) { return scalar }
        guard state.type(at: index) == .table else {
            throw FlickrError.usage("bad argument '\(name)': a \(state.typeName(at: index)) cannot be sent "
                                    + "(use a string, number, boolean or array)", method: method)
        }
        let t = state.absoluteIndex(index)
        let n = state.rawLength(at: t)
        var elements: [String] = []
        var count: Int64 = 0
        state.forEachRawEntry(inTableAt: t) { _ in
            count += 1
            return true
        }
        guard count == n else {
            throw FlickrError.usage("bad argument '\(name)': only arrays (keys 1…n) can be sent, not a table with other keys",
                                    method: method)
        }
        // An empty table would go as "": an argument given by mistake, never what was meant.
        guard n > 0 else {
            throw FlickrError.usage("bad argument '\(name)': an empty table cannot be sent "
                                    + "(expected a string or number, or an array with at least one element)", method: method)
        }
        var i: Int64 = 1
        while i <= n {
            state.rawGet(index: i, in: t)
            guard let s = try scalar(at: -1, in: state, name: name, method: method) else {
                let type = state.typeName(at: -1)
                state.pop()
                throw FlickrError.usage("bad argument '\(name)': element \(i) is a \(type); "
                                        + "arrays may hold only strings, numbers and booleans", method: method)
            }
            state.pop()
            elements.append(s)
            i += 1
        }
        if name == "tags", tagStringMethods.contains(method) {
            // Each element is one tag: what Flickr would store differently is refused, not changed.
            for (i, tag) in elements.enumerated() where TagString.stored(tag) != tag.trimmingCharacters(in: .whitespaces) {
                let why = TagString.stored(tag).map { "Flickr would store it as '\($0)' (a tag cannot hold a double quote)" }
                    ?? "it has no letter or digit, so Flickr would not store it"
                throw FlickrError.usage("bad argument 'tags': element \(i + 1) '\(tag)': \(why)", method: method)
            }
            return TagString.join(elements)
        }
        return elements.joined(separator: ",")
    }

    private static func scalar(at index: Int32, in state: LuaState, name: String, method: String) throws(FlickrError) -> String? {
        switch state.type(at: index) {
        case .string: return try state.bytes(at: index).map { (bytes) throws(FlickrError) in try text(bytes, name: name, method: method) }
        case .number:
            if state.isInteger(at: index) { return state.integer(at: index).map(String.init) }
            return state.number(at: index).map(format)
        case .boolean: return state.boolean(at: index) ? "1" : "0"
        default: return nil
        }
    }

    /// Lua string bytes as text; bytes that are not UTF-8 are a usage error naming the argument
    /// (`name`, or nil for an argument's name), never silently replaced: Flickr would store
    /// U+FFFD and, in a tag string, could lose the tag after it.
    static func text(_ bytes: some Collection<UInt8>, name: String?, method: String) throws(FlickrError) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        let offset = invalidUTF8Offset(bytes)
        let bad = bytes[bytes.index(bytes.startIndex, offsetBy: min(offset, bytes.count - 1))]
        let what = name.map { "bad argument '\($0)'" } ?? "bad argument name"
        throw FlickrError.usage(what + ": not valid UTF-8 (byte 0x" + String(bad, radix: 16, uppercase: true)
                                + " at offset \(offset)); Lua strings are bytes: save the script as UTF-8, "
                                + "or write characters as \"\\u{E9}\"", method: method)
    }

    /// Offset of the first sequence that is not UTF-8 (0 when none is found, which the caller
    /// rules out).
    private static func invalidUTF8Offset(_ bytes: some Collection<UInt8>) -> Int {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return 0
            case .error: return offset
            }
        }
    }

    /// A float without a spurious `.0`: `250.0` → "250", `48.8566` → "48.8566".
    static func format(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 9.007199254740992e15 { return String(Int64(d)) }
        return "\(d)"
    }
}
