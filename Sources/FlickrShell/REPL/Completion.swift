import CReadlineShim
import Foundation
import LuaKit

/// Tab completion: readline (on the REPL thread) asks ``replCandidates(_:_:_:)``, which runs
/// `flickr.complete` on the Lua thread — idle while readline waits for keys — through
/// `performAndWait`. The completer walks tables with raw access only: no Lua code, no network.
enum Completion {
    /// The runtime and helpers of the running REPL (one REPL per process at a time).
    nonisolated(unsafe) static var active: (runtime: LuaRuntime, support: REPLSupport)?

    /// Candidates completing the text before the cursor, each a full replacement of the text
    /// from the returned start (1-based, Lua's convention) to the cursor.
    static func candidates(for line: String, runtime: LuaRuntime, support: REPLSupport) -> (list: [String], start: Int) {
        let result = try? runtime.performAndWait { state -> ([String], Int) in
            let base = state.top
            defer { state.setTop(base) }
            support.helpers.push(onto: state)
            guard state.rawGet(field: "complete", in: -1) == .function else { return ([], line.utf8.count + 1) }
            state.push(line)
            try state.pcall(arguments: 1, results: 2)
            var list: [String] = []
            if state.type(at: -2) == .table {
                let n = state.rawLength(at: -2)
                if n > 0 {
                    for i in 1...n {
                        if state.rawGet(index: i, in: -2) == .string, let s = state.string(at: -1) { list.append(s) }
                        state.pop()
                    }
                }
            }
            let start = state.integer(at: -1).map(Int.init) ?? line.utf8.count + 1
            return (list, start)
        }
        return result ?? ([], line.utf8.count + 1)
    }
}

/// readline's completion entry (C convention, see CReadlineShim.h `frl_candidates_fn`):
/// `line[0..<point]` is the text before the cursor; returns a malloc'd NULL-terminated array of
/// malloc'd candidates and sets `start` to the 0-based byte offset they replace from.
func replCandidates(_ line: UnsafePointer<CChar>?, _ point: Int32,
                    _ start: UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    guard let line, let (runtime, support) = Completion.active else { return nil }
    let bytes = UnsafeRawBufferPointer(start: line, count: max(0, Int(point)))
    let before = String(decoding: bytes, as: UTF8.self)
    let list: [String], offset: Int
    if let commands = REPLCommand.candidates(completing: before) {
        (list, offset) = commands
    } else {
        let (luaList, luaStart) = Completion.candidates(for: before, runtime: runtime, support: support)
        (list, offset) = (luaList, luaStart - 1)
    }
    guard !list.isEmpty,
          let array = calloc(list.count + 1, MemoryLayout<UnsafeMutablePointer<CChar>?>.stride)?
            .assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self) else { return nil }
    for (i, candidate) in list.enumerated() { array[i] = strdup(candidate) }
    start?.pointee = Int32(max(0, offset))
    return array
}
