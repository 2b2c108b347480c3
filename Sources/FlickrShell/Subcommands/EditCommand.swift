import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import FlickrLua
import FlickrProtocol
import Foundation
import Synchronization

/// `flickr edit plan (--query k=v… | --find KEY=VALUE…) CHANGES… [--out PLAN] [--json]`,
/// `edit apply PLAN [--yes]`, `edit resume [JOB|last]`, `edit undo [JOB|last] [--yes]` (CLI.md):
/// retag's plan/apply/journal/resume/undo for every group of a photo's metadata. Plan exits as
/// `diff` does: 0 nothing to change, 1 changes planned, 2 an error; apply, resume and undo exit
/// 0 only when every planned photo is done, as retag's.
enum EditCommand {
    static var usage: String { "usage: flickr edit " + (CommandLineSpec.subcommand(named: "edit")?.synopsis ?? "") }

    /// `edit apply|resume|undo` are the jobs' one front end; `last` means the last edit job.
    static let front = JobRunCommand.Front(name: "edit", scope: .edit)

    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "edit")
        switch parsed.action {
        case "plan":
            do { return try await plan(parsed, inv, env) } catch let error as JobError {
                FileHandleOutput.standardError("flickr edit: \(error)\n")
                return 2
            }
        case "apply": return try await JobRunCommand.apply(parsed, inv, env, front: front)
        case "resume": return try await JobRunCommand.resume(parsed, inv, env, front: front)
        default: return try await JobRunCommand.undo(parsed, inv, env, front: front)
        }
    }

    /// The parsed words of `edit plan`, checked before any request.
    struct PlanArguments {
        var spec = EditSpec()
        var query: [String: String] = [:]
        var find: [String: String]?
        var out: String?
        var json = false
        /// `--license` as given (a name needs Flickr's list to resolve).
        var license: String?
        /// `--add-to-set` / `--remove-from-set` as given (titles need the account's sets).
        var addSets: [String] = []
        var removeSets: [String] = []
        var createSet = false
        /// `--lua FILE`: a chunk returning `function(photo) return { title = …, … } end`.
        var luaFile: String?
        /// The options as given, kept with the job.
        var rules: [String] = []
        var warnings: [String] = []
    }

    static func planArguments(_ parsed: ParsedArguments) throws(Invocation.UsageError) -> PlanArguments {
        guard parsed.positional.isEmpty else { throw Invocation.UsageError(message: "unexpected word '\(parsed.positional[0])'; \(usage)") }
        var p = PlanArguments()
        // The changes, read by the one reader of changes (retag's rules and Lua use it too).
        var changes = ChangeRequest(source: .commandLine)
        do {
            for option in parsed.given {
                let value = option.values.first ?? ""
                if !["out", "json", "query", "find"].contains(option.name) {
                    p.rules.append("--" + option.name + option.values.map { " " + ($0.contains(" ") ? "'\($0)'" : $0) }.joined())
                }
                switch option.name {
                case "title", "description", "privacy", "license", "safety", "content-type", "shift-taken", "set-taken", "geo",
                     "clear-geo", "add-to-set", "remove-from-set", "create-set", "rename", "add", "remove":
                    try changes.add(option.name.replacingOccurrences(of: "-", with: "_"), ChangeRequest.value(of: option.values))
                case "query":
                    guard let eq = value.firstIndex(of: "="), eq != value.startIndex else {
                        throw Invocation.UsageError(message: "--query: '\(value)' is not key=value")
                    }
                    let key = String(value[..<eq])
                    guard RetagCommand.queryKeys.contains(key) else {
                        throw Invocation.UsageError(message: "--query: '\(key)' is not one of \(RetagCommand.queryKeys.sorted().joined(separator: ", "))")
                    }
                    p.query[key] = String(value[value.index(after: eq)...])
                case "find":
                    let eq = value.firstIndex(of: "=")
                    let key = eq.map { String(value[..<$0]) } ?? value
                    p.find = p.find ?? [:]
                    p.find?[key] = eq.map { String(value[value.index(after: $0)...]) } ?? "true"
                case "out": p.out = value
                case "json": p.json = true
                case "lua":
                    guard FileManager.default.isReadableFile(atPath: value) else { throw Invocation.UsageError(message: "--lua: cannot read \(value)") }
                    p.luaFile = value
                default: break
                }
            }
            if p.find != nil && !p.query.isEmpty { throw Invocation.UsageError(message: "--find and --query exclude each other: select from the library or from Flickr") }
            try changes.check()
            (p.spec, p.license, p.addSets, p.removeSets, p.createSet) = (changes.spec, changes.license, changes.addSets, changes.removeSets, changes.createSet)
            p.warnings = changes.warnings
            // Placeholders for the check: sets and licences are resolved with Flickr's lists.
            var checked = p.spec
            checked.addToSets = p.addSets
            checked.removeFromSets = p.removeSets
            if p.license != nil { checked.license = 0 }
            // A --lua rule alone is a change (what it returns is checked per photo).
            if p.luaFile == nil || !checked.isEmpty { try checked.check() }
        } catch let error as EditSpecError {
            throw Invocation.UsageError(message: error.message)
        } catch let error as ChangeRequestError {
            throw Invocation.UsageError(message: error.message)
        } catch let error as Invocation.UsageError {
            throw error
        } catch {
            throw Invocation.UsageError(message: "\(error)")
        }
        return p
    }

    static func plan(_ parsed: ParsedArguments, _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        var p = try planArguments(parsed)
        for warning in p.warnings { FileHandleOutput.standardError("flickr edit plan: warning: \(warning)\n") }
        let (opened, store) = try await RetagCommand.open(inv, env, command: "edit")
        defer { opened.close() }
        let client = opened.session.client
        let result: EditPlanner.Result
        var names = EditReport.Names()
        var setSizes: [String: Int] = [:]
        var rule: FlickrLuaSession.EditRule?
        let sentAtStart = client.requestsSent
        do {
            // Licences and sets by name need Flickr's lists (one call each); refused before any write.
            let given = p.spec
            var licenses: [(id: Int, name: String)]?
            var sets: [(id: String, title: String, size: Int)]?
            if let name = p.license {
                let list = try await EditPlanner.licenses(client: client)
                p.spec.license = try EditSpec.license(name, among: list)
                for l in list { names.licenses[l.id] = l.name }
                licenses = list
            }
            if !p.addSets.isEmpty || !p.removeSets.isEmpty {
                let list = try await EditPlanner.sets(client: client)
                for s in list { (names.sets[s.id], setSizes[s.id]) = (s.title, s.size) }
                p.spec.addToSets = try p.addSets.map { try EditPlanner.resolveSet($0, among: list, create: p.createSet, option: "--add-to-set") }
                p.spec.removeFromSets = try p.removeSets.map { try EditPlanner.resolveSet($0, among: list, create: false, option: "--remove-from-set") }
                try p.spec.check()
                sets = list
            }
            // --lua: flickr.edit.plan's rule runner over the options, in this command's Lua.
            if let file = p.luaFile {
                rule = try await opened.session.editRule(file: file, changes: given, license: p.license, addSets: p.addSets, removeSets: p.removeSets,
                                                         createSet: p.createSet, licenses: licenses, sets: sets)
            }
            var planner = EditPlanner(client: client, store: store)
            planner.licenses = licenses.map { Set($0.map(\.id)) }
            planner.lookupCalls = client.requestsSent - sentAtStart
            var libraryLock: RunnerLock?
            if let source = LibraryJobSource.synced(for: client, environment: env) {
                do {
                    libraryLock = try source.store.lock(command: "flickr edit plan", jobs: store)
                    planner.source = source
                } catch let busy as RunnerLock.Busy {
                    if p.find != nil { throw JobError("--find needs the library, and \(busy.holder?.description ?? "another process") holds it; try again when it is done") }
                    FileHandleOutput.standardError("flickr edit plan: the library is busy (\(busy.holder?.description ?? "another process")); planning from Flickr\n")
                }
            }
            defer { withExtendedLifetime(libraryLock) {} }
            result = try await planner.plan(p.spec, query: p.query, find: p.find, rules: p.rules, custom: rule?.custom)
            // The licences and sets the rule named, for the diff.
            if let rule { names = await rule.names() }
        } catch let error as EditSpecError {
            FileHandleOutput.standardError("flickr edit plan: \(error.message)\n")
            return 2
        } catch {
            FileHandleOutput.standardError(FlickrShell.report(error).replacingOccurrences(of: "flickr: ", with: "flickr edit plan: ") + "\n")
            return 2
        }
        for warning in result.warnings { FileHandleOutput.standardError("flickr edit plan: warning: \(warning)\n") }
        // Flickr deletes a set when its last photo leaves it; an undo cannot bring it back.
        if !p.spec.removeFromSets.isEmpty {
            var leaving: [String: Int] = [:]
            try store.eachPage(of: result.job, as: EditChange.self, statuses: [.planned]) { page in
                for change in page.map(\.change) {
                    for set in p.spec.removeFromSets where (change.pre.sets ?? []).contains(set)
                        && change.targets.contains(where: { if case .sets(let s) = $0 { !s.contains(set) } else { false } }) {
                        leaving[set, default: 0] += 1
                    }
                }
            }
            for set in p.spec.removeFromSets {
                if let size = setSizes[set], leaving[set, default: 0] >= size, size > 0 {
                    FileHandleOutput.standardError("flickr edit plan: warning: every photo of set \(set) (\(names.sets[set] ?? "")) leaves it: Flickr deletes "
                                                   + "a set when its last photo leaves it, and an undo cannot bring it back\n")
                }
            }
        }
        // The plan's JSON (--json, --out) and its diff are read back from the job database a
        // page at a time: a plan of any size is shown in bounded memory.
        do {
            try PlanDocument.write(out: p.out, stdout: p.json) { emit in
                try EditReport.writePlanJSON(result, store: store, names: names, to: emit)
            }
        } catch let failure as PlanDocument.CannotWrite {
            FileHandleOutput.standardError("flickr edit plan: cannot write \(failure.path): \(failure.reason)\n")
            return 2
        }
        if !p.json {
            try EditReport.writeDiff(result, store: store, budget: RetagCommand.budget(opened), names: names) { print($0, terminator: "") }
            if result.changed > 0 { print("apply it with: flickr edit apply \(result.job)") }
        }
        return result.changed == 0 && result.refused == 0 ? 0 : 1
    }
}
