import FlickrAPI
import Foundation
import Synchronization

/// The upload progress bar `flickr` shows on a terminal for `flickr.upload` / `flickr.replace`
/// calls that bring no progress callback of their own:
///
///     uploading [##########----------]  52%  26.0 MiB of 50.0 MiB  31.2 MiB/s
///
/// Drawn on stderr with `\r`, at most ten times a second, finished with a newline.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var start: ContinuousClock.Instant?
        var finished = false
    }
    private let state = Mutex(State())
    private let width: Int
    private let write: @Sendable (String) -> Void

    init(width: Int = 24, write: @escaping @Sendable (String) -> Void = { FileHandleOutput.standardError($0) }) {
        self.width = width
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
            return Self.render(sent: sent, total: total, elapsed: now - s.start!, width: width) + (done ? "\n" : "")
        }
        if let line { write(line) }
    }

    /// One frame of the bar.
    static func render(sent: Int64, total: Int64?, elapsed: Duration, width: Int) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(sent) / seconds : 0
        guard let total, total > 0 else {
            return "\ruploading  \(mebibytes(sent)) sent  \(mebibytes(Int64(rate)))/s"
        }
        let fraction = min(1, Double(sent) / Double(total))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = String(Int((fraction * 100).rounded(.down)))
        return "\ruploading [\(bar)] \(String(repeating: " ", count: max(0, 3 - percent.count)))\(percent)%  "
            + "\(mebibytes(sent)) of \(mebibytes(total))  \(mebibytes(Int64(rate)))/s"
    }

    static func mebibytes(_ bytes: Int64) -> String {
        let mib = Double(bytes) / 1_048_576
        return mib >= 100 ? "\(Int(mib)) MiB" : String(format: "%.1f MiB", mib)
    }
}
