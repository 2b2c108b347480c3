import FlickrAPI
import FlickrProtocol
import LuaKit

/// Flickr XML straight into Lua tables: the ``FlickrXMLSink`` that ``FlickrXMLMapper`` drives
/// (the rules live there, once), building tables from the parser's buffers — no Swift tree and
/// no Swift strings for values in between. The tables equal those ``ResponseMapping`` builds
/// from the parsed tree (FlickrLuaTests checks both paths on every catalog example).
///
/// Stack discipline: a table of name strings sits at the bottom (`namesTable`; a name token is
/// its index there, so each distinct name becomes a Lua string once); above it every open
/// element is one table, in document order; a closing element's table is stored into its parent
/// (one below it) and popped.
final class LuaTableSink: FlickrXMLSink {
    /// What the callbacks change, held through a pointer: a class's stored properties would pay
    /// a dynamic exclusivity check on every attribute (see ``FlickrXMLMapper``).
    private struct Names {
        var texts: [String] = []
        /// Token of `_text`, made on first use.
        var textToken: Int?
        /// The first failure (the Lua stack could not grow); everything after it is ignored.
        var failure: LuaError?
    }

    private let state: LuaState
    private let namesTable: Int32
    private let n: UnsafeMutablePointer<Names>
    var failure: LuaError? { n.pointee.failure }

    /// [-0, +1] Creates the sink and pushes its names table.
    fileprivate init(state: LuaState) {
        self.state = state
        state.newTable(array: 32)
        namesTable = state.top
        n = .allocate(capacity: 1)
        n.initialize(to: Names())
    }

    deinit {
        n.deinitialize(count: 1)
        n.deallocate()
    }

    /// [-0, +1] Parses `bytes` and pushes the mapped response.
    static func push(_ bytes: UnsafeRawBufferPointer, onto state: LuaState,
                     rule: ListRule = MethodCatalog.listRule) throws(FlickrError) {
        let top = state.top
        guard state.ensureStack(8) else { throw FlickrError(kind: .parse, message: "Lua stack overflow") }
        let sink = LuaTableSink(state: state)
        let outcome: Result<String, FlickrParseError> = state.withCollectorPaused {
            do throws(FlickrParseError) {
                return .success(try FlickrXML.map(bytes, rule: rule, into: sink))
            } catch {
                return .failure(error)
            }
        }
        let rootName: String
        switch outcome {
        case .success(let name) where sink.failure == nil && state.top == top + 2:
            rootName = name
        case .success:
            state.setTop(top)
            throw FlickrError(kind: .parse, message: "malformed response: " + (sink.failure?.message ?? "no root element"))
        case .failure(let error):
            state.setTop(top)
            throw FlickrError(kind: .parse, message: "malformed response: " + error.description)
        }
        state.remove(at: sink.namesTable)
        if rootName != "rsp" {  // another root r gives { r = … }
            state.newTable(record: 1)
            state.pushCopy(of: -2)
            state.rawSet(field: rootName, in: -2)
            state.remove(at: -2)
        }
    }

    /// [-0, +0] Maps `bytes` into tables held in the registry: a call's answer, built on the
    /// Lua thread while the call is still under the client's retry policy.
    static func tables(_ bytes: [UInt8], on state: LuaState) -> Result<LuaRef, FlickrError> {
        bytes.withUnsafeBytes { raw in
            do throws(FlickrError) {
                try push(raw, onto: state)
                return .success(LuaRef(popping: state))
            } catch {
                return .failure(error)
            }
        }
    }

    func makeName(_ name: String) -> Int {
        n.pointee.texts.append(name)
        state.push(name)
        state.rawSet(index: Int64(n.pointee.texts.count), in: namesTable)
        return n.pointee.texts.count - 1
    }

    /// [-0, +1] Pushes the name of `token`.
    @inline(__always)
    private func pushName(_ token: Int) {
        state.rawGet(index: Int64(token + 1), in: namesTable)
    }

    /// [-2, +0] `t[key] = value` for the table below them. The keys here are names (strings),
    /// so rawSet's refusal of nil/NaN keys cannot happen; were it to, it is recorded.
    @inline(__always)
    private func set(in table: Int32) {
        do { try state.rawSet(in: table) } catch { n.pointee.failure = n.pointee.failure ?? error }
    }

    /// [-0, +1] A new table for an element of `count` attributes; false (nothing pushed) after
    /// a failure or when the stack cannot grow.
    private func open(count: Int) -> Bool {
        guard n.pointee.failure == nil else { return false }
        guard state.ensureStack(6) else {
            n.pointee.failure = LuaError(kind: .conversion, message: "response nests too deep")
            return false
        }
        state.newTable(record: Int32(count))
        return true
    }

    func begin(element: Int, attributes: FlickrXMLSinkAttributes) {
        guard open(count: attributes.count) else { return }
        guard let ranges = attributes.valueRanges else { return }
        // Values in one C loop; one holding `&` (its entity form) through the decoder.
        var i = 0
        while i < attributes.count {
            i = state.setStringFields(in: -1, names: namesTable, keys: attributes.tokens, ranges: ranges, stride: 3,
                                      from: i, stoppingAt: UInt8(ascii: "&"))
            guard i < attributes.count else { break }
            pushName(attributes.tokens[i])
            attributes.withValue(at: i) { state.push(bytes: $0) }
            set(in: -3)
            i += 1
        }
    }

    func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement) {
        guard n.pointee.failure == nil else { return }
        if let text {
            let token = n.pointee.textToken ?? makeName(FlickrNode.textKey)
            n.pointee.textToken = token
            pushName(token)
            state.push(bytes: text)
            set(in: -3)
        }
        if let emptyList {
            pushName(emptyList)
            state.newTable()
            set(in: -3)
        }
        switch placement {
        case .root:
            return                                            // stays on the stack: the result
        case .field:
            store(element)
        case .newList:
            wrapInList()
            store(element)
        case .fieldOverAttribute, .newListOverAttribute:
            moveAttribute(element)
            if placement == .newListOverAttribute { wrapInList() }
            store(element)
        case .listFromField:
            state.newTable(array: 2)                          // parent, child, list
            pushName(element)
            state.rawGet(in: -4)                              // parent, child, list, first
            state.rawSet(index: 1, in: -2)
            state.pushCopy(of: -2)
            state.rawSet(index: 2, in: -2)                    // parent, child, list
            state.remove(at: -2)                              // parent, list
            store(element)
        case .append:
            pushName(element)
            state.rawGet(in: -3)                              // parent, child, list
            let n = state.rawLength(at: -1)
            state.pushCopy(of: -2)
            state.rawSet(index: n + 1, in: -2)
            state.pop(2)
        }
    }

    /// [-1, +0] `parent[name] = top`, the parent just below.
    private func store(_ name: Int) {
        pushName(name)
        state.insert(at: -2)                                  // parent, key, value
        set(in: -3)
    }

    /// [-1, +1] The table on top, wrapped in a one-element array.
    private func wrapInList() {
        state.newTable(array: 1)
        state.insert(at: -2)
        state.rawSet(index: 1, in: -2)
    }

    /// [-0, +0] The parent's (below the child on top) attribute `name` moves to `"@name"`.
    private func moveAttribute(_ name: Int) {
        state.rawGet(field: n.pointee.texts[name], in: -2)     // parent, child, attribute
        state.rawSet(field: "@" + n.pointee.texts[name], in: -3)
    }
}

extension LuaState {
    /// [-0, +1] Parses Flickr XML and pushes it as nested tables, straight from the parser
    /// (the same tables as ``push(flickrNode:)`` of the parsed tree). A malformed document is a
    /// ``FlickrError`` of kind `parse` and pushes nothing.
    public func push(flickrXML bytes: UnsafeRawBufferPointer) throws(FlickrError) {
        try LuaTableSink.push(bytes, onto: self)
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
