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
            if n == 1 { FileHandleOutput.standardError(events ? noticeEvent(job, "stopping", "stopping after the current photo") + "\n"
                                                              : "\nstopping after the current photo…\n") }
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
                FileHandleOutput.standardError(noticeEvent(job, "waiting", line) + "\n")
            } else {
                FileHandleOutput.standardError((terminal ? "\r\u{1B}[K" : "") + "flickr \(name): " + line + "\n")
            }
        }, { stop.interrupted })
        if terminal, !events { FileHandleOutput.standardError("\n") }
        let s = outcome.job
        let status: Int32 = outcome.outage != nil ? RetagCommand.tryLater : outcome.stopped ? 130 : s.state == "done" ? 0 : 1
        let listed = try problems(s.id)
        let resume = "flickr \(name) resume \(s.id)"
        if events {
            // One object for a program: the job's counts, what a person acts on, the exit status.
            var o = JobsCommand.object(s)
            o["problems"] = listed.map { ["status": $0.status.rawValue, "photo": $0.photo, "detail": $0.detail as Any? ?? NSNull()] }
            o["exit"] = Int(status)
            if let outage = outcome.outage { o["stopped"] = outage } else if outcome.stopped { o["stopped"] = "interrupted" }
            if outcome.stopped { o["resume"] = resume }
            print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self))
            return status
        }
        // The job's calls include the plan's reads (and earlier runs'), which the progress line
        // (this run's calls) never showed: say which is which.
        let ran = runCalls.load(ordering: .relaxed)
        let before = s.calls - ran
        print("job \(s.id): \(s.done) of \(s.photos) photos done, \(s.failed) failed, \(s.conflicts) conflict\(s.conflicts == 1 ? "" : "s"), \(s.calls) calls"
              + (before > 0 ? " (\(ran) by this run, \(before) before it: planning and earlier runs)" : "")
              + (s.refused > 0 ? "; \(s.refused) refused at plan time (never sent)" : ""))
        for problem in listed {
            print("  \(problem.status.rawValue): photo \(problem.photo): \(problem.detail ?? "")")
        }
        if let outage = outcome.outage {
            FileHandleOutput.standardError("flickr \(name): stopped: \(outage)\nNo photo was marked failed; the journal is consistent. "
                                           + "Resume when the endpoint is back with: \(resume)\n")
        } else if outcome.stopped {
            FileHandleOutput.standardError("stopped after the current photo; the journal is consistent. Resume with: \(resume)\n")
        }
        return status
    }

    /// The photos of `entries` a person acts on, for the summary: those that failed or
    /// conflicted, and those refused at plan time.
    static func problems<Change>(_ entries: [JournalEntry<Change>]) -> [(status: PhotoStatus, photo: String, detail: String?)] {
        entries.filter { [.failed, .conflict, .refused].contains($0.status) }.map { ($0.status, $0.change.photoID, $0.detail) }
    }

    /// An NDJSON event for a line the run printed while it waited (`{"job":…,"waiting":…}`)
    /// or as it was told to stop (`{"job":…,"stopping":…}`).
    static func noticeEvent(_ job: String, _ key: String, _ line: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: ["job": job, key: line], options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func progressLine(_ p: JobProgress) -> String {
        let rate = p.elapsed > 0 ? Double(p.calls) / p.elapsed : 0
        return "[\(p.done + p.failed + p.conflicts)/\(p.total)] \(p.calls) calls, \(String(format: "%.1f", rate))/s, "
            + "\(p.failed) failed, \(p.conflicts) conflicts" + (p.eta.map { ", ETA \(EditReport.duration($0))" } ?? "")
    }

    static func eventLine(_ p: JobProgress) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(p)) ?? Data(), as: UTF8.self)
    }
}
