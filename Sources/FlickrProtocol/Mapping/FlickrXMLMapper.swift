/// Where a closed element goes in its parent, as the mapping rules decide.
public enum FlickrXMLPlacement: Sendable, Equatable {
    /// The document's root element.
    case root
    /// `parent[name] = element` (the first child of that name, not a list).
    case field
    /// The parent has an attribute of the same name: it moves to `"@name"`, then `parent[name] = element`.
    case fieldOverAttribute
    /// `parent[name] = [element]`: the rule says this child is a list even when alone.
    case newList
    /// As ``newList``, and the parent's attribute of the same name moves to `"@name"` first.
    case newListOverAttribute
    /// `parent[name]` held one element: it becomes `[that, element]`.
    case listFromField
    /// `parent[name]` is a list: `element` is appended.
    case append
}

/// What a mapping builds — a ``FlickrNode`` tree, Lua tables — told by ``FlickrXMLMapper``
/// what to do, the rules already applied. Names are the sink's own tokens (an index into its
/// table of names), made once per distinct name.
public protocol FlickrXMLSink: AnyObject {
    /// The token for a name not seen before in this parse (element, attribute, or a list
    /// name the rules add).
    func makeName(_ name: String) -> Int
    /// An element opens; its attributes follow.
    func begin(element: Int, attributeCount: Int)
    /// An attribute of the element just begun (the value is valid only during the call).
    func attribute(_ name: Int, value: UnsafeRawBufferPointer)
    /// The open element closes: `text` is its text (nil when it has none or only whitespace),
    /// `emptyList` a child name to give an empty list (when a plural element has no such child),
    /// `placement` where the element goes in its parent.
    func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement)
}

/// The Flickr mapping rules, once, for every sink (README "Responses"): attributes → string
/// fields; element text → `_text`, whitespace-only text dropped; a child element → a field, an
/// array when it repeats or the ``ListRule`` says so; an empty plural element gets its empty
/// list; an attribute and a child of the same name keep the attribute as `@name`.
public final class FlickrXMLMapper: FlickrXMLEventHandler {
    /// A name as the rules need it: the sink's token and, for element names, the child that
    /// gets an empty list (``ListRule/emptyListChild(of:)``, resolved to a token).
    struct Name {
        var token: Int
        var text: String
        var emptyListChild: Int?
    }

    struct Frame {
        var name: Int                                   // index into `entries`
        var attributes: [Int] = []                      // tokens
        var children: [(token: Int, isList: Bool)] = []
        var textStart: Int                              // where its text starts in `text`
    }

    let rule: ListRule
    let sink: any FlickrXMLSink
    private var entries: [Name] = []
    private var byPointer = InternedNames<Int>()        // interned name pointer → index into `entries`
    private var byText: [String: Int] = [:]             // name text → index into `entries`
    private var listFacts: [Int: Bool] = [:]            // (parent token, child token) → isList
    private var frames: [Frame] = []
    private var text: [UInt8] = []                      // the open elements' text, innermost last
    /// The root element's name once the document has ended.
    public private(set) var rootName: String?

    private init(rule: ListRule, sink: any FlickrXMLSink) {
        self.rule = rule
        self.sink = sink
        frames.reserveCapacity(16)
        text.reserveCapacity(256)
    }

    /// Parses `bytes` and tells `sink` what to build; returns the root element's name.
    @discardableResult
    public static func map(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink) throws(FlickrParseError) -> String {
        let mapper = FlickrXMLMapper(rule: rule, sink: sink)
        try FlickrXMLParser.parse(bytes, handler: mapper)
        guard let root = mapper.rootName else { throw FlickrParseError(message: "no root element") }
        return root
    }

    /// The entry of a name by its text, made (with its sink token) when new.
    private func entry(text name: String) -> Int {
        if let i = byText[name] { return i }
        let token = sink.makeName(name)
        entries.append(Name(token: token, text: name, emptyListChild: nil))
        let i = entries.count - 1
        byText[name] = i
        if let child = rule.emptyListChild(of: name) { entries[i].emptyListChild = entries[entry(text: child)].token }
        return i
    }

    /// The entry of an interned name pointer (a pointer comparison after the first time).
    @inline(__always)
    private func entry(_ p: UnsafePointer<CChar>) -> Int {
        let slot = byPointer.slot(p) { p in entry(text: String(cString: p)) }
        return slot >= 0 ? byPointer[slot] : entry(text: String(cString: p))
    }

    public func startElement(_ name: UnsafePointer<CChar>, attributes: FlickrXMLAttributes) {
        let element = entry(name)
        sink.begin(element: entries[element].token, attributeCount: attributes.count)
        var frame = Frame(name: element, textStart: text.count)
        if attributes.count > 0 {
            frame.attributes.reserveCapacity(attributes.count)
            for i in 0..<attributes.count {
                guard let key = attributes.name(at: i) else { continue }
                let token = entries[entry(key)].token
                frame.attributes.append(token)
                attributes.withValue(at: i) { sink.attribute(token, value: $0) }
            }
        }
        frames.append(frame)
    }

    public func characters(_ piece: UnsafeRawBufferPointer) {
        guard !frames.isEmpty else { return }
        text.append(contentsOf: piece)
    }

    public func endElement() {
        guard let frame = frames.popLast() else { return }
        let name = entries[frame.name]
        var emptyList: Int?
        if let child = name.emptyListChild, !frame.attributes.contains(child), !frame.children.contains(where: { $0.token == child }) {
            emptyList = child
        }
        let placement = place(name.token, text: name.text)
        let hasText = text[frame.textStart...].contains { !Self.isSpace($0) }
        if hasText {
            text.withUnsafeBytes { all in
                sink.end(element: name.token, text: UnsafeRawBufferPointer(rebasing: all[frame.textStart...]),
                         emptyList: emptyList, placement: placement)
            }
        } else {
            sink.end(element: name.token, text: nil, emptyList: emptyList, placement: placement)
        }
        text.removeSubrange(frame.textStart...)
        if frames.isEmpty { rootName = name.text }
    }

    /// Where the element `token` goes in the innermost open element; records it there.
    private func place(_ token: Int, text name: String) -> FlickrXMLPlacement {
        guard !frames.isEmpty else { return .root }
        let parent = frames.count - 1
        if let i = frames[parent].children.firstIndex(where: { $0.token == token }) {
            if frames[parent].children[i].isList { return .append }
            frames[parent].children[i].isList = true
            return .listFromField
        }
        let key = entries[frames[parent].name].token << 24 | token
        let isList: Bool
        if let known = listFacts[key] {
            isList = known
        } else {
            isList = rule.isList(parent: entries[frames[parent].name].text, child: name)
            listFacts[key] = isList
        }
        frames[parent].children.append((token, isList))
        let clash = frames[parent].attributes.contains(token)
        if isList { return clash ? .newListOverAttribute : .newList }
        return clash ? .fieldOverAttribute : .field
    }

    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}
