import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import Foundation
import Synchronization

/// `flickr sync [--full] [--deep] [--json] [--events]`: brings the account's library on disk
/// up to date (``LibrarySync``), one process at a time per library.
enum SyncCommand {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "sync")
        guard parsed.positional.isEmpty else {
            throw Invocation.UsageError(message: "unexpected word '\(parsed.positional[0])'; usage: flickr sync [--full] [--deep] [--json] [--events]")
        }
        let opened = try await Subcommands.session(inv, env)
        defer { opened.close() }
        let client = opened.session.client
        guard !client.context.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: "sync") }
        let (store, lock) = try await open(client, env, command: "flickr sync")
        guard let lock else { return RetagCommand.tryLater }
        defer { withExtendedLifetime(lock) {} }
        var sync = LibrarySync(client: client, store: store)
        sync.deep = parsed.has("deep")
        sync.full = parsed.has("full")
        let events = parsed.has("events"), terminal = Terminal.stderrIsTerminal
        let started = Date()
        let summary = try await sync.run(callsBefore: 1) { p in
            if events {
                FileHandleOutput.standardError(json(p) + "\n")
            } else if terminal {
                FileHandleOutput.standardError("\r\u{1B}[K" + line(p, elapsed: Date().timeIntervalSince(started)))
            }
        }
        if terminal, !events { FileHandleOutput.standardError("\r\u{1B}[K") }
        if parsed.has("json") {
            print(json(summary))
        } else {
            print("synced \(summary.account) (\(summary.kind)): \(summary.added) added, \(summary.updated) updated, \(summary.deleted) deleted, "
                  + "\(summary.sets) set\(summary.sets == 1 ? "" : "s") changed" + (sync.deep ? ", \(summary.deep) read deep" : "")
                  + "; \(summary.photos) photos; \(summary.calls) call\(summary.calls == 1 ? "" : "s") in \(String(format: "%.1f", summary.elapsed)) s")
            print("library: \(store.path)")
        }
        return 0
    }

    /// The account's library (its NSID from `flickr.test.login`, remembered for the endpoint so
    /// that queries need no call) and its lock, or nil with the holder named on stderr.
    static func open(_ client: FlickrClient, _ env: [String: String], command: String) async throws -> (LibraryStore, RunnerLock?) {
        let store = try await LibraryJobSource.opened(for: client, environment: env).store
        let nsid = store.account
        let jobs = try JobStore(path: JobStore.defaultPath(environment: env))
        do {
            return (store, try store.lock(command: command, jobs: jobs))
        } catch let busy as RunnerLock.Busy {
            FileHandleOutput.standardError("flickr: the library of \(nsid) \(busy.description.drop { $0 != " " }.dropFirst())\n")
            return (store, nil)
        }
    }

    /// `[photos 1500/6000] 4 calls, ETA 3 s`.
    static func line(_ p: LibrarySync.Progress, elapsed: Double) -> String {
        var s = "[\(p.phase) \(p.done)" + (p.total.map { "/\($0)" } ?? "") + "] \(p.calls) calls"
        if let total = p.total, p.done > 0, total > p.done {
            s += ", ETA " + EditReport.duration(elapsed / Double(p.done) * Double(total - p.done))
        }
        return s
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }
}
