import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import FlickrMedia
import Foundation

/// `flickr export DIR --from BACKUP [--by set|date|flat] [--embed] [--gallery] [--events]` and
/// `flickr export --verify [--repair] DIR`.
///
/// Reads only the backup (``LibraryExport``): no call, no login needed. Exit 0 when every photo
/// the backup holds is exported (or verification found nothing), 1 when one failed or
/// verification found a fault, 2 on a usage error or a folder refused, 75 while another export
/// into DIR or a backup into BACKUP runs, 130 after Ctrl-C.
enum ExportCommand {
    static let synopsis = "usage: flickr export DIR --from BACKUP [--by set|date|flat] [--embed] [--gallery] [--events] | flickr export --verify [--repair] DIR"

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "export")
        guard parsed.positional.count == 1, let directory = parsed.positional.first, !directory.isEmpty else {
            throw Invocation.UsageError(message: (parsed.positional.isEmpty ? "give the export's folder" : "give one folder, not "
                                                  + "\(parsed.positional.count)") + "; " + synopsis)
        }
        let previous = LibraryExport.previous(of: directory)
        if parsed.has("verify") {
            if let other = ["from", "by"].first(where: { parsed[$0] != nil }) ?? ["embed", "gallery"].first(where: parsed.has) {
                throw Invocation.UsageError(message: "--verify checks the export as it was made, so --\(other) has no place beside it; \(synopsis)")
            }
            guard let previous else {
                throw Invocation.UsageError(message: "\(directory) is not an export (no .flickr-export/ in it): nothing to verify")
            }
            var export = LibraryExport(directory: directory, backup: previous.backup)
            (export.layout, export.embed) = (previous.layout, previous.embed)
            guard parsed.has("repair") else { return try verify(export, events: parsed.has("events")) }
            return try await repair(export, events: parsed.has("events"))
        }
        if parsed.has("repair") { throw Invocation.UsageError(message: "--repair mends what --verify finds: give both; \(synopsis)") }
        guard let backup = parsed["from"] ?? previous?.backup else {
            throw Invocation.UsageError(message: "give the backup to export with --from BACKUP; \(synopsis)")
        }
        var export = LibraryExport(directory: directory, backup: backup)
        // `flickr export DIR` alone runs as the last run into DIR did.
        let alone = parsed["from"] == nil && parsed["by"] == nil && !parsed.has("embed") && !parsed.has("gallery")
        export.layout = parsed["by"].flatMap(ExportLayout.init(rawValue:)) ?? previous?.layout ?? .set
        export.embed = parsed.has("embed") || (alone && previous?.embed == true)
        export.gallery = parsed.has("gallery") || (alone && previous?.gallery == true)
        do {
            try LibraryExport.check(directory: directory, backup: backup)
        } catch {
            throw Invocation.UsageError(message: error.message)
        }
        let exifTool = ExifTool()
        if export.embed && !exifTool.isAvailable {
            throw Invocation.UsageError(message: "--embed writes with exiftool, which is not installed (Debian: apt install libimage-exiftool-perl)")
        }
        guard let locks = try lock(directory, backup) else { return RetagCommand.tryLater }
        defer { withExtendedLifetime(locks) {} }
        return try await Self.export(export, exifTool: exifTool, events: parsed.has("events"))
    }

    /// The export's lock, then the backup's (a backup running into BACKUP would change what is
    /// read); nil, with the holder said on stderr, when either is held.
    static func lock(_ directory: String, _ backup: String) throws -> [RunnerLock]? {
        do {
            let own = try LibraryExport.lock(directory, command: "flickr export")
            do {
                return [own, try LibraryBackup.lock(backup, command: "flickr export")]
            } catch let busy as RunnerLock.Busy {
                FileHandleOutput.standardError("flickr export: \(backup) is being backed up by "
                                               + (busy.holder?.description ?? "another process") + "; wait for it to finish\n")
                return nil
            }
        } catch let busy as RunnerLock.Busy {
            FileHandleOutput.standardError("flickr export: \(directory) is being exported by "
                                           + (busy.holder?.description ?? "another process") + "; wait for it to finish or stop it\n")
            return nil
        }
    }

    static func export(_ export: LibraryExport, exifTool: ExifTool, events: Bool) async throws -> Int32 {
        let terminal = Terminal.stderrIsTerminal
        let watch = InterruptWatch { _ in
            if terminal && !events { FileHandleOutput.standardError("\r\u{1B}[K") }
            FileHandleOutput.standardError("stopping after the photo in hand…\n")
        }
        defer { watch.stop() }
        let started = Date()
        let summary = try export.run(exifTool: exifTool, shouldStop: { watch.interrupted }) { p in
            if events {
                FileHandleOutput.standardError("{\"phase\":\"export\",\"done\":\(p.done),\"total\":\(p.total)}\n")
            } else if terminal {
                let elapsed = Date().timeIntervalSince(started)
                var line = "[export \(p.done)/\(p.total)]"
                if p.done > 0, p.total > p.done { line += " ETA " + EditReport.duration(elapsed / Double(p.done) * Double(p.total - p.done)) }
                FileHandleOutput.standardError("\r\u{1B}[K" + line)
            }
        }
        if terminal, !events { FileHandleOutput.standardError("\r\u{1B}[K") }
        for failure in summary.failed { FileHandleOutput.standardError("failed: photo \(failure.photo): \(failure.reason)\n") }
        for id in summary.incomplete {
            FileHandleOutput.standardError("not in the backup whole: photo \(id) (run flickr backup \(export.backup) to finish it)\n")
        }
        print(text(summary, export))
        if summary.diskFull {
            FileHandleOutput.standardError("stopped: no space left on the disk of \(export.directory): \(summary.notExported) photo"
                                           + "\(summary.notExported == 1 ? "" : "s") not exported; what was written is whole and kept — "
                                           + "free some space and run the export again to go on\n")
            return 1
        }
        if summary.interrupted {
            FileHandleOutput.standardError("interrupted: what was done is kept; run the export again to go on\n")
            return 130
        }
        return summary.failed.isEmpty && summary.notExported == 0 ? 0 : 1
    }

    /// The closing summary.
    static func text(_ s: LibraryExport.Summary, _ export: LibraryExport) -> String {
        var parts = ["\(s.written) written", "\(s.moved) moved", "\(s.unchanged) unchanged"]
        if s.removed > 0 { parts.append("\(s.removed) removed (no longer in the backup)") }
        if export.gallery { parts.append("\(s.pages) gallery page\(s.pages == 1 ? "" : "s") written (\(export.directory)/index.html)") }
        if !s.failed.isEmpty { parts.append("\(s.failed.count) failed") }
        if !s.incomplete.isEmpty { parts.append("\(s.incomplete.count) not whole in the backup") }
        let whole = s.notExported > 0 ? "\(s.photos - s.notExported) of \(s.photos)" : "\(s.photos)"
        return "exported \(whole) photos from \(export.backup) into \(export.directory) (by \(export.layout.rawValue)"
            + (export.embed ? ", metadata embedded" : "") + "): " + parts.joined(separator: ", ")
            + " in " + String(format: "%.1f", s.elapsed) + " s"
    }

    /// `--verify --repair`: verifies, marks every photo with a missing, corrupt, stale or
    /// mis-tagged copy to be written again, runs the export, and verifies again: exit 0 only
    /// when the export is sound.
    static func repair(_ export: LibraryExport, events: Bool) async throws -> Int32 {
        guard let report = try verifyReport(export, events: events) else { return RetagCommand.tryLater }
        if !report.isSound {
            let damaged = report.missing + report.corrupt + report.metadata.map { String($0.prefix { $0 != ":" }) }
            try export.invalidate(damaged)
            FileHandleOutput.standardError("repairing: \(report.missing.count) missing, \(report.corrupt.count) corrupt and "
                                           + "\(report.metadata.count) mis-tagged file\(damaged.count == 1 ? "" : "s"), "
                                           + "\(report.stale.count + report.notExported.count) photos stale or not exported\n")
            guard let locks = try lock(export.directory, export.backup) else { return RetagCommand.tryLater }
            let status = try await Self.export(export, exifTool: ExifTool(), events: events)
            withExtendedLifetime(locks) {}
            guard status == 0 else { return status }
        }
        return try verify(export, events: events)
    }

    static func verify(_ export: LibraryExport, events: Bool) throws -> Int32 {
        guard let report = try verifyReport(export, events: events) else { return RetagCommand.tryLater }
        print(verifyText(report, export), terminator: "")
        return report.isSound ? 0 : 1
    }

    /// Runs the verification (holding both locks); nil when another run holds one.
    static func verifyReport(_ export: LibraryExport, events: Bool) throws -> LibraryExport.VerifyReport? {
        guard let locks = try lock(export.directory, export.backup) else { return nil }
        defer { withExtendedLifetime(locks) {} }
        return try export.verify(exifTool: ExifTool()) { p in
            if events { FileHandleOutput.standardError("{\"phase\":\"verify\",\"done\":\(p.done),\"total\":\(p.total)}\n") }
        }
    }

    /// The verification's lines: each fault, then the count.
    static func verifyText(_ report: LibraryExport.VerifyReport, _ export: LibraryExport) -> String {
        var out = ""
        for (label, list) in [("missing", report.missing), ("corrupt", report.corrupt), ("metadata", report.metadata)] {
            for item in list { out += "\(label): \(item)\n" }
        }
        for id in report.stale { out += "stale: photo \(id) changed in the backup since it was exported\n" }
        for id in report.notExported { out += "not exported: photo \(id)\n" }
        if report.unfinished { out += "unfinished: the last export did not finish; run it again\n" }
        out += "verified \(report.files) files (\(ProgressBar.mebibytes(report.bytes))) of \(export.directory) against \(export.backup): "
            + "\(report.missing.count) missing, \(report.corrupt.count) corrupt, \(report.metadata.count) with other metadata, "
            + "\(report.stale.count) stale, \(report.notExported.count) not exported" + (report.isSound ? " — sound" : "") + "\n"
        return out
    }
}
