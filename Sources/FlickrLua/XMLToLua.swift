import CFlickrXML
import FlickrAPI
import FlickrProtocol
import LuaKit

/// Flickr XML straight into Lua tables, from the parser's callbacks: no Swift tree and no Swift
/// strings in between (names and values go from libxml2's buffers to `lua_pushlstring`).
///
/// The rules are ``FlickrXML``'s, so the tables equal those ``ResponseMapping`` builds from the
/// parsed tree (FlickrLuaTests checks both paths on every catalog example): attributes → string
/// fields; element text → `_text`; a child element → a field, or an array when it repeats or
/// ``ListRule`` says so; an attribute and a child of the same name keep the attribute as `@name`;
/// an `<rsp>` root is the result itself, another root `r` gives `{r = …}`. The parser's safety
/// settings apply (no DTD, no entity expansion, no network).
///
/// Stack discipline: a table of name strings sits at the bottom (slot `names`); above it every
/// open element is one table, in document order; a closing element's table is stored into its
/// parent's (one below it) and popped.
final class XMLToLua {
    private struct Frame {
        var name: String
        /// Child element names stored so far, and whether each is an array.
        var children: [(name: String, isList: Bool)] = []
        var text: [UInt8] = []
    }

    /// libxml2 interns element and attribute names, so a name arrives as the same pointer every
    /// time: each distinct name becomes a Swift String and a Lua string once (kept in the names
    /// table at `index`), found again by pointer (open addressing, linear probing).
    /// A name as this builder needs it: the Swift String and the index of its Lua string in the
    /// names table.
    private struct Name {
        var text: String
        var index: Int64
    }

    private let state: LuaState
    private let rule: ListRule
    private var frames: [Frame] = []
    private var rootName: String?
    private var failure: LuaError?
    private var names = InternedNames<Name>()
    private var nameCount: Int64 = 0
    private var namesTable: Int32 = 0

    private init(state: LuaState, rule: ListRule) {
        self.state = state
        self.rule = rule
        frames.reserveCapacity(16)
    }

    /// The cache slot of the name at `p`, adding it (Swift and Lua strings) when new; -1 when
    /// the cache is full (more than 256 distinct names).
    @inline(__always)
    private func slot(_ p: UnsafePointer<CChar>) -> Int {
        names.slot(p) { p in
            nameCount += 1
            state.push(cString: p)
            state.rawSet(index: nameCount, in: namesTable)
            return Name(text: String(cString: p), index: nameCount)
        }
    }

    /// [-0, +1] Pushes the name at `p` as a Lua string.
    @inline(__always)
    private func pushName(_ p: UnsafePointer<CChar>) {
        let i = slot(p)
        if i >= 0 { state.rawGet(index: names[i].index, in: namesTable) } else { state.push(cString: p) }
    }

    /// The name at `p` as a Swift String.
    @inline(__always)
    private func name(_ p: UnsafePointer<CChar>) -> String {
        let i = slot(p)
        return i >= 0 ? names[i].text : String(cString: p)
    }

    /// [-0, +1] Parses `bytes` and pushes the mapped response.
    static func push(_ bytes: UnsafeRawBufferPointer, onto state: LuaState,
                     rule: ListRule = MethodCatalog.listRule) throws(FlickrError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw FlickrError(kind: .parse, message: "malformed response: empty document")
        }
        let top = state.top
        guard state.ensureStack(8) else { throw FlickrError(kind: .parse, message: "Lua stack overflow") }
        let builder = XMLToLua(state: state, rule: rule)
        state.newTable(array: 32)
        builder.namesTable = state.top
        var handlers = fx_handlers(start_element: xmlStart, end_element: xmlEnd, characters: xmlCharacters)
        var message = [CChar](repeating: 0, count: 256)
        var line: Int32 = 0
        let rc = state.withCollectorPaused {
            withExtendedLifetime(builder) {
                fx_parse(base.assumingMemoryBound(to: CChar.self), bytes.count, &handlers,
                         Unmanaged.passUnretained(builder).toOpaque(), &message, message.count, &line)
            }
        }
        if rc != 0 || builder.failure != nil || builder.rootName == nil || state.top != top + 2 {
            state.setTop(top)
            if let failure = builder.failure { throw FlickrError(kind: .parse, message: failure.message) }
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let detail = rc != 0 ? (text.isEmpty ? "malformed XML" : text) + (line > 0 ? " (line \(line))" : "") : "no root element"
            throw FlickrError(kind: .parse, message: "malformed response: " + detail)
        }
        state.remove(at: builder.namesTable)
        if builder.rootName != "rsp" {
            state.newTable(record: 1)
            state.pushCopy(of: -2)
            state.rawSet(field: builder.rootName ?? "root", in: -2)
            state.remove(at: -2)
        }
    }

    fileprivate func start(_ name: UnsafePointer<CChar>, _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) {
        guard failure == nil else { return }
        guard state.ensureStack(6) else {
            failure = LuaError(kind: .conversion, message: "response nests too deep")
            return
        }
        state.newTable(record: Int32(count))
        if count > 0, let attributes {
            for i in 0..<count {
                let entry = attributes + i * 3
                guard let key = entry[0], let value = entry[1], let end = entry[2] else { continue }
                pushName(key)
                Self.pushAttribute(UnsafeRawBufferPointer(start: value, count: end - value), onto: state)
                set()
            }
        }
        frames.append(Frame(name: self.name(name)))
    }

    /// [-2, +0] `t[key] = value` for the table below them; the keys here are always strings, so
    /// the only failure rawSet guards against cannot happen — recorded like any other if it did.
    private func set() {
        do { try state.rawSet(in: -3) } catch { failure = error }
    }

    fileprivate func characters(_ text: UnsafePointer<CChar>, _ count: Int) {
        guard failure == nil, !frames.isEmpty else { return }
        frames[frames.count - 1].text.append(contentsOf: UnsafeRawBufferPointer(start: text, count: count))
    }

    fileprivate func end() {
        guard failure == nil, var frame = frames.popLast() else { return }
        if !frame.text.isEmpty, !frame.text.allSatisfy(Self.isSpace) {
            state.push(FlickrNode.textKey)
            state.push(bytes: frame.text)
            set()
        }
        if let child = rule.emptyListChild(of: frame.name) {
            if state.rawGet(field: child, in: -1) == .nil {
                state.pop()
                state.push(child)
                state.newTable()
                set()
            } else {
                state.pop()
            }
        }
        guard !frames.isEmpty else {
            rootName = frame.name
            return
        }
        add(named: frame.name)
    }

    /// Stores the table on top into its parent (just below) under `name`, and pops it.
    private func add(named name: String) {
        let parent = frames.count - 1
        if let i = frames[parent].children.firstIndex(where: { $0.name == name }) {
            // A repeat: the field becomes (or already is) an array.
            if frames[parent].children[i].isList {
                state.rawGet(field: name, in: -2)             // parent, child, list
                let n = state.rawLength(at: -1)
                state.pushCopy(of: -2)
                state.rawSet(index: n + 1, in: -2)
                state.pop(2)
            } else {
                state.newTable(array: 2)                       // parent, child, list
                state.rawGet(field: name, in: -3)
                state.rawSet(index: 1, in: -2)
                state.pushCopy(of: -2)
                state.rawSet(index: 2, in: -2)
                state.rawSet(field: name, in: -3)
                state.pop()
                frames[parent].children[i].isList = true
            }
            return
        }
        // The first child of this name; an attribute of the same name moves to "@name".
        if state.rawGet(field: name, in: -2) != .nil {
            state.rawSet(field: "@" + name, in: -3)
        } else {
            state.pop()
        }
        let isList = rule.isList(parent: frames[parent].name, child: name)
        if isList {
            state.newTable(array: 1)
            state.insert(at: -2)
            state.rawSet(index: 1, in: -2)
        }
        state.rawSet(field: name, in: -2)
        frames[parent].children.append((name, isList))
    }

    /// With entity substitution off, libxml2 reports `&amp;` in attribute values as `&#38;`.
    private static func pushAttribute(_ value: UnsafeRawBufferPointer, onto state: LuaState) {
        guard value.contains(UInt8(ascii: "&")) else {
            state.push(bytes: value)
            return
        }
        let pattern: [UInt8] = Array("&#38;".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        var i = 0
        while i < value.count {
            if value[i] == pattern[0], i + pattern.count <= value.count,
               value[i..<(i + pattern.count)].elementsEqual(pattern) {
                out.append(UInt8(ascii: "&"))
                i += pattern.count
            } else {
                out.append(value[i])
                i += 1
            }
        }
        state.push(bytes: out)
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}

@inline(__always)
private func builder(_ ctx: UnsafeMutableRawPointer?) -> XMLToLua {
    Unmanaged<XMLToLua>.fromOpaque(ctx!).takeUnretainedValue()
}

private let xmlStart: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32,
                                      UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Void = { ctx, name, n, attributes in
    guard let name else { return }
    builder(ctx).start(name, Int(n), attributes)
}

private let xmlEnd: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
    builder(ctx).end()
}

private let xmlCharacters: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32) -> Void = { ctx, text, n in
    guard let text, n > 0 else { return }
    builder(ctx).characters(text, Int(n))
}

extension LuaState {
    /// [-0, +1] Parses Flickr XML and pushes it as nested tables, straight from the parser
    /// (the same tables as ``push(flickrNode:)`` of the parsed tree). A malformed document is a
    /// ``FlickrError`` of kind `parse` and pushes nothing.
    public func push(flickrXML bytes: UnsafeRawBufferPointer) throws(FlickrError) {
        try XMLToLua.push(bytes, onto: self)
    }

    /// [-1, +1] … the bytes of a Lua string at `index`; see ``push(flickrXML:)-(UnsafeRawBufferPointer)``.
    public func push(flickrXMLAt index: Int32) throws(FlickrError) {
        guard let bytes = bytes(at: index) else {
            throw FlickrError(kind: .usage, message: "XML text expected, got \(typeName(at: index))")
        }
        let result: Result<Void, FlickrError> = bytes.withUnsafeBytes { raw in
            do throws(FlickrError) {
                try push(flickrXML: raw)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
