import Foundation
import Synchronization

/// The progress line of `flickr upload` and `flickr download` on a terminal: the file in hand
/// and the whole batch,
///
///     uploading 3/12  cat.jpg  [#########-----------]  45%   all [###-------]  31%  2.1 MiB/s
///
/// redrawn in place on stderr whenever the file's whole percentage changes or another 256 KiB
/// has moved (never less often), and ended with a newline. Each frame is laid out for the
/// terminal's width at that moment (``ProgressLayout``): on a narrow one the rate, then the
/// batch's bar, then the file's bar give way, and the name is shortened.
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
    private let columns: @Sendable () -> Int
    private let write: @Sendable (String) -> Void

    /// `batchTotal`: the bytes of every file, when known up front (uploads); `columns`: the
    /// terminal's width, asked at each frame.
    init(verb: String, files: Int, batchTotal: Int64?,
         columns: @escaping @Sendable () -> Int = { ProgressLayout.stderrColumns },
         write: @escaping @Sendable (String) -> Void = { FileHandleOutput.standardError($0) }) {
        self.verb = verb
        self.files = files
        self.batchTotal = batchTotal
        self.columns = columns
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
        let rate = "  \(ProgressBar.mebibytes(seconds > 0 ? Int64(Double(moved) / seconds) : 0))/s"
        let count = "\(verb) \(s.index)/\(files)"
        let long = Self.shortened(s.file, to: 28), short = Self.shortened(s.file, to: 16)
        let fileFraction = s.fileTotal.flatMap { $0 > 0 ? Double(s.fileDone) / Double($0) : nil }
        let file: (Int) -> String = { width in
            fileFraction.map { Self.bar($0, width: width) } ?? ProgressBar.mebibytes(s.fileDone)
        }
        let all: (Int) -> String = { width in
            guard let batchTotal = self.batchTotal, batchTotal > 0 else { return "" }
            return "   all " + Self.bar(Double(moved) / Double(batchTotal), width: max(4, width / 2))
        }
        let line = ProgressLayout.fit(columns: columns(), bars: 6...20, [
            { "\(count)  \(long)  \(file($0))\(all($0))\(rate)" },
            { "\(count)  \(short)  \(file($0))\(all($0))\(rate)" },
            { "\(count)  \(short)  \(file($0))\(all($0))" },
            { "\(count)  \(short)  \(file($0))" },
            { _ in "\(count)  \(fileFraction.map(Self.percent) ?? ProgressBar.mebibytes(s.fileDone))" },
        ])
        return "\r" + line + "\u{1B}[K"
    }

    /// `name`, cut from the front to at most `limit` characters (`…` marking the cut).
    static func shortened(_ name: String, to limit: Int) -> String {
        name.count > limit ? "…" + name.suffix(limit - 1) : name
    }

    /// ` 50%`: a whole percentage, right-aligned in four columns.
    static func percent(_ fraction: Double) -> String {
        let p = String(Int((max(0, min(1, fraction)) * 100).rounded(.down)))
        return String(repeating: " ", count: max(0, 3 - p.count)) + p + "%"
    }

    /// `[#####-----]  50%`
    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + percent(fraction)
    }
}
