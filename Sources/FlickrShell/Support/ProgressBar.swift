import FlickrAPI
import Foundation
import Synchronization

/// The upload progress bar `flickr` shows on a terminal for `flickr.upload` / `flickr.replace`
/// calls that bring no progress callback of their own:
///
///     uploading [##########----------]  52%  26.0 MiB of 50.0 MiB  31.2 MiB/s
///
/// Drawn on stderr with `\r`, at most ten times a second, finished with a newline; each frame is
/// laid out for the terminal's width at that moment (``ProgressLayout``), so it stays on one row.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var start: ContinuousClock.Instant?
        var finished = false
    }
    private let state = Mutex(State())
    private let columns: @Sendable () -> Int
    private let write: @Sendable (String) -> Void

    /// `columns`: the terminal's width, asked at each frame.
    init(columns: @escaping @Sendable () -> Int = { ProgressLayout.stderrColumns },
         write: @escaping @Sendable (String) -> Void = { FileHandleOutput.standardError($0) }) {
        self.columns = columns
        self.write = write
    }

    /// The callback to hand to the upload.
    var callback: UploadProgress {
        { [self] sent, total in self.report(sent: sent, total: total) }
    }

    func report(sent: Int64, total: Int64?) {
        let now = ContinuousClock.now
        let line: String? = state.withLock { s in
            if s.start == nil || (s.finished && sent < (total ?? 0)) {
                s.start = now  // a new transfer (the same bar serves later uploads too)
                s.finished = false
            }
            let done = total.map { sent >= $0 } ?? false
            if !done, let last = s.lastDraw, now - last < .milliseconds(100) { return nil }
            if done && s.finished { return nil }
            s.lastDraw = now
            s.finished = done
            return Self.render(sent: sent, total: total, elapsed: now - s.start!, columns: columns()) + (done ? "\n" : "")
        }
        if let line { write(line) }
    }

    /// One frame of the bar for a terminal `columns` wide: `\r`, the line, then an erase to the
    /// end of the row (a narrower frame leaves nothing of a wider one). The rate goes first when
    /// the width is short, then the sizes, then the bar.
    static func render(sent: Int64, total: Int64?, elapsed: Duration, columns: Int) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = "\(mebibytes(Int64(seconds > 0 ? Double(sent) / seconds : 0)))/s"
        let line: String
        if let total, total > 0 {
            let fraction = Double(sent) / Double(total)
            let sizes = "\(mebibytes(sent)) of \(mebibytes(total))"
            line = ProgressLayout.fit(columns: columns, bars: 8...24, [
                { "uploading \(BatchProgress.bar(fraction, width: $0))  \(sizes)  \(rate)" },
                { "uploading \(BatchProgress.bar(fraction, width: $0))  \(sizes)" },
                { "uploading \(BatchProgress.bar(fraction, width: $0))" },
                { _ in "uploading \(BatchProgress.percent(fraction))" },
            ])
        } else {
            line = ProgressLayout.fit(columns: columns, bars: 0...0, [
                { _ in "uploading  \(mebibytes(sent)) sent  \(rate)" },
                { _ in "uploading  \(mebibytes(sent)) sent" },
            ])
        }
        return "\r" + line + "\u{1B}[K"
    }

    static func mebibytes(_ bytes: Int64) -> String {
        let mib = Double(bytes) / 1_048_576
        return mib >= 100 ? "\(Int(mib)) MiB" : String(format: "%.1f MiB", mib)
    }
}
