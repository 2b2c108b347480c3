import LuaKit
import Testing
import FlickrTestSupport

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct ConversionTests {
    @Test func numbersKeepIntegerVersusFloat() async throws {
        let r = try await withLua { L in
            try L.run("return 2^53, math.tointeger(2^53), 9007199254740993, 1, 1.0, -0.0, 0/0, math.maxinteger, math.mininteger")
        }
        #expect(r[0] == .number(9007199254740992))
        #expect(r[1] == .integer(9007199254740992))
        #expect(r[2] == .integer(9007199254740993))  // not representable as a double
        #expect(r[3] == .integer(1))
        #expect(r[4] == .number(1))
        guard case .number(let negativeZero) = r[5] else { Issue.record("-0.0 is \(r[5])"); return }
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        guard case .number(let nan) = r[6] else { Issue.record("NaN is \(r[6])"); return }
        #expect(nan.isNaN)
        #expect(r[7] == .integer(.max))
        #expect(r[8] == .integer(.min))
    }

    @Test func swiftValuesRoundTrip() async throws {
        let values: [LuaValue] = [
            .integer(9007199254740993), .number(-0.0), .number(.nan), .number(.infinity), .boolean(false),
            .string(LuaString(bytes: [0x61, 0x00, 0x62, 0xff])), .array([1, 2.5, "x"]),
            .map(["a": 1, 10: "ten", true: [1, 2]]),
        ]
        let r = try await withLua { L in
            try L.push(values)
            // Lua sees what Swift sent.
            L.setGlobal("m")
            L.setGlobal("a")
            L.setGlobal("s")
            L.setGlobal("b")
            L.setGlobal("inf")
            L.setGlobal("nan")
            L.setGlobal("nz")
            L.setGlobal("big")
            let checks = try L.run("""
                return math.type(big) == "integer" and big == 9007199254740993,
                       1/nz == -math.huge, nan ~= nan, inf == math.huge, b == false,
                       #s == 4 and s:byte(2) == 0 and s:byte(4) == 255,
                       a[1] == 1 and math.type(a[2]) == "float" and a[3] == "x",
                       m.a == 1 and m[10] == "ten" and m[true][2] == 2
                """)
            try L.push(values)
            return (checks, try L.popValues(Int32(values.count)))
        }
        #expect(r.0 == Array(repeating: true, count: 8))
        let back = r.1
        #expect(back[0] == values[0])
        if case .number(let z) = back[1] { #expect(z.sign == .minus) } else { Issue.record("\(back[1])") }
        if case .number(let n) = back[2] { #expect(n.isNaN) } else { Issue.record("\(back[2])") }
        #expect(back[3...] == values[3...])
    }

    @Test func embeddedNulAndInvalidUTF8Survive() async throws {
        let r = try await withLua { L in try L.run("return 'a\\0b', '\\255\\254', #('a\\0b')") }
        #expect(r[0] == .string(LuaString(bytes: [0x61, 0, 0x62])))
        #expect(r[1] == .string(LuaString(bytes: [0xff, 0xfe])))
        #expect(r[1].stringValue == "\u{FFFD}\u{FFFD}")
        #expect(r[2] == 3)
    }

    @Test func arraysOnlyForKeysOneToN() async throws {
        let r = try await withLua { L in
            try L.run("return {1, 2, 3}, {1, nil, 3}, {[2] = 'b', [3] = 'c'}, {}, {[0] = 'z', 'a'}, {1, 2, x = 3}, {[1.5] = 'f'}")
        }
        #expect(r[0] == [1, 2, 3])
        #expect(r[1] == .map([1: 1, 3: 3]))
        #expect(r[2] == .map([2: "b", 3: "c"]))
        #expect(r[3] == .map([:]))
        #expect(r[4] == .map([0: "z", 1: "a"]))
        #expect(r[5] == .map([1: 1, 2: 2, "x": 3]))
        #expect(r[6] == .map([.number(1.5): "f"]))
    }

    @Test func cyclesAreErrorsNotCrashes() async throws {
        let e = try await withLua { L -> LuaError? in
            do {
                _ = try L.run("local t = {1, {}}; t[2].back = t; return t")
                return nil
            } catch let e as LuaError { return e }
        }
        #expect(e?.kind == .conversion)
        #expect(e?.message.contains("cycle") == true)
        // Shared (non-cyclic) tables are fine.
        let shared = try await withLua { L in try L.run("local s = {1}; return {s, s}") }
        #expect(shared == [[[1], [1]]])
    }

    @Test func tenThousandDeepNestingIsAnError() async throws {
        try await withLua { L in
            // Lua → Swift.
            do {
                _ = try L.run("local t = {}; for i = 1, 10000 do t = {t} end; return t")
                Issue.record("no error")
            } catch let e as LuaError {
                #expect(e.kind == .conversion)
                #expect(e.message.contains("deeper"))
            }
            #expect(L.top == 0)
            // Swift → Lua.
            var deep: LuaValue = .array([])
            for _ in 0..<10_000 { deep = .array([deep]) }
            do {
                try L.push(deep)
                Issue.record("no error")
            } catch let error as LuaError {
                #expect(error.kind == .conversion)
            }
            #expect(L.top == 0)
            // Within the limit both ways works.
            var ok: LuaValue = 1
            for _ in 0..<150 { ok = .array([ok]) }
            try L.push(ok)
            #expect(try L.value(at: -1) == ok)
            L.pop()
        }
    }

    @Test func functionsHaveNoDataForm() async throws {
        let e = try await withLua { L -> LuaError? in
            do {
                _ = try L.run("return {f = print}")
                return nil
            } catch let e as LuaError { return e }
        }
        #expect(e?.kind == .conversion)
        #expect(e?.message.contains("function") == true)
    }

    @Test func rawTraversalCannotBeDisturbedByReadingKeys() async throws {
        let seen = try await withLua { L -> [String] in
            _ = try L.run("t = { 10, 20, 30, [2.5] = 'x', name = 'n', [true] = 'b' }")
            L.pushGlobals()
            _ = L.rawGet(field: "t", in: -1)
            var keys: [String] = []
            let before = L.top
            // Reading a number key as a string converts it in place; on a copy that is harmless.
            L.forEachRawEntry(inTableAt: -1) { e in
                keys.append((L.string(at: e.keyIndex) ?? L.typeName(at: e.keyIndex)) + "=" + (L.string(at: e.valueIndex) ?? "?"))
                L.push("left on the stack")
                return true
            }
            #expect(L.top == before)
            var count = 0
            L.forEachRawEntry(inTableAt: -1) { _ in
                count += 1
                return count < 2  // stopping early
            }
            #expect(count == 2 && L.top == before)
            return keys.sorted()
        }
        #expect(seen == ["1=10", "2.5=x", "2=20", "3=30", "boolean=b", "name=n"])
    }

    @Test func rawSetRefusesNilAndNaNKeys() async throws {
        let messages = try await withLua { L -> [String] in
            var out: [String] = []
            L.newTable()
            let top = L.top
            for pushKey in [{ L.pushNil() }, { L.push(Double.nan) }] {
                pushKey()
                L.push("value")
                do throws(LuaError) { try L.rawSet(in: -3) } catch { out.append(error.message) }
                #expect(L.top == top)
            }
            L.push(Double.infinity)
            L.push("fine")
            try L.rawSet(in: -3)
            return out
        }
        #expect(messages == ["a table key cannot be nil", "a table key cannot be NaN"])
    }
}
