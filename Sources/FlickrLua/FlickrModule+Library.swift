import FlickrAPI
import FlickrJobs
import FlickrLibrary
import Foundation
import LuaKit
import Synchronization

/// The libraries queries have opened, by directory and endpoint: opening one (a pool, the
/// migrator, a write) costs more than a query, so each is opened once per process. A sync
/// from Lua forgets them (the endpoint's account may have changed).
private let openLibraries = Mutex<[String: LibraryStore]>([:])

/// The Swift half of `flickr.library` (the Lua half, in `lua/flickr/core.lua`, makes the
/// iterator):
///
///     flickr.library._sync{deep, full} [, fn]  → the summary; fn(done, total) as it goes, per phase
///     flickr.library._page(filter [, done, value, id]) → a page of photo tables in the filter's
///                                             order after the photo (value, id), and the next key
///     flickr.library.count(filter), sets(), status(), sql(query, …)
///
/// Queries read the library the last sync of this endpoint wrote; they never make a call.
extension FlickrModule {
    func installLibrary(_ state: LuaState, _ flickr: Int32) {
        state.newTable(record: 8)
        let library = state.top
        define(state, library, "_sync", path: "library.sync") { call in try self.syncLibrary(call) }
        define(state, library, "_page", path: "library.photos") { call in
            // _page(filter [, done, value, id]) → the next page (1,000 to 8,000 photo tables) after the
            // photo whose order value and id are given (the first page without an id), and the
            // key the page after starts from (nil, nil when this is the last); `done` photos
            // were given before, for the filter's limit.
            var filter = try Self.filter(call, at: 1, function: "library.photos")
            let done = call.type(2) == .number ? Int(try call.integer(2)) : 0
            var key: LibraryPageKey?
            if call.type(4) == .string {
                let value: LibraryValue? = switch call.type(3) {
                case .string: .string(try call.string(3))
                case .number: call.state.isInteger(at: 3) ? .integer(Int(try call.integer(3))) : .number(try call.number(3))
                default: nil
                }
                key = LibraryPageKey(value: value, id: try call.string(4))
            }
            // 1,000 photos first (a quick first row), then as many as were given, up to 8,000:
            // a filter whose order no index gives (views) sorts its rows once a page.
            let size = Swift.min(filter.limit.map { Swift.max(0, $0 - done) } ?? .max, Swift.min(8_000, Swift.max(1_000, done)))
            filter.limit = nil
            let state = call.state
            // The field names once on the stack, copied for each photo (no string interned 27
            // times a photo), and the page's photos above them until the page is whole: more
            // than the 20 slots Lua promises a C function.
            guard state.ensureStack(Int32(LibraryRecord.fieldNames.count + size) + 8) else {
                throw FlickrError.usage("library.photos: no room on the Lua stack", method: "library.photos")
            }
            let keys = state.top + 1
            for name in LibraryRecord.fieldNames { state.push(name) }
            var reader = LuaPageReader(state: state, keys: keys)
            let next = try self.library().page(filter, after: key, max: size, into: &reader)
            reader.finish()
            switch next?.value {
            case .string(let s)?: state.push(s)
            case .integer(let i)?: state.push(Int64(i))
            case .number(let d)?: state.push(d)
            default: state.pushNil()
            }
            if let next { state.push(next.id) } else { state.pushNil() }
            return .results(3)
        }
        define(state, library, "count", path: "library.count") { call in
            let filter = try Self.filter(call, at: 1, function: "library.count")
            call.state.push(Int64(try self.library().count(filter)))
            return .results(1)
        }
        define(state, library, "sets", path: "library.sets") { call in
            try call.state.push(LuaValue.array(try self.library().sets().map { s in
                var m: [LuaValue: LuaValue] = [
                    "id": .string(s.id), "title": .string(s.title), "description": .string(s.description),
                    "photos": .integer(Int64(s.photos)), "videos": .integer(Int64(s.videos)),
                    "members": .array(s.members.map { .string($0) }),
                ]
                if let p = s.primary { m["primary"] = .string(p) }
                if let d = s.dateUpdate { m["date_update"] = .integer(Int64(d)) }
                if let d = s.dateCreate { m["date_create"] = .integer(Int64(d)) }
                return .map(m)
            }))
            return .results(1)
        }
        define(state, library, "status", path: "library.status") { call in
            let s = try self.library().status()
            var m: [LuaValue: LuaValue] = [
                "account": .string(s.account), "path": .string(s.path), "schema_version": .integer(Int64(s.schemaVersion)),
                "photos": .integer(Int64(s.photos)), "deleted": .integer(Int64(s.deleted)), "deep": .integer(Int64(s.deep)),
                "sets": .integer(Int64(s.sets)), "complete": .boolean(s.lastSync != nil),
            ]
            if let last = s.lastSync { m["last_sync"] = .integer(Int64(last)) }
            try call.state.push(LuaValue.map(m))
            return .results(1)
        }
        define(state, library, "sql", path: "library.sql") { call in
            let query = try call.string(1)
            var arguments: [LibrarySQLValue] = []
            if call.argumentCount >= 2 {
                for i in 2...call.argumentCount {
                    switch try call.value(i) {
                    case .string(let s): arguments.append(.text(s.description))
                    case .integer(let n): arguments.append(.integer(n))
                    case .number(let d): arguments.append(.real(d))
                    case .boolean(let b): arguments.append(.integer(b ? 1 : 0))
                    case .nil: arguments.append(.null)
                    default: throw FlickrError.usage("bad argument #\(i) to library.sql: only strings, numbers, booleans and nil bind", method: "library.sql")
                    }
                }
            }
            let (columns, rows) = try self.library().sql(query, arguments)
            try call.state.push(LuaValue.array(rows.map { row in
                var m: [LuaValue: LuaValue] = [:]
                for (name, value) in zip(columns, row) {
                    switch value {
                    case .integer(let n): m[.string(name)] = .integer(n)
                    case .real(let d): m[.string(name)] = .number(d)
                    case .text(let s): m[.string(name)] = .string(s)
                    case .blob(let b): m[.string(name)] = .string(LuaString(bytes: b))
                    case .null: break
                    }
                }
                return .map(m)
            }))
            return .results(1)
        }
        state.rawSet(field: "library", in: flickr)
    }

    /// The library this session's endpoint synced (no call), opened once.
    func library() throws -> LibraryStore {
        let endpoint = client.context.endpoints.rest
        let key = LibraryStore.directory(environment: environment) + "\n" + endpoint
        if let store = openLibraries.withLock({ $0[key] }) { return store }
        do {
            let store = try LibraryStore.existing(endpoint: endpoint, environment: environment)
            openLibraries.withLock { $0[key] = store }
            return store
        } catch {
            throw FlickrError.usage(error.message, method: "library")
        }
    }

    private func syncLibrary(_ call: LuaCall) throws -> LuaReturn {
        var deep = false, full = false
        if let options = try LuaOptions.read(call, at: 1, function: "library.sync", known: ["deep", "full", "progress"]) {
            deep = try options.boolean("deep") ?? false
            full = try options.boolean("full") ?? false
        }
        var relay: ProgressRelay?
        if call.type(2) == .function {
            call.state.pushCopy(of: 2)
            relay = ProgressRelay(poster: call.state.jobPoster, callback: LuaRef(popping: call.state))
        }
        let (client, environment) = (self.client, self.environment)
        let jobs = try jobStore()
        let options = (deep: deep, full: full)
        let progressRelay = relay
        return asyncReturn("flickr.library.sync", {
            let nsid = try await LibrarySync.account(of: client)
            let store = try LibraryStore(path: LibraryStore.path(for: nsid, in: LibraryStore.directory(environment: environment)), account: nsid)
            LibraryStore.remember(nsid, endpoint: client.context.endpoints.rest, environment: environment)
            let lock = try store.lock(command: "flickr.library.sync", jobs: jobs)
            defer { withExtendedLifetime(lock) {} }
            var sync = LibrarySync(client: client, store: store)
            sync.deep = options.deep
            sync.full = options.full
            return try await sync.run(callsBefore: 1) { p in
                progressRelay?.report(sent: Int64(p.done), total: p.total.map(Int64.init))
            }
        }, deliver: { state, s in
            openLibraries.withLock { $0.removeAll() }
            try progressRelay?.finish(state)
            try state.push(LuaValue.map([
                "account": .string(s.account), "kind": .string(s.kind), "added": .integer(Int64(s.added)),
                "updated": .integer(Int64(s.updated)), "deleted": .integer(Int64(s.deleted)), "sets": .integer(Int64(s.sets)),
                "deep": .integer(Int64(s.deep)), "calls": .integer(Int64(s.calls)), "photos": .integer(Int64(s.photos)),
                "elapsed": .number(s.elapsed),
            ]))
            return 1
        })
    }

    /// A filter table (or nil) as ``LibraryFilter``: strings, numbers, booleans, lists of
    /// strings, `{from, to}` ranges.
    static func filter(_ call: LuaCall, at index: Int32, function: String) throws -> LibraryFilter {
        var given: [String: LibraryFilter.Value] = [:]
        switch try call.value(index) {
        case .nil: break
        case .map(let m):
            for (k, v) in m {
                guard let key = k.stringValue else { throw FlickrError.usage("filter keys are names (tags = …, taken = …)", method: function) }
                given[key] = try value(v, key: key, function: function)
            }
        case .array(let a) where a.isEmpty: break
        default: throw FlickrError.usage("bad argument #\(index) (a filter table expected)", method: function)
        }
        do { return try LibraryFilter(given) } catch { throw FlickrError.usage(error.message, method: function) }
    }

    static func value(_ v: LuaValue, key: String, function: String) throws -> LibraryFilter.Value {
        switch v {
        case .string(let s): return .text(s.description)
        case .integer(let n): return .number(Double(n))
        case .number(let d): return .number(d)
        case .boolean(let b): return .flag(b)
        case .array(let a):
            let strings = a.compactMap { $0.stringValue ?? $0.integerValue.map { String($0) } }
            guard strings.count == a.count else { throw FlickrError.usage("\(key): a list of strings expected", method: function) }
            return .list(strings)
        case .map(let m):
            let from = m["from"]?.stringValue ?? m["from"]?.integerValue.map { String($0) }
            let to = m["to"]?.stringValue ?? m["to"]?.integerValue.map { String($0) }
            guard from != nil || to != nil, m.count <= 2 else { throw FlickrError.usage("\(key): {from = …, to = …} expected", method: function) }
            return .range(from: from, to: to)
        case .nil: throw FlickrError.usage("\(key): no value", method: function)
        }
    }
}

/// Builds a page's Lua tables as the library reads its rows (``LibraryPageReader``): the field
/// names from `keys` on, each photo's table pushed above them as it comes (photo n at
/// `keys + field count + n`); ``finish()`` leaves the page, the array of them, in their place.
///
/// A photo is filled before anything refers to it, and the page is made last: while the tables
/// are new (white to Lua's collector) a field set costs no write barrier. Inserted into a page
/// the collector had marked, each new photo would make it gray again, and every incremental step
/// would traverse its thousands of entries once more.
struct LuaPageReader: LibraryPageReader {
    let state: LuaState
    let keys: Int32
    var count = 0
    var current: Int32?

    init(state: LuaState, keys: Int32) {
        (self.state, self.keys) = (state, keys)
    }

    /// The stack index of photo `n`'s table.
    func slot(_ n: Int) -> Int32 { keys + Int32(LibraryRecord.fieldNames.count + n) }

    mutating func photo(_ n: Int) {
        if n == count {
            state.newTable(record: Int32(LibraryRecord.fieldNames.count))
            count += 1
        }
        current = slot(n)
    }

    mutating func field(_ name: Int, _ value: LibraryValue) {
        set(name) {
            switch value {
            case .string(let s): state.push(s)
            case .integer(let i): state.push(Int64(i))
            case .number(let d): state.push(d)
            case .list(let l): pushList(l.count) { state.push(l[$0]) }
            }
        }
    }

    mutating func field(_ name: Int, text: UnsafeRawBufferPointer) {
        set(name) { state.push(bytes: text) }
    }

    mutating func field(_ name: Int, words: [UnsafeRawBufferPointer]) {
        set(name) { pushList(words.count) { state.push(bytes: words[$0]) } }
    }

    /// [-0, +0] Sets field `name` of the photo being filled to what `pushValue` pushes (one value).
    private func set(_ name: Int, _ pushValue: () -> Void) {
        guard let photo = current else { return }
        state.pushCopy(of: keys + Int32(name))
        pushValue()
        // The key is a string: rawSet cannot refuse it.
        try? state.rawSet(in: photo)
    }

    /// [-0, +1] Pushes an array of `count` items, each pushed by `pushItem(k)`.
    private func pushList(_ count: Int, _ pushItem: (Int) -> Void) {
        state.newTable(array: Int32(count))
        for k in 0..<count {
            pushItem(k)
            state.rawSet(index: Int64(k + 1), in: -2)
        }
    }

    /// [-(field count + photos), +1] Replaces the field names and the photos by the page: an
    /// array of the photos in order.
    mutating func finish() {
        state.newTable(array: Int32(count))
        let page = state.top
        for n in 0..<count {
            state.pushCopy(of: slot(n))
            state.rawSet(index: Int64(n + 1), in: page)
        }
        state.insert(at: keys)
        state.setTop(keys)
        current = nil
    }
}
