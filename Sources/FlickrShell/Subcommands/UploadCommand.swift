import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrProtocol
import Foundation

/// `flickr upload PATH... [--title-from-filename] [--tags TAGS] [--set TITLE] [--public|--private] [--async]`
///
/// Thin over what `flickr.upload` does for scripts (``FlickrClient/upload(_:arguments:async:progress:)``):
/// the paths are expanded (directories recursively, hidden entries skipped) and every file that
/// is not a photo or video Flickr accepts is reported and skipped before any byte is sent. Exit
/// 0 when every accepted file went up, 1 when one failed (or there was nothing to upload), 2 on
/// a usage error (nothing sent).
enum UploadCommand {
    struct Plan {
        var files: [(path: String, size: Int64)] = []
        var skipped: [(path: String, reason: String)] = []
        /// Skipped files that were named on the command line (not found in a folder): the
        /// user asked for them, so the exit status says they did not go up.
        var namedSkipped = 0
    }

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let options = try CommandLineParser.parse(args, for: "upload")
        let paths = options.positional
        guard !paths.isEmpty else { throw Invocation.UsageError(message: "no file or directory given (see flickr upload --help)") }
        guard options["public"] == nil || options["private"] == nil else {
            throw Invocation.UsageError(message: "--public and --private exclude each other")
        }
        let plan = try expand(paths)
        for (path, reason) in plan.skipped { FileHandleOutput.standardError("skipping \(Self.printable(path)): \(reason)\n") }
        guard !plan.files.isEmpty else {
            FileHandleOutput.standardError("flickr upload: nothing to upload\n")
            return 1
        }
        var fields: [String: String] = [:]
        if let tags = options["tags"] {
            // What Flickr would not store is refused here, not lost (FlickrClient checks it too).
            let lost = TagString.unstorable(in: tags)
            guard lost.isEmpty else {
                throw Invocation.UsageError(message: "--tags: " + lost.map { "'\($0)'" }.joined(separator: ", ")
                                            + " has no letter or digit, so Flickr would not store it as a tag; nothing was sent")
            }
            fields["tags"] = tags
        }
        if options["public"] != nil { fields["is_public"] = "1" }
        if options["private"] != nil { (fields["is_public"], fields["is_friend"], fields["is_family"]) = ("0", "0", "0") }
        let async = options["async"] != nil

        let opened = try await Subcommands.session(inv, env)
        defer { opened.close() }
        let session = opened.session
        let client = session.client
        guard !client.context.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: "upload") }
        guard client.context.hasOAuthToken || client.context.authToken != nil else {
            throw FlickrError.missingCredentials("login with write permission (flickr login)", method: "upload")
        }

        let progress = Terminal.stderrIsTerminal
            ? BatchProgress(verb: "uploading", files: plan.files.count, batchTotal: plan.files.reduce(0) { $0 + $1.size })
            : nil
        // Ctrl-C: stop after the file in flight; a second one aborts it. Either way what went up
        // is reported, added to the set and summed up (exit 130), as `retag apply` stops.
        let watch = InterruptWatch.forTransfers(progress: progress)
        defer { watch.stop() }
        let titleFromFilename = options["title-from-filename"] != nil
        var outcome = await watch.abortable { () -> Outcome in
            var outcome = Outcome()
            for (index, file) in plan.files.enumerated() {
                if watch.interrupted { break }
                var arguments = fields
                if titleFromFilename {
                    arguments["title"] = ((file.path as NSString).lastPathComponent as NSString).deletingPathExtension
                }
                progress?.begin((file.path as NSString).lastPathComponent, index: index + 1)
                do {
                    let result = try await client.upload(.file(file.path), arguments: arguments, async: async,
                                                         progress: progress?.callback)
                    if let ticket = result.ticketID { outcome.tickets.append((file.path, ticket)) }
                    if let id = result.photoID {
                        outcome.uploaded.append((file.path, id))
                        progress?.clearLine()
                        FileHandleOutput.standardOutput("\(id)\t\(Self.printable(file.path))\n")
                    }
                } catch let error as FlickrError where error.kind == .cancelled && watch.interrupted {
                    progress?.end(bytes: 0)
                    break  // aborted by the second Ctrl-C: not sent (or sent in part, which Flickr drops)
                } catch {
                    outcome.failed.append((file.path, "\(error)"))
                }
                outcome.finished += 1
                progress?.end(bytes: file.size)
            }
            return outcome
        }
        progress?.close()
        if !outcome.tickets.isEmpty {
            do {
                let done = try await client.waitForTickets(outcome.tickets.map(\.ticket))
                for (path, ticket) in outcome.tickets {
                    let state = done.first { $0.id == ticket }
                    if let id = state?.photoID, state?.status == .complete {
                        outcome.uploaded.append((path, id))
                        FileHandleOutput.standardOutput("\(id)\t\(Self.printable(path))\n")
                    } else {
                        outcome.failed.append((path, "ticket \(ticket) \(state.map { "\($0.status)" } ?? "unknown")"))
                    }
                }
            } catch {
                for (path, ticket) in outcome.tickets { outcome.failed.append((path, "ticket \(ticket): \(error)")) }
            }
        }
        var setNote = ""
        if let title = options["set"], !outcome.uploaded.isEmpty {
            do {
                setNote = try await addToSet(title: title, photos: outcome.uploaded.map(\.id), client: client)
            } catch {
                outcome.failed.append(("set \"\(title)\"", error.description))
            }
        }
        for (path, error) in outcome.failed { FileHandleOutput.standardError("failed: \(path): \(error)\n") }
        var summary = "uploaded \(outcome.uploaded.count) of \(plan.files.count)"
        if !plan.skipped.isEmpty { summary += ", skipped \(plan.skipped.count) (each named above with its reason)" }
        if !outcome.failed.isEmpty { summary += ", \(outcome.failed.count) failed" }
        if watch.interrupted { summary += ", interrupted: \(plan.files.count - outcome.finished) not uploaded" }
        FileHandleOutput.standardError(summary + setNote + "\n")
        if watch.interrupted { return watch.interruptStatus }
        return outcome.failed.isEmpty && outcome.uploaded.count == plan.files.count && plan.namedSkipped == 0 ? 0 : 1
    }

    /// A path as printed, one line whatever its name holds: backslash, tab, CR and LF as `\\`,
    /// `\t`, `\r`, `\n` (so each `ID<TAB>PATH` line stays one line for a program reading it).
    static func printable(_ path: String) -> String {
        var out = ""
        for ch in path {
            switch ch {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out
    }

    /// What the transfers gave: photos up (path, id), pending tickets (`--async`), failures,
    /// and how many files were finished (up or failed; not one aborted or never started).
    struct Outcome: Sendable {
        var finished = 0
        var uploaded: [(path: String, id: String)] = []
        var tickets: [(path: String, ticket: String)] = []
        var failed: [(path: String, error: String)] = []
    }

    /// The files under `paths` (directories recursively, sorted, hidden entries skipped), split
    /// into those Flickr takes and those it would refuse. A path that does not exist is a usage
    /// error, found before anything is sent.
    static func expand(_ paths: [String]) throws(Invocation.UsageError) -> Plan {
        var plan = Plan()
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Invocation.UsageError(message: "\(path): no such file or directory")
            }
            var files: [String] = []
            if isDirectory.boolValue {
                var walk = FolderWalk()
                walk.read(path)
                files = walk.files
                plan.skipped += walk.skipped
            } else {
                files = [path]
            }
            for file in files {
                let size = (try? fm.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
                if let refusal = MediaFile.check(file, size: size).refusal {
                    plan.skipped.append((file, refusal))
                    // A file named on the command line counts against the exit status (an empty one does not).
                    if !isDirectory.boolValue, size > 0 || access(file, R_OK) != 0 { plan.namedSkipped += 1 }
                } else {
                    plan.files.append((file, size))
                }
            }
        }
        return plan
    }

    /// Adds `photos` to the caller's set titled `title`, creating it (the first photo as its
    /// primary) when there is none. Returns a note for the summary.
    static func addToSet(title: String, photos: [String], client: FlickrClient) async throws(FlickrError) -> String {
        var setID: String?
        var page = 1
        search: while true {
            let rsp = try await client.call("flickr.photosets.getList", ["page": String(page), "per_page": "500"])
            for set in rsp["photosets.photoset"]?.array ?? [] where set["title"]?.text == title {
                setID = set["id"]?.string
                break search
            }
            let pages = Int(rsp["photosets.pages"]?.string ?? "1") ?? 1
            if page >= pages { break }
            page += 1
        }
        var toAdd = photos
        var note = ", added to set \"\(title)\""
        if setID == nil {
            let created = try await client.call("flickr.photosets.create", ["title": title, "primary_photo_id": photos[0]])
            guard let id = created["photoset.id"]?.string else {
                throw FlickrError(kind: .parse, message: "photosets.create answered without a set id", method: "flickr.photosets.create")
            }
            setID = id
            toAdd.removeFirst()
            note = ", added to the new set \"\(title)\""
        }
        for photo in toAdd {
            do {
                _ = try await client.call("flickr.photosets.addPhoto", ["photoset_id": setID!, "photo_id": photo])
            } catch where FlickrErrorCode.photoAlreadyInSet.matches(error.code) {
                continue  // already in the set
            }
        }
        return note + " (\(setID!))"
    }
}
