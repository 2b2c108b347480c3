import CFlickrXML
import Foundation

/// Why a body could not be mapped.
public struct FlickrParseError: Error, Sendable, CustomStringConvertible {
    /// What the parser reported, e.g. "Opening and ending tag mismatch: photo line 1 and rsp".
    public var message: String
    /// 1-based line of the problem, when known.
    public var line: Int?

    public init(message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String {
        line.map { "\(message) (line \($0))" } ?? message
    }
}

/// Flickr XML → ``FlickrNode``, on libxml2's SAX2 push parser.
///
/// Safety (enforced in CFlickrXML): a document with a DTD (`<!DOCTYPE …>`) is refused before any entity is declared, so
/// external entities are never resolved and entity-expansion bombs fail at once; entity
/// substitution (`XML_PARSE_NOENT`) stays off and network access is off (`XML_PARSE_NONET`).
/// With substitution off libxml2 reports `&amp;` inside attribute values as the literal `&#38;`;
/// the builder turns that back into `&` (no other source of that text is possible).
public enum FlickrXML {
    /// Maps `bytes`. When the root element is `<rsp>`, the result is its map (so `stat` is a
    /// top-level key); any other root `r` gives `{r: …}`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, rule: ListRule) throws(FlickrParseError) -> FlickrNode {
        guard !bytes.isEmpty else { throw FlickrParseError(message: "empty document") }
        var builder = XMLTreeBuilder(rule: rule)
        try builder.run(bytes)
        return builder.result()
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

/// One parse: a stack of open elements, each collecting its attributes, text and children.
///
/// A struct reached by the C callbacks through a pointer (not a class): the hot path pays no
/// reference counting on the builder and no dynamic exclusivity checks.
struct XMLTreeBuilder {
    struct Frame {
        var name: String
        var map: FlickrMap
        var text: [UInt8]
        var hasChildren: Bool
        /// ``ListRule/emptyListChild(of:)`` for this element's name.
        var emptyListChild: String?
    }

    /// A name as the builder needs it: the String and its list facts, made once per parse.
    struct NameEntry {
        var name: String
        var emptyListChild: String?
    }

    let rule: ListRule
    var stack: [Frame] = []
    var names = InternedNames<NameEntry>()
    var rootName: String?
    var root: FlickrNode?

    init(rule: ListRule) {
        self.rule = rule
        stack.reserveCapacity(16)
    }

    func result() -> FlickrNode {
        guard let root else { return .map(FlickrMap()) }
        if rootName == "rsp" { return root }
        return .map(FlickrMap(keys: [rootName ?? "root"], values: [root]))
    }

    mutating func run(_ bytes: UnsafeRawBufferPointer) throws(FlickrParseError) {
        var handlers = fx_handlers(start_element: saxStartElement, end_element: saxEndElement,
                                   characters: saxCharacters)
        var message = [CChar](repeating: 0, count: 256)
        var line: Int32 = 0
        let rc = withUnsafeMutablePointer(to: &self) { me in
            fx_parse(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count, &handlers, me,
                     &message, message.count, &line)
        }
        if rc != 0 {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw FlickrParseError(message: text.isEmpty ? "malformed XML" : text, line: line > 0 ? Int(line) : nil)
        }
        if root == nil { throw FlickrParseError(message: "no root element") }
    }

    /// The name at `p` (and its list facts), cached per parse (see ``InternedNames``).
    @inline(__always)
    mutating func nameEntry(_ p: UnsafePointer<CChar>) -> NameEntry {
        let rule = self.rule
        let make = { (p: UnsafePointer<CChar>) -> NameEntry in
            let name = String(cString: p)
            return NameEntry(name: name, emptyListChild: rule.emptyListChild(of: name))
        }
        let slot = names.slot(p, make: make)
        return slot >= 0 ? names[slot] : make(p)
    }

    @inline(__always)
    mutating func start(name pointer: UnsafePointer<CChar>, attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?, count: Int) {
        let element = nameEntry(pointer)
        var map = FlickrMap()
        if count > 0, let attributes {
            map.reserveCapacity(count + 1)
            for i in 0..<count {
                let base = attributes + i * 3
                guard let localname = base[0], let value = base[1], let end = base[2] else { continue }
                let key = nameEntry(localname).name
                let buffer = UnsafeRawBufferPointer(start: value, count: end - value)
                var string = String(decoding: buffer, as: UTF8.self)
                if memchr(value, Int32(UInt8(ascii: "&")), buffer.count) != nil {
                    string = string.replacingAll("&#38;", with: "&")
                }
                map.appendUnchecked(key, .string(string))
            }
        }
        if !stack.isEmpty { stack[stack.count - 1].hasChildren = true }
        stack.append(Frame(name: element.name, map: map, text: [], hasChildren: false, emptyListChild: element.emptyListChild))
    }

    @inline(__always)
    mutating func characters(_ p: UnsafePointer<CChar>, _ n: Int) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
    }

    mutating func end() {
        guard var frame = stack.popLast() else { return }
        if !frame.text.isEmpty, !frame.text.allSatisfy(Self.isSpace) {
            frame.map[FlickrNode.textKey] = .string(String(decoding: frame.text, as: UTF8.self))
        }
        if frame.hasChildren {
            for i in 0..<frame.map.keys.count {
                if case .map = frame.map.values[i], rule.isList(parent: frame.name, child: frame.map.keys[i]) {
                    frame.map.replaceValue(at: i, with: .list([frame.map.values[i]]))
                }
            }
        }
        if let child = frame.emptyListChild, frame.map.index(forKey: child) == nil {
            frame.map.appendUnchecked(child, .list([]))
        }
        let node = FlickrNode.map(frame.map)
        guard !stack.isEmpty else {
            root = node
            rootName = frame.name
            return
        }
        Self.add(node, named: frame.name, to: &stack[stack.count - 1].map)
    }

    /// Adds a child element to its parent's map: first occurrence as itself, repeats as a list.
    @inline(__always)
    static func add(_ node: FlickrNode, named name: String, to map: inout FlickrMap) {
        guard let i = map.index(forKey: name) else {
            map.appendUnchecked(name, node)
            return
        }
        switch map.values[i] {
        case .list(var items):
            // Drop the map's reference first so that the append does not copy the array.
            map.replaceValue(at: i, with: .string(""))
            items.append(node)
            map.replaceValue(at: i, with: .list(items))
        case .map(let first):
            map.replaceValue(at: i, with: .list([.map(first), node]))
        case .string(let attribute):
            // An attribute and a child element share a name: keep both, the attribute as "@name".
            map.replaceValue(at: i, with: node)
            map["@" + name] = .string(attribute)
        }
    }

    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
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

// MARK: - SAX callbacks (C function pointers; a pointer to the builder travels as user data)

@inline(__always)
private func builder(_ ctx: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLTreeBuilder> {
    ctx!.assumingMemoryBound(to: XMLTreeBuilder.self)
}

private let saxStartElement: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32,
                                             UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Void = { ctx, name, n, attrs in
    guard let name else { return }
    builder(ctx).pointee.start(name: name, attributes: attrs, count: Int(n))
}

private let saxEndElement: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
    builder(ctx).pointee.end()
}

private let saxCharacters: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32) -> Void = { ctx, ch, len in
    guard let ch, len > 0 else { return }
    builder(ctx).pointee.characters(ch, Int(len))
}
