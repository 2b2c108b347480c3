import FlickrAPI
import LuaKit

/// `flickr.map` and `flickr.parallel`: Lua functions run as coroutines of the LuaKit scheduler,
/// so the Flickr calls inside them yield and overlap (up to `concurrency` in flight).
///
/// The Swift functions here are the engines; `lua/flickr/core.lua` wraps them with the error
/// policy people see (an error naming the failing item, with the finished results on it, or
/// `results, errors`).
extension FlickrModule {
    /// Default number of calls in flight for `flickr.map`.
    static let defaultConcurrency = 8

    func installConcurrency(_ state: LuaState, _ flickr: Int32) {
        // flickr.map(list, fn [, { concurrency = 8, on_error = "raise" }]) → results, errors, first
        define(state, flickr, "map") { call in
            try call.table(1)
            try call.function(2)
            var concurrency = Self.defaultConcurrency
            var collect = false
            if let options = try LuaOptions.read(call, at: 3, function: "flickr.map", known: ["concurrency", "on_error"]) {
                if let c = try options.integer("concurrency", minimum: 1) { concurrency = Int(min(c, 1024)) }
                collect = try options.choice("on_error", ["raise": false, "collect": true]) ?? false
            }
            let s = call.state
            let n = Int(s.rawLength(at: 1))
            return try Self.run(s, count: n, concurrency: concurrency, collect: collect) { i, thread in
                s.pushCopy(of: 2)
                s.rawGet(index: Int64(i + 1), in: 1)
                s.push(Int64(i + 1))
                s.move(3, to: thread)
                return 2
            }
        }
        // flickr.parallel(options, f1, f2, …) → results, errors, first (core.lua moves the
        // options, last in Lua, to the front)
        define(state, flickr, "parallel") { call in
            let options = try LuaOptions.read(call, at: 1, function: "flickr.parallel", known: ["on_error"])
            let collect = try options?.choice("on_error", ["raise": false, "collect": true]) ?? false
            let n = call.argumentCount - 1
            for i in 2..<max(2, n + 2) where n > 0 { try call.function(i) }
            let s = call.state
            return try Self.run(s, count: Int(max(0, n)), concurrency: Int(max(1, n)), collect: collect) { i, thread in
                s.pushCopy(of: Int32(i + 2))
                s.move(1, to: thread)
                return 0
            }
        }
    }

    /// [-0, +3] Runs the tasks and pushes `results` (the first result of each finished task, by
    /// position), `errors` (the error value of each failed task, by position) and the position of
    /// the first failure (nil when none). Without `collect`, no task starts after the first
    /// failure; the ones already running finish. An interrupt is thrown, not collected.
    private static func run(_ s: LuaState, count: Int, concurrency: Int, collect: Bool,
                            start: (Int, LuaState) throws -> Int32) throws -> LuaReturn {
        guard s.ensureStack(6) else { throw FlickrError.usage("stack overflow", method: "flickr.map") }
        s.newTable(array: Int32(clamping: count))
        let results = s.top
        s.newTable()
        let errors = s.top
        var first: Int?
        try s.runConcurrently(count: count, concurrency: concurrency, keepGoing: collect, start: start, finish: { i, thread, n in
            guard n > 0 else { return }
            thread.setTop(thread.top - n + 1)
            thread.move(1, to: s)
            s.rawSet(index: Int64(i + 1), in: results)
        }, failed: { i, error in
            if first == nil { first = i }
            s.push(error: error)
            s.rawSet(index: Int64(i + 1), in: errors)
        })
        if let first { s.push(Int64(first + 1)) } else { s.pushNil() }
        return .results(3)
    }
}
