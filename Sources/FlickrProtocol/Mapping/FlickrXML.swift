import Foundation

/// Why a body could not be mapped.
public struct FlickrParseError: Error, Sendable, CustomStringConvertible {
    /// What the parser reported, e.g. "Opening and ending tag mismatch: photo line 1 and rsp".
    public var message: String
    /// 1-based line of the problem, when known.
    public var line: Int?

    /// An error with the parser's `message` and, when known, its 1-based `line`.
    public init(message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    /// The form `description` shows: the message, then `(line N)` when the line is known.
    public var description: String {
        line.map { "\(message) (line \($0))" } ?? message
    }
}

/// Flickr XML → ``FlickrNode``: ``FlickrXMLMapper``'s rules into a tree (``FlickrTreeSink``),
/// on ``FlickrXMLParser`` (libxml2's SAX2 parser with its safety settings).
public enum FlickrXML {
    /// Maps `bytes`. When the root element is `<rsp>`, the result is its map (so `stat` is a
    /// top-level key); any other root `r` gives `{r: …}`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, rule: ListRule) throws(FlickrParseError) -> FlickrNode {
        let sink = FlickrTreeSink()
        let rootName = try map(bytes, rule: rule, into: sink)
        let root = sink.root ?? .map(FlickrMap())
        if rootName == "rsp" { return root }
        return .map(FlickrMap(keys: [rootName], values: [root]))
    }

    /// The one way XML is mapped, whatever the sink builds (this tree, Lua tables): libxml2's
    /// SAX events go through the rules (``FlickrXMLMapper``) straight into `sink`, on the
    /// calling thread. Returns the root element's name. (Parallelism belongs across calls:
    /// `flickr.map` and the jobs run several at once.)
    @discardableResult
    public static func map(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink) throws(FlickrParseError) -> String {
        try FlickrXMLMapper.map(bytes, rule: rule, into: sink)
    }

    /// Maps `bytes`; see ``parse(_:rule:)-(UnsafeRawBufferPointer,_)``.
    public static func parse<C: ContiguousBytes>(_ bytes: C, rule: ListRule) throws(FlickrParseError) -> FlickrNode {
        let result: Result<FlickrNode, FlickrParseError> = bytes.withUnsafeBytes { raw in
            do throws(FlickrParseError) { return .success(try parse(raw, rule: rule)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Maps a string.
    public static func parse(_ string: String, rule: ListRule) throws(FlickrParseError) -> FlickrNode {
        try parse(Array(string.utf8), rule: rule)
    }
}

/// Builds the ``FlickrNode`` tree: a stack of open maps, each closed map placed in its parent
/// as ``FlickrXMLMapper`` says.
package final class FlickrTreeSink: FlickrXMLSink {
    /// Held through a pointer: a class's stored properties would pay a dynamic exclusivity
    /// check on every attribute (see ``FlickrXMLMapper``).
    struct State {
        var names: [String] = []
        var stack: [FlickrMap] = []
        var root: FlickrNode?
        /// By element token: the attribute tokens its last element had, and the keys array
        /// made for them (``keys(of:_:)``).
        var lastKeys: [(tokens: [Int], keys: [String])?] = []
    }

    private let s: UnsafeMutablePointer<State>
    var root: FlickrNode? { s.pointee.root }

    package init() {
        s = .allocate(capacity: 1)
        s.initialize(to: State())
        s.pointee.stack.reserveCapacity(16)
    }

    deinit {
        s.deinitialize(count: 1)
        s.deallocate()
    }

    package func makeName(_ name: String) -> Int {
        s.pointee.names.append(name)
        return s.pointee.names.count - 1
    }

    package func begin(element: Int, attributes: FlickrXMLSinkAttributes) {
        var values: [FlickrNode] = []
        values.reserveCapacity(attributes.count + 2)
        for i in 0..<attributes.count where attributes.tokens[i] >= 0 {
            values.append(.string(attributes.withValue(at: i) { String(decoding: $0, as: UTF8.self) }))
        }
        s.pointee.stack.append(FlickrMap(keys: keys(of: element, attributes.tokens), values: values))
    }

    /// The keys of an element with these attribute tokens: the very array the last element of
    /// this name got when its attributes were the same ones (every `<photo>` of a list), so the
    /// maps of a list share one keys array — no array and no retain of each name per element —
    /// until one of them gets a key of its own (a child, text), which copies it.
    private func keys(of element: Int, _ tokens: UnsafeBufferPointer<Int>) -> [String] {
        if element < s.pointee.lastKeys.count, let last = s.pointee.lastKeys[element], last.tokens.elementsEqual(tokens) {
            return last.keys
        }
        var keys: [String] = []
        keys.reserveCapacity(tokens.count)
        for token in tokens where token >= 0 { keys.append(s.pointee.names[token]) }
        while s.pointee.lastKeys.count <= element { s.pointee.lastKeys.append(nil) }
        s.pointee.lastKeys[element] = (Array(tokens), keys)
        return keys
    }

    package func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement) {
        var map = s.pointee.stack.removeLast()
        if let text { map[FlickrNode.textKey] = .string(String(decoding: text, as: UTF8.self)) }
        if let emptyList { map.appendUnchecked(s.pointee.names[emptyList], .list([])) }
        let node = FlickrNode.map(map)
        guard placement != .root else {
            s.pointee.root = node
            return
        }
        let name = s.pointee.names[element]
        let parent = s.pointee.stack.count - 1
        switch placement {
        case .root:
            break
        case .field:
            s.pointee.stack[parent].appendUnchecked(name, node)
        case .newList:
            s.pointee.stack[parent].appendUnchecked(name, .list([node]))
        case .fieldOverAttribute, .newListOverAttribute:
            // The child takes the attribute's place; the attribute moves to "@name".
            guard let i = s.pointee.stack[parent].index(forKey: name) else { return }
            let attribute = s.pointee.stack[parent].values[i]
            s.pointee.stack[parent].replaceValue(at: i, with: placement == .newListOverAttribute ? .list([node]) : node)
            s.pointee.stack[parent]["@" + name] = attribute
        case .listFromField:
            guard let i = s.pointee.stack[parent].index(forKey: name) else { return }
            s.pointee.stack[parent].replaceValue(at: i, with: .list([s.pointee.stack[parent].values[i], node]))
        case .append:
            guard let i = s.pointee.stack[parent].index(forKey: name), case .list(var items) = s.pointee.stack[parent].values[i] else { return }
            // Drop the map's reference first so that the append does not copy the array.
            s.pointee.stack[parent].replaceValue(at: i, with: .string(""))
            items.append(node)
            s.pointee.stack[parent].replaceValue(at: i, with: .list(items))
        }
    }
}

extension String {
    /// Replaces every occurrence of `target` (non-empty) by `replacement`, without Foundation.
    func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8)
        let s = Array(utf8)
        guard !t.isEmpty, s.count >= t.count else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            if s[i] == t[0], i + t.count <= s.count, Array(s[i..<i + t.count]) == t {
                out.append(contentsOf: replacement.utf8)
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
