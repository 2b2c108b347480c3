import Foundation
import Synchronization

/// The progress line of `flickr upload` and `flickr download` on a terminal: the file in hand
/// and the whole batch,
///
///     uploading 3/12  cat.jpg  [#########-----------]  45%   all [###-------]  31%  2.1 MiB/s
///
/// redrawn in place on stderr whenever the file's whole percentage changes or another 256 KiB
/// has moved (never less often), and ended with a newline.
final class BatchProgress: Sendable {
    private struct State {
        var file = ""
        var index = 0
        var fileDone: Int64 = 0
        var fileTotal: Int64?
        /// Bytes of the files finished before the current one.
        var batchDone: Int64 = 0
        var lastPercent = -1
        var lastBytes: Int64 = 0
        var start = ContinuousClock.now
        var drawn = false
    }

    private let state = Mutex(State())
    private let verb: String
    private let files: Int
    private let batchTotal: Int64?
    private let write: @Sendable (String) -> Void

    /// `batchTotal`: the bytes of every file, when known up front (uploads).
    init(verb: String, files: Int, batchTotal: Int64?,
         write: @escaping @Sendable (String) -> Void = { FileHandleOutput.standardError($0) }) {
        self.verb = verb
        self.files = files
        self.batchTotal = batchTotal
        self.write = write
    }

    /// A new file begins (1-based `index`).
    func begin(_ file: String, index: Int) {
        state.withLock { s in
            s.file = file
            s.index = index
            s.fileDone = 0
            s.fileTotal = nil
            s.lastPercent = -1
            s.lastBytes = 0
        }
    }

    /// ``report(_:_:)`` as a transfer's progress callback.
    var callback: @Sendable (Int64, Int64?) -> Void {
        { [self] done, total in self.report(done, total) }
    }

    /// The transfer's callback: bytes moved of the current file so far, of `total`.
    func report(_ done: Int64, _ total: Int64?) {
        let line: String? = state.withLock { s in
            s.fileDone = done
            s.fileTotal = total
            let percent = total.map { $0 > 0 ? Int(min(100, done * 100 / $0)) : 100 } ?? -1
            guard percent != s.lastPercent || done - s.lastBytes >= 256 * 1024 || !s.drawn else { return nil }
            s.lastPercent = percent
            s.lastBytes = done
            s.drawn = true
            return render(s)
        }
        if let line { write(line) }
    }

    /// The current file is finished (or failed): its bytes join the batch's.
    func end(bytes: Int64) {
        state.withLock { s in
            s.batchDone += bytes
            s.fileDone = 0
        }
    }

    /// Clears the progress line so that a line of output can be printed in its place; the
    /// next report draws it again below.
    func clearLine() {
        let drawn = state.withLock { s in
            defer { s.drawn = false }
            return s.drawn
        }
        if drawn { write("\r\u{1B}[K") }
    }

    /// Ends the line (call once, before printing anything else).
    func close() {
        let drawn = state.withLock { $0.drawn }
        if drawn { write("\n") }
    }

    private func render(_ s: State) -> String {
        let elapsed = ContinuousClock.now - s.start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let moved = s.batchDone + s.fileDone
        let rate = seconds > 0 ? Int64(Double(moved) / seconds) : 0
        var name = s.file
        if name.count > 28 { name = "…" + name.suffix(27) }
        var line = "\r\(verb) \(s.index)/\(files)  \(name)  "
        if let total = s.fileTotal, total > 0 {
            line += Self.bar(Double(s.fileDone) / Double(total), width: 20)
        } else {
            line += ProgressBar.mebibytes(s.fileDone)
        }
        if let batchTotal, batchTotal > 0 {
            line += "   all " + Self.bar(Double(moved) / Double(batchTotal), width: 10)
        }
        return line + "  \(ProgressBar.mebibytes(rate))/s\u{1B}[K"
    }

    /// `[#####-----]  50%`
    static func bar(_ fraction: Double, width: Int) -> String {
        let f = max(0, min(1, fraction))
        let filled = Int((f * Double(width)).rounded(.down))
        let percent = String(Int((f * 100).rounded(.down)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(repeating: " ", count: max(0, 3 - percent.count)) + percent + "%"
    }
}
