import FlickrAPI
import LuaKit

/// `flickr.map` and `flickr.parallel`: Lua functions run as coroutines of the LuaKit scheduler,
/// so the Flickr calls inside them yield and overlap (up to `concurrency` in flight).
extension FlickrModule {
    /// Default number of calls in flight for `flickr.map`.
    static let defaultConcurrency = 8

    func installConcurrency(_ state: LuaState, _ flickr: Int32) {
        // flickr.map(list, fn [, { concurrency = 8 }]) → { fn(list[1], 1), fn(list[2], 2), … }
        define(state, flickr, "map") { call in
            try call.table(1)
            try call.function(2)
            var concurrency = Self.defaultConcurrency
            if try call.optionalTable(3) {
                switch call.state.rawGet(field: "concurrency", in: 3) {
                case .nil: break
                case .number:
                    guard let c = call.state.integer(at: -1), c >= 1 else {
                        throw FlickrError.usage("bad option 'concurrency': a positive integer expected", method: "flickr.map")
                    }
                    concurrency = Int(min(c, 1024))
                default:
                    throw FlickrError.usage("bad option 'concurrency': a positive integer expected", method: "flickr.map")
                }
                call.state.pop()
            }
            let s = call.state
            let n = Int(s.rawLength(at: 1))
            s.newTable(array: Int32(clamping: n))
            let results = s.top
            try s.runConcurrently(count: n, concurrency: concurrency, start: { i, thread in
                s.pushCopy(of: 2)
                s.rawGet(index: Int64(i + 1), in: 1)
                s.push(Int64(i + 1))
                s.move(3, to: thread)
                return 2
            }, finish: Self.keepFirstResult(in: results, of: s))
            return .results(1)
        }
        // flickr.parallel(f1, f2, …) → the first result of each, in order.
        define(state, flickr, "parallel") { call in
            let n = call.argumentCount
            for i in 1...max(1, n) where n > 0 { try call.function(i) }
            let s = call.state
            s.newTable(array: n)
            let results = s.top
            try s.runConcurrently(count: Int(n), concurrency: Int(n), start: { i, thread in
                s.pushCopy(of: Int32(i + 1))
                s.move(1, to: thread)
                return 0
            }, finish: Self.keepFirstResult(in: results, of: s))
            guard s.ensureStack(n + 1) else { throw FlickrError.usage("too many functions", method: "flickr.parallel") }
            var i: Int64 = 1
            while i <= Int64(n) {
                s.rawGet(index: i, in: results)
                i += 1
            }
            return .results(n)
        }
    }

    /// The `finish` of map and parallel: the first result of coroutine `i` goes to
    /// `results[i + 1]` (a table at `results` on `state`); a coroutine with no result leaves nil.
    private static func keepFirstResult(in results: Int32, of state: LuaState) -> (Int, LuaState, Int32) throws -> Void {
        { i, thread, count in
            guard count > 0 else { return }
            thread.setTop(thread.top - count + 1)
            thread.move(1, to: state)
            state.rawSet(index: Int64(i + 1), in: results)
        }
    }
}
