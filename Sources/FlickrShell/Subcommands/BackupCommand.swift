import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import Foundation

/// `flickr backup DIR [--sizes o] [--xmp] [--prune] [--events]` and `flickr backup --verify DIR`.
///
/// A backup first syncs the library incrementally (holding the library's lock, as `flickr sync`
/// does), then brings `DIR` up to date from it (``LibraryBackup``). Exit 0 when every photo is
/// backed up, 1 when one failed (the next run tries it again) or verification found a fault, 2 on
/// a usage error, 75 when another process holds the library or Flickr could not be reached, 130
/// after Ctrl-C.
enum BackupCommand {
    static let synopsis = "usage: flickr backup DIR [--sizes o] [--xmp] [--prune] [--events] | flickr backup --verify [--repair] DIR"

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "backup")
        guard parsed.positional.count == 1, let directory = parsed.positional.first, !directory.isEmpty else {
            throw Invocation.UsageError(message: (parsed.positional.isEmpty ? "give the backup's folder" : "give one folder, not "
                                                  + "\(parsed.positional.count)") + "; " + synopsis)
        }
        if let sizes = parsed["sizes"], sizes != "o" {
            throw Invocation.UsageError(message: "--sizes: '\(sizes)' is not kept by backups; they keep the original of each photo (o) "
                                        + "— use flickr download --size for other sizes")
        }
        if parsed.has("repair") && !parsed.has("verify") {
            throw Invocation.UsageError(message: "--repair mends what --verify finds: give both; \(synopsis)")
        }
        if parsed.has("verify") {
            if let other = ["xmp", "prune", "sizes"].first(where: { parsed.has($0) || parsed[$0] != nil }) {
                throw Invocation.UsageError(message: "--verify changes nothing, so --\(other) has no place beside it; \(synopsis)")
            }
            guard parsed.has("repair") else { return try verify(directory, events: parsed.has("events"), env) }
            return try await repair(directory, parsed, inv, env)
        }
        return try await backUp(directory, parsed, inv, env)
    }

    // MARK: Backing up

    static func backUp(_ directory: String, _ parsed: ParsedArguments, _ inv: Invocation,
                       _ env: [String: String]) async throws -> Int32 {
        try LibraryBackup.checkFolder(directory)
        // The folder's own lock first: a second backup into it, from anywhere, is refused
        // before it syncs or writes anything.
        guard let folderLock = try lockFolder(directory) else { return RetagCommand.tryLater }
        defer { withExtendedLifetime(folderLock) {} }
        let opened = try await Subcommands.session(inv, env)
        defer { opened.close() }
        let client = opened.session.client
        guard !client.context.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: "backup") }
        let (library, lock) = try await SyncCommand.open(client, env, command: "flickr backup")
        guard let lock else { return RetagCommand.tryLater }
        defer { withExtendedLifetime(lock) {} }
        // A folder that cannot hold this backup is refused before the sync spends a call.
        if let owner = LibraryBackup.account(of: directory), owner != library.account {
            throw LibraryError("\(directory) is the backup of \(owner), not of \(library.account): give another folder")
        }
        let events = parsed.has("events"), terminal = Terminal.stderrIsTerminal
        let started = Date()
        let sync = try await LibrarySync(client: client, store: library).run(callsBefore: 1) { p in
            if events {
                FileHandleOutput.standardError(SyncCommand.json(p) + "\n")
            } else if terminal {
                FileHandleOutput.standardError("\r\u{1B}[K" + SyncCommand.line(p, elapsed: Date().timeIntervalSince(started)))
            }
        }
        if terminal, !events { FileHandleOutput.standardError("\r\u{1B}[K") }

        var backup = LibraryBackup(client: client, library: library, directory: directory)
        backup.xmp = parsed.has("xmp")
        backup.prune = parsed.has("prune")
        let watch = InterruptWatch { n in
            if terminal && !events { FileHandleOutput.standardError("\r\u{1B}[K") }
            FileHandleOutput.standardError(n == 1 ? "stopping after the files in flight (Ctrl-C again to abort them)…\n"
                                                  : "aborting the files in flight…\n")
        }
        defer { watch.stop() }
        let backupStarted = Date()
        let result: Result<LibraryBackup.Summary, any Error> = await watch.abortable {
            do {
                return .success(try await backup.run(shouldStop: { watch.interrupted }) { p in
                    if events {
                        FileHandleOutput.standardError(SyncCommand.json(Event(p)) + "\n")
                    } else if terminal {
                        FileHandleOutput.standardError("\r\u{1B}[K" + line("backup", p.done, p.total, p.bytes,
                                                                           elapsed: Date().timeIntervalSince(backupStarted)))
                    }
                })
            } catch {
                return .failure(error)
            }
        }
        if terminal, !events { FileHandleOutput.standardError("\r\u{1B}[K") }
        let summary: LibraryBackup.Summary
        switch result {
        case .success(let s): summary = s
        case .failure(let error as LibraryError) where error.message.hasPrefix("stopped:"):
            FileHandleOutput.standardError("flickr backup: \(error.message)\n")
            return RetagCommand.tryLater
        case .failure(let error): throw error
        }
        for failure in summary.failed { FileHandleOutput.standardError("failed: photo \(failure.photo): \(failure.reason)\n") }
        print(text(summary, sync: sync, directory: directory, prune: backup.prune))
        if summary.diskFull {
            FileHandleOutput.standardError("stopped: no space left on the disk of \(directory): \(summary.notBackedUp) photo"
                                           + "\(summary.notBackedUp == 1 ? "" : "s") not backed up; what was stored is whole and kept — "
                                           + "free some space and run flickr backup \(directory) again to go on\n")
            return 1
        }
        if summary.interrupted {
            FileHandleOutput.standardError("interrupted: what was done is kept; run flickr backup \(directory) again to go on\n")
            return 130
        }
        return summary.failed.isEmpty ? 0 : 1
    }

    /// The backup folder's lock (``LibraryBackup/lock(_:command:)``); nil, with the holder said
    /// on stderr, when another run holds it.
    static func lockFolder(_ directory: String) throws -> RunnerLock? {
        do {
            return try LibraryBackup.lock(directory, command: "flickr backup")
        } catch let busy as RunnerLock.Busy {
            FileHandleOutput.standardError("flickr backup: \(directory) is being backed up by "
                                           + (busy.holder?.description ?? "another process") + "; wait for it to finish or stop it\n")
            return nil
        }
    }

    /// The NDJSON event of a backup's progress (`--events`).
    struct Event: Encodable {
        var phase = "backup"
        var done: Int, total: Int, bytes: Int64, calls: Int
        init(_ p: LibraryBackup.Progress) { (done, total, bytes, calls) = (p.done, p.total, p.bytes, p.calls) }
    }

    /// `[backup 120/6000] 35.2 MiB at 4.1 MiB/s, ETA 2 min` (files done of all, bytes so far).
    static func line(_ phase: String, _ done: Int, _ total: Int, _ bytes: Int64, elapsed: Double) -> String {
        var s = "[\(phase) \(done)/\(total)] \(ProgressBar.mebibytes(bytes))"
        if elapsed > 0.5 { s += " at " + ProgressBar.mebibytes(Int64(Double(bytes) / elapsed)) + "/s" }
        if done > 0, total > done { s += ", ETA " + EditReport.duration(elapsed / Double(done) * Double(total - done)) }
        return s
    }

    /// The closing summary.
    static func text(_ s: LibraryBackup.Summary, sync: LibrarySync.Summary, directory: String, prune: Bool) -> String {
        var parts = ["\(s.downloaded) original\(s.downloaded == 1 ? "" : "s") downloaded (\(ProgressBar.mebibytes(s.bytes)))"]
        if s.reused > 0 { parts.append("\(s.reused) taken from an interrupted run") }
        parts.append("\(s.sidecars) sidecar\(s.sidecars == 1 ? "" : "s")" + (s.xmp > 0 ? " and \(s.xmp) XMP" : "") + " written")
        parts.append("\(s.sets) set\(s.sets == 1 ? "" : "s") written")
        parts.append("\(s.unchanged) unchanged")
        if !s.failed.isEmpty { parts.append("\(s.failed.count) failed") }
        if s.notBackedUp > 0 { parts.append("\(s.notBackedUp) not backed up") }
        // What this run leaves backed up, not what it set out to do (Ctrl-C, a full disk).
        let whole = s.notBackedUp > 0 ? "\(s.photos - s.notBackedUp) of \(s.photos)" : "\(s.photos)"
        var text = "backed up \(whole) photos into \(directory): " + parts.joined(separator: ", ")
        if s.pruned > 0 { text += "; \(s.pruned) deleted on Flickr moved to \(directory)/\(BackupLayout.deletedFolder)/" }
        if s.deletedKept > 0 {
            text += "; \(s.deletedKept) deleted on Flickr kept" + (prune ? "" : " (--prune moves them to \(directory)/\(BackupLayout.deletedFolder)/)")
        }
        let calls = sync.calls + s.calls
        text += "; \(calls) call\(calls == 1 ? "" : "s") (sync \(sync.calls), backup \(s.calls)) in \(String(format: "%.1f", sync.elapsed + s.elapsed)) s"
        return text
    }

    // MARK: Verifying

    /// `--verify --repair`: verifies, forgets every missing or corrupt file (a corrupt one is
    /// removed), backs up (which fetches and writes them again, after a sync), and verifies
    /// again: exit 0 only when every photo is backed up and every file sound.
    static func repair(_ directory: String, _ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let events = parsed.has("events")
        guard let report = try verifyReport(directory, events: events, env) else { return RetagCommand.tryLater }
        let damaged = report.missing + report.corrupt
        if !damaged.isEmpty || !report.notBackedUp.isEmpty || report.unfinished {
            try LibraryBackup.forget(damaged, in: directory)
            FileHandleOutput.standardError("repairing: \(report.missing.count) missing and \(report.corrupt.count) corrupt file"
                                           + "\(damaged.count == 1 ? "" : "s") to fetch or write again\n")
            let status = try await backUp(directory, parsed, inv, env)
            guard status == 0 else { return status }
        }
        return try verify(directory, events: events, env)
    }

    static func verify(_ directory: String, events: Bool, _ env: [String: String]) throws -> Int32 {
        guard let report = try verifyReport(directory, events: events, env) else { return RetagCommand.tryLater }
        print(verifyText(report, directory: directory), terminator: "")
        return report.isSound ? 0 : 1
    }

    /// Runs the verification (holding the folder's lock); nil when another run holds it.
    static func verifyReport(_ directory: String, events: Bool, _ env: [String: String]) throws -> BackupVerifier.Report? {
        let notABackup = LibraryError("\(directory) is not a backup (no \(BackupLayout.stateFolder)/ in it): nothing to verify")
        guard FileManager.default.fileExists(atPath: directory + "/" + BackupLayout.stateFolder) else { throw notABackup }
        // A backup running into the folder would show files in flight as faults: wait for it.
        // The lock comes before the account is read: a first backup holds it from before its
        // state names the account, and a verify then must be told it runs, not "not a backup".
        guard let folderLock = try lockFolder(directory) else { return nil }
        defer { withExtendedLifetime(folderLock) {} }
        guard let account = LibraryBackup.account(of: directory) else { throw notABackup }
        let libraryPath = LibraryStore.path(for: account, in: LibraryStore.directory(environment: env))
        let library = FileManager.default.fileExists(atPath: libraryPath) ? try LibraryStore(path: libraryPath, account: account) : nil
        let terminal = Terminal.stderrIsTerminal
        let started = Date()
        let report = try BackupVerifier(directory: directory).run(library: library) { p in
            guard p.done % 50 == 0 || p.done == p.total else { return }
            if events {
                FileHandleOutput.standardError("{\"phase\":\"verify\",\"done\":\(p.done),\"total\":\(p.total),\"bytes\":\(p.bytes)}\n")
            } else if terminal {
                let elapsed = Date().timeIntervalSince(started)
                FileHandleOutput.standardError("\r\u{1B}[K" + line("verify", p.done, p.total, p.bytes, elapsed: elapsed))
            }
        }
        if terminal, !events { FileHandleOutput.standardError("\r\u{1B}[K") }
        return report
    }

    /// The verification's lines: each fault, then the count.
    static func verifyText(_ report: BackupVerifier.Report, directory: String) -> String {
        var out = ""
        for (label, list) in [("missing", report.missing), ("corrupt", report.corrupt), ("extra", report.extra), ("stale", report.stale)] {
            for path in list { out += "\(label): \(path)\n" }
        }
        for id in report.notBackedUp { out += "not backed up: photo \(id)\n" }
        if report.unfinished { out += "unfinished: the last backup run did not finish; run flickr backup \(directory) again\n" }
        out += "verified \(report.files) files (\(ProgressBar.mebibytes(report.bytes))) of \(report.account): "
            + "\(report.missing.count) missing, \(report.corrupt.count) corrupt, \(report.extra.count) extra, \(report.stale.count) stale, "
            + "\(report.notBackedUp.count) not backed up"
        if report.deletedKept > 0 { out += "; \(report.deletedKept) deleted on Flickr kept" }
        out += report.comparedWithLibrary ? "" : "; no library of \(report.account) here to compare with (flickr sync makes one)"
        out += report.isSound ? " — sound\n" : "\n"
        return out
    }
}
