import FlickrAPI
import Foundation
import LuaKit

/// What evaluating a chunk at the prompt gave.
enum EvaluationOutcome: Sendable {
    /// The chunk stops at `<eof>`: read another line (`>> `) and try again with the whole chunk.
    case incomplete
    /// It ran: the rendered results (nil for none) and, for `:time`, the seconds it took.
    case values(String?, elapsed: Double)
    /// It failed to compile or to run.
    case failure(REPLError)
}

/// An error as the REPL reports it: the message, the traceback trimmed to the user's frames.
struct REPLError: Sendable, Equatable {
    var message: String
    var traceback: String?
    var interrupted: Bool

    init(_ error: LuaError) {
        message = error.message
        traceback = REPLError.trim(error.traceback)
        // The hook's interrupt, or a Flickr call it cancelled (never a message that merely says so).
        interrupted = error.kind == .interrupted || (error.underlying as? FlickrError)?.kind == .cancelled
    }

    init(message: String) {
        self.message = message
        traceback = nil
        interrupted = false
    }

    /// Drops the frames below the REPL chunk (the `[C]: in ?` of the host's pcall) and the
    /// REPL's own helper frames.
    static func trim(_ traceback: String?) -> String? {
        guard let traceback, !traceback.isEmpty else { return nil }
        var lines = traceback.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeAll { $0.contains("(repl)") }
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces) == "[C]: in ?" || last.isEmpty {
            lines.removeLast()
        }
        if lines.count <= 1 { return nil }  // only the "stack traceback:" header is left
        return lines.joined(separator: "\n")
    }
}

/// Compiles and runs REPL chunks on the Lua thread with lua.c's rules.
enum Evaluator {
    /// The chunk name of everything typed at the prompt (lua.c uses `=stdin` too).
    static let chunkName = "=stdin"

    /// Compiles `chunk` the way lua.c does: as `return <chunk>` first (so an expression prints
    /// its values), else as statements. When neither compiles and either stops at `<eof>`, more
    /// lines are needed (unlike lua.c this also continues an unfinished *expression*, such as a
    /// table constructor opened with `{`). On success the function is on top of the stack.
    static func compile(_ chunk: String, on state: LuaState) -> EvaluationOutcome? {
        var source = chunk
        if source.hasPrefix("=") { source = String(source.dropFirst()) }  // lua 5.4: `=x` means `return x`
        var expressionIncomplete = false
        do {
            try state.load("return " + source, name: chunkName)
            return nil
        } catch {
            expressionIncomplete = error.isIncompleteInput
        }
        do {
            try state.load(chunk, name: chunkName)
            return nil
        } catch {
            return error.isIncompleteInput || expressionIncomplete ? .incomplete : .failure(REPLError(error))
        }
    }

    /// The error of a chunk that ends unfinished (end of input at `>>`): the statement form's
    /// message as lua.c gives it (`stdin:1: 'end' expected near <eof>`), or the expression
    /// form's when only that one stops at `<eof>` (`{` …). Nil when the chunk compiles.
    static func incompleteError(_ chunk: String, on state: LuaState) -> REPLError? {
        let base = state.top
        defer { state.setTop(base) }
        var statement: LuaError?
        do { try state.load(chunk, name: chunkName) } catch { statement = error }
        guard let statement else { return nil }
        if !statement.isIncompleteInput {
            let source = chunk.hasPrefix("=") ? String(chunk.dropFirst()) : chunk
            do { try state.load("return " + source, name: chunkName) } catch where error.isIncompleteInput {
                return REPLError(message: error.message)
            } catch {}
        }
        return REPLError(message: statement.message)
    }

    /// Compiles and runs `chunk`; sets `_` to the first result, renders the results with the
    /// support table's `show`. Leaves the stack as it found it.
    /// `width` is read when the results are rendered, after the chunk ran: a window change
    /// during a long call counts.
    static func evaluate(_ chunk: String, on state: LuaState, support: REPLSupport?, color: Bool, width: @autoclosure () -> Int,
                         depth: Int? = 4, items: Int? = 50, withPrint: Bool = false) -> EvaluationOutcome {
        let base = state.top
        defer { state.setTop(base) }
        if let outcome = compile(chunk, on: state) { return outcome }
        let started = DispatchTime.now().uptimeNanoseconds
        let count: Int32
        do {
            // Off a terminal the REPL is lua.c's: its message handler makes the message.
            count = withPrint ? try state.callAsScript(arguments: 0, results: nil) : try state.pcall(arguments: 0, results: nil)
        } catch {
            return .failure(withPrint ? REPLError(message: error.message) : REPLError(error))
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        guard count > 0 else { return .values(nil, elapsed: elapsed) }
        state.pushCopy(of: base + 1)
        state.setGlobal("_")
        if withPrint { return printed(from: base + 1, count: count, on: state, elapsed: elapsed) }
        return .values(render(from: base + 1, count: count, on: state, support: support, color: color, width: width(),
                              depth: depth, items: items),
                       elapsed: elapsed)
    }

    /// lua.c's `l_print`: the values handed to the global `print`, whatever it is now (the REPL
    /// off a terminal, as `lua5.4 -i < file` does); a `print` that fails is "error calling
    /// 'print' (…)".
    static func printed(from first: Int32, count: Int32, on state: LuaState, elapsed: Double) -> EvaluationOutcome {
        guard state.ensureStack(count + 4) else { return .failure(REPLError(message: "too many results to print")) }
        _ = state.getGlobal("print")
        for i in 0..<count { state.pushCopy(of: first + i) }
        do {
            _ = try state.pcall(arguments: count, results: 0)
        } catch {
            return .failure(REPLError(message: "error calling 'print' (\(error.message))"))
        }
        return .values(nil, elapsed: elapsed)
    }

    /// The text of `count` values starting at stack index `first` (left in place).
    /// `depth` and `items` (nil: all) limit how much of a table prints (`:set depth`, `:set items`).
    static func render(from first: Int32, count: Int32, on state: LuaState, support: REPLSupport?, color: Bool,
                       width: Int, depth: Int? = 4, items: Int? = 50) -> String {
        let base = state.top
        defer { state.setTop(base) }
        if let support, state.ensureStack(count + 4) {
            support.helpers.push(onto: state)
            if state.rawGet(field: "show", in: -1) == .function {
                state.remove(at: -2)
                state.push(color)
                state.push(width)
                if let depth { state.push(Int64(depth)) } else { state.push(Double.infinity) }
                if let items { state.push(Int64(items)) } else { state.push(Double.infinity) }
                for i in 0..<count { state.pushCopy(of: first + i) }
                if let n = try? state.pcall(arguments: count + 4, results: 1), n == 1, let text = state.string(at: -1) {
                    return text
                }
            }
            state.setTop(base)
        }
        // Without the printer: what `print` would show.
        return (0..<count).map { i in (try? state.toDisplayString(at: first + i)) ?? "?" }.joined(separator: "\t")
    }
}
