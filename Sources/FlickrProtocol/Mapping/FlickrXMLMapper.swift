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
    /// An element opens, with its attributes (valid only during the call).
    func begin(element: Int, attributes: FlickrXMLSinkAttributes)
    /// The open element closes: `text` is its text (nil when it has none or only whitespace),
    /// `emptyList` a child name to give an empty list (when a plural element has no such child),
    /// `placement` where the element goes in its parent.
    func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement)
}

/// The attributes of an element as a sink sees them: each name as the sink's token, each value
/// with its entity references decoded. One call per element hands them all over.
public struct FlickrXMLSinkAttributes {
    /// The token of each attribute's name.
    public let tokens: UnsafeBufferPointer<Int>
    @usableFromInline let raw: FlickrXMLAttributes

    /// How many attributes the element has.
    public var count: Int { tokens.count }

    /// libxml2's attribute layout, for consumers that read many values in one C loop: for
    /// attribute `i`, the value runs from `valueRanges[3 * i]` to `valueRanges[3 * i + 1]`
    /// (stride 3). Such a value may be raw: one holding `&` must be read through
    /// ``withValue(at:_:)``, which decodes it when needed.
    public var valueRanges: UnsafePointer<UnsafePointer<CChar>?>? {
        raw.base.map { UnsafePointer($0 + 1) }
    }

    /// The value of attribute `i` (valid only during `body`).
    @inlinable
    public func withValue<R>(at i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try raw.withValue(at: i, body)
    }
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
        /// The attribute names this element had last time (interned pointers) and their tokens:
        /// elements of one kind repeat one sequence (every <photo> has the same attributes), so
        /// a pointer comparison usually replaces a lookup per attribute.
        var lastAttributes: [(name: UnsafeRawPointer, token: Int)] = []
    }

    /// An open element. Its attribute tokens, child records and text live in three shared
    /// stacks (no allocation per element): each frame's part starts where it says and runs to
    /// the end while it is the innermost open element (inner ones are cut off when they close).
    struct Frame {
        var name: Int                                   // index into `entries`
        var attributeStart: Int                         // into `attributes`
        var attributeCount: Int
        var childStart: Int                             // into `children`
        var textStart: Int                              // into `text`
    }

    /// Everything a parse changes. Held through a pointer, not as stored properties of this
    /// class: the callbacks touch it for every element and attribute, and a class's stored
    /// properties would pay a dynamic exclusivity check on each access.
    struct State {
        var entries: [Name] = []
        var byPointer = InternedNames<(entry: Int, token: Int)>()  // interned name pointer → its entry and token
        var byText: [String: Int] = [:]             // name text → index into `entries`
        var listFacts: [Int: Bool] = [:]            // (parent token, child token) → isList
        var frames: [Frame] = []
        var attributes: [Int] = []                  // the open elements' attribute tokens
        var children: [(token: Int, isList: Bool)] = []  // the open elements' child names so far
        var text: [UInt8] = []                      // the open elements' text, innermost last
        var rootName: String?
    }

    let rule: ListRule
    let sink: any FlickrXMLSink
    private let state: UnsafeMutablePointer<State>
    /// The root element's name once the document has ended.
    public var rootName: String? { state.pointee.rootName }

    /// A mapper of one document into `sink`; ``map(_:rule:into:)`` makes one and parses.
    private init(rule: ListRule, sink: any FlickrXMLSink) {
        self.rule = rule
        self.sink = sink
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        state.pointee.frames.reserveCapacity(16)
        state.pointee.text.reserveCapacity(256)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
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
        if let i = state.pointee.byText[name] { return i }
        let token = sink.makeName(name)
        state.pointee.entries.append(Name(token: token, text: name, emptyListChild: nil))
        let i = state.pointee.entries.count - 1
        state.pointee.byText[name] = i
        if let child = rule.emptyListChild(of: name) { state.pointee.entries[i].emptyListChild = state.pointee.entries[entry(text: child)].token }
        return i
    }

    /// The entry index and sink token of an interned name pointer (a pointer comparison after
    /// the first time).
    @inline(__always)
    private func entry(_ p: UnsafePointer<CChar>) -> (entry: Int, token: Int) {
        let make = { (p: UnsafePointer<CChar>) -> (entry: Int, token: Int) in
            let i = self.entry(text: String(cString: p))
            return (i, self.state.pointee.entries[i].token)
        }
        let slot = state.pointee.byPointer.slot(p, make: make)
        return slot >= 0 ? state.pointee.byPointer[slot] : make(p)
    }

    /// Records the element's frame and hands its attributes, as tokens, to the sink's `begin`.
    public func startElement(_ name: UnsafePointer<CChar>, attributes: FlickrXMLAttributes) {
        let element = entry(name).entry
        let frame = Frame(name: element, attributeStart: state.pointee.attributes.count, attributeCount: attributes.count,
                          childStart: state.pointee.children.count, textStart: state.pointee.text.count)
        let count = attributes.count
        let known = state.pointee.entries[element].lastAttributes
        var same = known.count == count
        if same {
            for i in 0..<count where attributes.name(at: i).map(UnsafeRawPointer.init) != known[i].name {
                same = false
                break
            }
        }
        if same {
            for i in 0..<count { state.pointee.attributes.append(known[i].token) }
        } else {
            var seen: [(name: UnsafeRawPointer, token: Int)] = []
            seen.reserveCapacity(count)
            for i in 0..<count {
                // libxml2 always names an attribute; -1 would mark one without a name.
                let key = attributes.name(at: i)
                let token = key.map { entry($0).token } ?? -1
                state.pointee.attributes.append(token)
                if let key { seen.append((UnsafeRawPointer(key), token)) }
            }
            if seen.count == count { state.pointee.entries[element].lastAttributes = seen }
        }
        state.pointee.attributes.withUnsafeBufferPointer { all in
            let mine = UnsafeBufferPointer(rebasing: all[frame.attributeStart...])
            sink.begin(element: state.pointee.entries[element].token,
                       attributes: FlickrXMLSinkAttributes(tokens: mine, raw: attributes))
        }
        state.pointee.frames.append(frame)
    }

    /// Collects a piece of the open element's text (a piece outside any element is dropped).
    public func characters(_ piece: UnsafeRawBufferPointer) {
        guard !state.pointee.frames.isEmpty else { return }
        state.pointee.text.append(contentsOf: piece)
    }

    /// Decides where the closed element goes (``FlickrXMLPlacement``) and tells the sink's `end`.
    public func endElement() {
        guard let frame = state.pointee.frames.popLast() else { return }
        let name = state.pointee.entries[frame.name]
        var emptyList: Int?
        if let child = name.emptyListChild,
           !state.pointee.attributes[frame.attributeStart...].contains(child),
           !state.pointee.children[frame.childStart...].contains(where: { $0.token == child }) {
            emptyList = child
        }
        // Cut this element's part off the shared stacks: the parent's is on top again.
        state.pointee.attributes.removeSubrange(frame.attributeStart...)
        state.pointee.children.removeSubrange(frame.childStart...)
        let placement = place(name.token, text: name.text)
        let hasText = state.pointee.text[frame.textStart...].contains { !Self.isSpace($0) }
        if hasText {
            state.pointee.text.withUnsafeBytes { all in
                sink.end(element: name.token, text: UnsafeRawBufferPointer(rebasing: all[frame.textStart...]),
                         emptyList: emptyList, placement: placement)
            }
        } else {
            sink.end(element: name.token, text: nil, emptyList: emptyList, placement: placement)
        }
        state.pointee.text.removeSubrange(frame.textStart...)
        if state.pointee.frames.isEmpty { state.pointee.rootName = name.text }
    }

    /// Where the element `token` goes in the innermost open element; records it there.
    private func place(_ token: Int, text name: String) -> FlickrXMLPlacement {
        guard let frame = state.pointee.frames.last else { return .root }
        if let i = state.pointee.children[frame.childStart...].firstIndex(where: { $0.token == token }) {
            if state.pointee.children[i].isList { return .append }
            state.pointee.children[i].isList = true
            return .listFromField
        }
        let key = state.pointee.entries[frame.name].token << 24 | token
        let isList: Bool
        if let known = state.pointee.listFacts[key] {
            isList = known
        } else {
            isList = rule.isList(parent: state.pointee.entries[frame.name].text, child: name)
            state.pointee.listFacts[key] = isList
        }
        state.pointee.children.append((token, isList))
        let clash = state.pointee.attributes[frame.attributeStart..<(frame.attributeStart + frame.attributeCount)].contains(token)
        if isList { return clash ? .newListOverAttribute : .newList }
        return clash ? .fieldOverAttribute : .field
    }

    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}
