import FlickrAPI
import FlickrJobs
import FlickrLibrary
import Foundation
import GRDB
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
///     flickr.library._ids(filter)             → { id, … } in the filter's order (no call)
///     flickr.library._records(ids, i, j)      → the photo tables of ids[i..j]
///     flickr.library.count(filter), sets(), status(), sql(query, …)
///
/// Queries read the library the last sync of this endpoint wrote; they never make a call.
extension FlickrModule {
    func installLibrary(_ state: LuaState, _ flickr: Int32) {
        state.newTable(record: 8)
        let library = state.top
        define(state, library, "_sync", path: "library.sync") { call in try self.syncLibrary(call) }
        define(state, library, "_ids", path: "library.photos") { call in
            let filter = try Self.filter(call, at: 1, function: "library.photos")
            let ids = try self.library().ids(filter)
            // Straight onto the stack (no LuaValue in between): 100,000 ids for a whole library.
            call.state.newTable(array: Int32(clamping: ids.count))
            let list = call.state.top
            for (i, id) in ids.enumerated() {
                call.state.push(id)
                call.state.rawSet(index: Int64(i + 1), in: list)
            }
            return .results(1)
        }
        define(state, library, "_records", path: "library.photos") { call in
            try call.table(1)
            let from = try call.integer(2), to = try call.integer(3)
            // Only ids[from…to] are read (raw), not the whole list: a page of the iterator
            // costs its own size, not the library's (100 pages of 100,000 ids were 10 million
            // conversions).
            var slice: [String] = []
            if from >= 1, from <= to {
                slice.reserveCapacity(Int(to - from + 1))
                for i in from...to {
                    let type = call.state.rawGet(index: i, in: 1)
                    defer { call.state.pop() }
                    if type == .nil { break }
                    if type == .string, let id = call.state.string(at: -1) { slice.append(id) }
                }
            }
            Self.pushPhotos(call.state, try self.library().records(slice))
            return .results(1)
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
                "sets": .integer(Int64(s.sets)),
            ]
            if let last = s.lastSync { m["last_sync"] = .integer(Int64(last)) }
            try call.state.push(LuaValue.map(m))
            return .results(1)
        }
        define(state, library, "sql", path: "library.sql") { call in
            let query = try call.string(1)
            var arguments: [DatabaseValue] = []
            if call.argumentCount >= 2 {
                for i in 2...call.argumentCount {
                    switch try call.value(i) {
                    case .string(let s): arguments.append(s.description.databaseValue)
                    case .integer(let n): arguments.append(n.databaseValue)
                    case .number(let d): arguments.append(d.databaseValue)
                    case .boolean(let b): arguments.append(b.databaseValue)
                    case .nil: arguments.append(.null)
                    default: throw FlickrError.usage("bad argument #\(i) to library.sql: only strings, numbers, booleans and nil bind", method: "library.sql")
                    }
                }
            }
            let (columns, rows) = try self.library().sql(query, arguments)
            try call.state.push(LuaValue.array(rows.map { row in
                var m: [LuaValue: LuaValue] = [:]
                for (name, value) in zip(columns, row) {
                    switch value.storage {
                    case .int64(let n): m[.string(name)] = .integer(n)
                    case .double(let d): m[.string(name)] = .number(d)
                    case .string(let s): m[.string(name)] = .string(s)
                    case .blob(let b): m[.string(name)] = .string(LuaString(bytes: Array(b)))
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

    /// Pushes the photo tables of `records` (the fields named like the search extras; a field
    /// the library does not know is absent) as one array, straight onto the stack: no
    /// ``LuaValue`` in between (at 1,000 photos a page, that conversion cost more than the query).
    static func pushPhotos(_ state: LuaState, _ records: [LibraryRecord]) {
        state.newTable(array: Int32(records.count))
        let page = state.top
        for (n, r) in records.enumerated() {
            state.newTable(record: Int32(LibraryRecord.fieldNames.count))
            let photo = state.top
            for name in LibraryRecord.fieldNames {
                switch r.value(name) {
                case .string(let s): state.push(s)
                case .integer(let i): state.push(Int64(i))
                case .number(let d): state.push(d)
                case .list(let l):
                    state.newTable(array: Int32(l.count))
                    let list = state.top
                    for (k, s) in l.enumerated() {
                        state.push(s)
                        state.rawSet(index: Int64(k + 1), in: list)
                    }
                case nil: continue
                }
                state.rawSet(field: name, in: photo)
            }
            state.rawSet(index: Int64(n + 1), in: page)
        }
    }
}
