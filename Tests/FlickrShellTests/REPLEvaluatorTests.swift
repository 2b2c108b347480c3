import FlickrLua
import FlickrTestSupport
import Foundation
import LuaKit
import Testing
@testable import FlickrShell

/// The REPL's evaluation rules on a real Lua runtime (no terminal): lua.c's expression-first
/// compile, `<eof>` continuation, results and `_`, errors with trimmed tracebacks, interrupts.
@Suite("REPL evaluation", .timeLimit(.minutes(3)), .tags(.integration))
struct REPLEvaluatorTests {
    /// A runtime with the repository's lua/ on package.path and the REPL helpers loaded.
    static func runtime() async throws -> (LuaRuntime, REPLSupport) {
        let runtime = try LuaRuntime()
        let lua = Fixtures.repository.appendingPathComponent("lua").path
        let support = try await runtime.perform { state in
            state.setPackagePath("\(lua)/?.lua;" + (state.packagePath ?? ""))
            return try REPLSupport.load(on: state)
        }
        return (runtime, support)
    }

    static func eval(_ chunk: String, _ runtime: LuaRuntime, _ support: REPLSupport, color: Bool = false) async throws
        -> EvaluationOutcome {
        try await runtime.perform { state in
            Evaluator.evaluate(chunk, on: state, support: support, color: color, width: 80)
        }
    }

    static func text(_ outcome: EvaluationOutcome) -> String? {
        if case .values(let text, _) = outcome { return text }
        return nil
    }

    static func failure(_ outcome: EvaluationOutcome) -> REPLError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }

    static func isIncomplete(_ outcome: EvaluationOutcome) -> Bool {
        if case .incomplete = outcome { return true }
        return false
    }

    @Test("an expression prints its values; a statement prints nothing; `=x` is `return x`")
    func expressionFirst() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        #expect(Self.text(try await Self.eval("1 + 1", runtime, support)) == "2")
        #expect(Self.text(try await Self.eval("x = 5", runtime, support)) == .some(nil))
        #expect(Self.text(try await Self.eval("x * 2.0", runtime, support)) == "10.0")
        #expect(Self.text(try await Self.eval("=x", runtime, support)) == "5")
        #expect(Self.text(try await Self.eval("1, 'a', nil", runtime, support)) == "1\t\"a\"\tnil")
        #expect(Self.text(try await Self.eval("{ 2, 1, b = 1, a = { true } }", runtime, support))
                == "{ 2, 1, a = { true }, b = 1 }")
        // a call statement is an expression too (lua.c prints what it returns)
        #expect(Self.text(try await Self.eval("string.rep('ab', 2)", runtime, support)) == "\"abab\"")
        #expect(Self.text(try await Self.eval("(function() end)()", runtime, support)) == .some(nil))
    }

    @Test("`_` holds the first result of the last expression, and is left alone by statements")
    func underscore() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        _ = try await Self.eval("{ name = 'n' }, 2", runtime, support)
        #expect(Self.text(try await Self.eval("_.name", runtime, support)) == "\"n\"")
        #expect(Self.text(try await Self.eval("_", runtime, support)) == "\"n\"")
        _ = try await Self.eval("y = 1", runtime, support)
        #expect(Self.text(try await Self.eval("_", runtime, support)) == "\"n\"")
    }

    @Test("a chunk that stops at <eof> asks for more; completed, it runs as one chunk",
          arguments: ["for i = 1, 2 do", "function f()", "{", "{ 1,", "x =", "f(", "'unfinished", "if x then return 1 else"])
    func incomplete(_ chunk: String) async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        #expect(Self.isIncomplete(try await Self.eval(chunk, runtime, support)))
    }

    @Test("multi-line chunks: statements and expressions")
    func multiLine() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        #expect(Self.text(try await Self.eval("t = {}\nfor i = 1, 3 do\n  t[i] = i * i\nend", runtime, support)) == .some(nil))
        #expect(Self.text(try await Self.eval("t", runtime, support)) == "{ 1, 4, 9 }")
        #expect(Self.text(try await Self.eval("{\n 'a',\n 'b'\n}", runtime, support)) == "{ \"a\", \"b\" }")
    }

    @Test("a syntax error that is not at <eof> is reported at once")
    func syntaxError() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        let error = try #require(Self.failure(try await Self.eval("1 + )", runtime, support)))
        #expect(error.message.hasPrefix("stdin:1:"))
        #expect(error.message.contains("unexpected symbol"))
        #expect(!error.interrupted)
    }

    @Test("a runtime error gives the message and the user's frames, without the host's [C]: in ?")
    func runtimeError() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        let outcome = try await Self.eval("local function inner() error('boom') end\ninner()", runtime, support)
        let error = try #require(Self.failure(outcome))
        #expect(error.message == "stdin:1: boom")
        let traceback = try #require(error.traceback)
        #expect(traceback.hasPrefix("stack traceback:"))
        #expect(traceback.contains("in local 'inner'") || traceback.contains("in function 'inner'"))
        #expect(traceback.contains("stdin:2: in main chunk"))
        #expect(!traceback.contains("[C]: in ?"))
        #expect(!traceback.contains("(repl)"))
        // the REPL goes on
        #expect(Self.text(try await Self.eval("3", runtime, support)) == "3")
    }

    @Test("an error table prints through __tostring")
    func errorObject() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        let outcome = try await Self.eval(
            "error(setmetatable({ code = 100 }, { __tostring = function(e) return 'm: [' .. e.code .. '] bad' end }))",
            runtime, support)
        #expect(Self.failure(outcome)?.message == "m: [100] bad")
    }

    @Test("a top-level value with __tostring prints as its text; nested values are printed raw")
    func toStringValues() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        _ = try await Self.eval("H = setmetatable({ n = 1 }, { __tostring = function() return 'help text' end })", runtime, support)
        #expect(Self.text(try await Self.eval("H", runtime, support)) == "help text")
        #expect(Self.text(try await Self.eval("{ H }", runtime, support)) == "{ { n = 1 } }")
    }

    @Test("results are coloured only when asked")
    func colour() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { runtime.close() }
        let plain = try #require(Self.text(try await Self.eval("{ 1, 'a' }", runtime, support, color: false)) ?? nil)
        let coloured = try #require(Self.text(try await Self.eval("{ 1, 'a' }", runtime, support, color: true)) ?? nil)
        #expect(!plain.contains("\u{1B}"))
        #expect(coloured.contains("\u{1B}["))
        #expect(coloured.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) == plain)
    }

    @Test("an interrupt stops a busy chunk with interrupted! and the runtime stays usable")
    func interrupt() async throws {
        let (runtime, support) = try await Self.runtime()
        defer { #expect(runtime.close(timeout: 10), "the Lua thread is wedged") }
        let started = Signal()
        try await runtime.perform { L in
            L.push(function: "started") { _ in
                started.fire()
                return .none
            }
            L.setGlobal("started")
        }
        let task = Task { try await withDeadline(20, "the interrupted chunk") { try await Self.eval("started(); while true do end", runtime, support) } }
        try await started.wait(20, "the chunk to start")
        runtime.interrupt()
        let outcome = try await task.value
        let error = try #require(Self.failure(outcome))
        #expect(error.interrupted)
        #expect(error.message == "interrupted!")
        #expect(Self.text(try await Self.eval("'after'", runtime, support)) == "\"after\"")
        // A chunk that only says so is an error like any other, not an interrupt.
        let forged = try #require(Self.failure(try await Self.eval("error('interrupted!')", runtime, support)))
        #expect(!forged.interrupted)
    }

    @Test("traceback trimming keeps user frames only")
    func trim() {
        let tb = "stack traceback:\n\t[C]: in function 'error'\n\tstdin:1: in main chunk\n\t[C]: in ?"
        #expect(REPLError.trim(tb) == "stack traceback:\n\t[C]: in function 'error'\n\tstdin:1: in main chunk")
        #expect(REPLError.trim("stack traceback:\n\t[C]: in ?") == nil)
        #expect(REPLError.trim(nil) == nil)
    }
}
