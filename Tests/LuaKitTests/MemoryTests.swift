import LuaKit
import Testing
import FlickrTestSupport

/// A full `collectgarbage()` gives memory back (CLuaShim's collect.c and heap.c), and is
/// otherwise the base library's function: same results, same argument errors.
@Suite(.timeLimit(.minutes(3)), .tags(.unit)) struct MemoryTests {
    /// A burst of small tables, dropped and collected: the chunks it took leave the heap.
    /// (Before, the heap kept every chunk it ever carved until the state closed.)
    @Test func aFullCollectionGivesWholeChunksBack() async throws {
        let (before, peak, after, count) = try await withLua { L -> (Int, Int, Int, Int64) in
            let before = L.smallBlockHeapBytes
            try L.run("burst = {} for i = 1, 200000 do burst[i] = { i, tostring(i) .. 'x' } end")
            let peak = L.smallBlockHeapBytes
            let r = try L.run("burst = nil return collectgarbage()")
            return (before, peak, L.smallBlockHeapBytes, r.first.flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? -1)
        }
        #expect(count == 0)  // collectgarbage() answers 0, as the base library's does
        #expect(peak > before + (16 << 20), "the burst should take tens of MiB of small blocks: \(before) → \(peak)")
        #expect(after < before + (2 << 20), "after the collection: \(after) bytes in chunks (peak \(peak), start \(before))")
    }

    /// Chunks go only when every block in them is free: survivors scattered through a burst keep
    /// theirs, and the free lists rebuilt without the released chunks hand out only live memory.
    @Test func survivorsKeepTheirChunksAndTheHeapStaysSound() async throws {
        let (kept, peak, after, sums) = try await withLua { L -> (Int, Int, Int, [LuaValue]) in
            try L.run("""
                keep = {}
                local burst = {}
                for i = 1, 100000 do
                  local t = { i, tostring(i) }
                  burst[i] = t
                  if i % 4000 == 0 then keep[#keep + 1] = t end
                end
                burst = nil
                """)
            let peak = L.smallBlockHeapBytes
            _ = try L.run("collectgarbage()")
            let kept = L.smallBlockHeapBytes
            // New tables reuse what is left; the survivors must be untouched.
            let sums = try L.run("""
                local fresh = {}
                for i = 1, 100000 do fresh[i] = { i, tostring(i) } end
                local s, bad = 0, 0
                for _, t in ipairs(keep) do
                  s = s + t[1]
                  if t[2] ~= tostring(t[1]) then bad = bad + 1 end
                end
                local f = 0
                for i = 1, #fresh do if fresh[i][1] == i and fresh[i][2] == tostring(i) then f = f + 1 end end
                fresh = nil
                collectgarbage()
                return s, bad, f, #keep
                """)
            return (kept, peak, L.smallBlockHeapBytes, sums)
        }
        #expect(sums == [.integer((1...25).reduce(0) { $0 + $1 * 4000 }), .integer(0), .integer(100_000), .integer(25)])
        #expect(kept < peak, "some chunks should go: \(peak) → \(kept)")
        #expect(after <= peak, "a second burst of the same size reuses the chunks: \(after) after, \(peak) peak")
    }

    /// The other options reach the base library's function; argument errors name
    /// `collectgarbage`, as lua.c's do.
    @Test func otherOptionsAndErrorsAreTheBaseLibrarys() async throws {
        let results = try await withLua { L -> [LuaValue] in
            try L.run("""
                local count = collectgarbage("count")
                local running = collectgarbage("isrunning")
                local previous = collectgarbage("incremental")
                local back = collectgarbage("generational")
                local step = collectgarbage("step", 0)
                local collected = collectgarbage("collect")
                local e1 = select(2, pcall(collectgarbage, "nope"))
                local e2 = select(2, pcall(collectgarbage, "step", {}))
                local e3 = select(2, pcall(collectgarbage, 42))
                local inside = "not run"
                setmetatable({}, { __gc = function() inside = collectgarbage() end })
                collectgarbage()
                return math.type(count) == "float" and count > 0, running, previous, back, type(step), collected, e1, e2, e3, inside
                """)
        }
        #expect(results == [.boolean(true), .boolean(true), .string("generational"), .string("incremental"), .string("boolean"),
                            .integer(0),
                            .string("bad argument #1 to 'collectgarbage' (invalid option 'nope')"),
                            .string("bad argument #2 to 'collectgarbage' (number expected, got table)"),
                            .string("bad argument #1 to 'collectgarbage' (invalid option '42')"),
                            .nil])
    }
}
