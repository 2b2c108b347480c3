import FlickrJobs
import Foundation
import Synchronization

/// How `flickr retag` and `flickr edit` run a job (apply, resume, undo) in front of a person
/// or a program — the one place for both: a progress line on a terminal, NDJSON events with
/// `--events`, and without either a line at least every 30 s; Ctrl-C stops after the current
/// photo; the summary names every photo that failed or conflicted; the exit status says how
/// it ended (0 done, 1 failures or conflicts, 75 an outage, 130 stopped).
enum JobExecution {
    /// The engine's callbacks, as a runner's `run` takes them.
    typealias Run = (_ progress: @Sendable @escaping (JobProgress) -> Void, _ notice: @Sendable @escaping (String) -> Void,
                     _ shouldStop: @Sendable @escaping () -> Bool) async throws -> JobOutcome

    /// Runs a job to its end (or Ctrl-C, or an outage). `name` is the command (`retag`,
    /// `edit`) in messages; `problems` lists the job's failed and conflicting photos afterwards.
    static func execute(_ job: String, name: String, events: Bool, run: Run,
                        problems: (String) throws -> [(status: PhotoStatus, photo: String, detail: String?)]) async throws -> Int32 {
        let stop = InterruptWatch { n in
            if n == 1 { FileHandleOutput.standardError("\nstopping after the current photo…\n") }
        }
        defer { stop.stop() }
        let terminal = Terminal.stderrIsTerminal
        let runCalls = Atomic<Int>(0)
        let lastLine = Mutex(Date())
        let outcome = try await run({ p in
            runCalls.store(p.calls, ordering: .relaxed)
            if events {
                FileHandleOutput.standardError(eventLine(p) + "\n")
            } else if terminal {
                FileHandleOutput.standardError("\r\u{1B}[K" + progressLine(p))
            } else if lastLine.withLock({ last in
                guard Date().timeIntervalSince(last) >= 30 else { return false }
                last = Date()
                return true
            }) {
                FileHandleOutput.standardError(progressLine(p) + "\n")
            }
        }, { line in
            lastLine.withLock { $0 = Date() }
            if events {
                FileHandleOutput.standardError(noticeEvent(job, line) + "\n")
            } else {
                FileHandleOutput.standardError((terminal ? "\r\u{1B}[K" : "") + "flickr \(name): " + line + "\n")
            }
        }, { stop.interrupted })
        if terminal, !events { FileHandleOutput.standardError("\n") }
        let s = outcome.job
        // The job's calls include the plan's reads (and earlier runs'), which the progress line
        // (this run's calls) never showed: say which is which.
        let ran = runCalls.load(ordering: .relaxed)
        let before = s.calls - ran
        print("job \(s.id): \(s.done) of \(s.photos) photos done, \(s.failed) failed, \(s.conflicts) conflict\(s.conflicts == 1 ? "" : "s"), \(s.calls) calls"
              + (before > 0 ? " (\(ran) by this run, \(before) before it: planning and earlier runs)" : ""))
        for problem in try problems(s.id) {
            print("  \(problem.status.rawValue): photo \(problem.photo): \(problem.detail ?? "")")
        }
        if let outage = outcome.outage {
            FileHandleOutput.standardError("flickr \(name): stopped: \(outage)\nNo photo was marked failed; the journal is consistent. "
                                           + "Resume when the endpoint is back with: flickr \(name) resume \(s.id)\n")
            return RetagCommand.tryLater
        }
        if outcome.stopped {
            FileHandleOutput.standardError("stopped after the current photo; the journal is consistent. Resume with: flickr \(name) resume \(s.id)\n")
            return 130
        }
        return s.state == "done" ? 0 : 1
    }

    /// The failed and conflicting photos of `entries`, for the summary.
    static func problems<Change>(_ entries: [JournalEntry<Change>]) -> [(status: PhotoStatus, photo: String, detail: String?)] {
        entries.filter { $0.status == .failed || $0.status == .conflict }.map { ($0.status, $0.change.photoID, $0.detail) }
    }

    /// An NDJSON event for a line the run printed while it waited (`{"job":…,"waiting":…}`).
    static func noticeEvent(_ job: String, _ line: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: ["job": job, "waiting": line], options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func progressLine(_ p: JobProgress) -> String {
        let rate = p.elapsed > 0 ? Double(p.calls) / p.elapsed : 0
        return "[\(p.done + p.failed + p.conflicts)/\(p.total)] \(p.calls) calls, \(String(format: "%.1f", rate))/s, "
            + "\(p.failed) failed, \(p.conflicts) conflicts" + (p.eta.map { ", ETA \(RetagCommand.duration($0))" } ?? "")
    }

    static func eventLine(_ p: JobProgress) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(p)) ?? Data(), as: UTF8.self)
    }
}
