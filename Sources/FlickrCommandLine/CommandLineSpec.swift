/// What a value given to an option (or a positional word) is, for completion.
package enum ValueKind: Equatable, Sendable {
    /// Free text; nothing to complete.
    case text
    /// A path to a file (or directory) that exists.
    case file
    /// A directory.
    case directory
    /// One of these words.
    case choice([String])
    /// The name of a stored profile.
    case profile
}

/// One option of the command line. The parser, `--help` and shell completion all read these.
package struct OptionSpec: Equatable, Sendable {
    /// The long name without dashes (`endpoint`).
    package var name: String
    /// A one-letter alias without the dash (`h`), if any.
    package var short: Character?
    /// What its value is; nil for a flag.
    package var value: ValueKind?
    /// The value's name in usage text (`URL`).
    package var placeholder: String
    /// The value may be left out (`--sandbox` or `--sandbox=DATA.json`); only with `=`.
    package var valueOptional: Bool
    /// How many words the value is (`--rename OLD NEW` takes 2); 1 for other valued options.
    package var count = 1
    /// One line for `--help`.
    package var help: String

    package static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, placeholder: "", valueOptional: false, help: help)
    }

    package static func valued(_ name: String, _ placeholder: String, _ kind: ValueKind, optional: Bool = false, count: Int = 1,
                       _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: nil, value: kind, placeholder: placeholder, valueOptional: optional, count: count, help: help)
    }

    /// `--endpoint URL`, `--sandbox[=DATA.json]`, `-h, --help`.
    package var usage: String {
        var s = short.map { "-\($0), " } ?? ""
        s += "--" + name
        if value != nil { s += valueOptional ? "[=\(placeholder)]" : " " + placeholder }
        return s
    }
}

/// What the positional words of a subcommand are, for completion.
package enum PositionalKind: Equatable, Sendable {
    case none
    /// A method name, then its `key=value` arguments (`call`).
    case methodCall
    /// A method or group name (`help`).
    case methodOrGroup
    /// Paths to files or directories (`upload`).
    case paths
    /// Photo ids, or `key=value` search arguments after `--search` (`download`).
    case photos
    /// One of these words.
    case choice([String])
}

/// One subcommand: its usage line, summary, options and positional words — or, for one made
/// of actions (`retag plan|apply|resume|undo`), the actions, each a spec of its own.
package struct SubcommandSpec: Equatable, Sendable {
    package var name: String
    /// Everything after `flickr NAME` in the synopsis.
    package var synopsis: String
    /// One line for `flickr help` and `--help`.
    package var summary: String
    package var options: [OptionSpec]
    package var positional: PositionalKind
    /// Internal (shell completion's helper): not listed, not completed.
    package var hidden = false
    /// The actions, each with its own options (empty: the subcommand takes its options directly).
    package var actions: [SubcommandSpec] = []

    /// Its options and those of all its actions.
    package var allOptions: [OptionSpec] {
        var seen = Set<String>()
        return (options + actions.flatMap(\.options)).filter { seen.insert($0.name).inserted }
    }

    package func option(named name: String) -> OptionSpec? { allOptions.first { $0.name == name } }

    /// The action named by the first word of `words`, if any.
    package func action(in words: [String]) -> SubcommandSpec? {
        words.first.flatMap { first in actions.first { $0.name == first } }
    }

    /// The text of `flickr NAME --help`.
    package var helpText: String {
        var lines = ["usage: flickr [global options] \(name) \(synopsis)".trimmingTrailingSpaces, "", summary]
        if !options.isEmpty {
            lines.append("")
            lines.append("Options:")
            lines += CommandLineSpec.table(options + [CommandLineSpec.help])
        }
        for action in actions {
            lines.append("")
            lines.append("\(name) \(action.name) \(action.synopsis)".trimmingTrailingSpaces + " — " + action.summary)
            lines += CommandLineSpec.table(action.options)
        }
        lines.append("")
        lines.append("Global options (before \(name), and understood after it too):")
        lines += CommandLineSpec.table(CommandLineSpec.globalOptions.filter { $0.name != "help" && $0.name != "version" })
        return lines.joined(separator: "\n")
    }
}

/// The `flickr` command line (CLI.md): global options and subcommands, in one table.
package enum CommandLineSpec {
    package static let help = OptionSpec.flag("help", short: "h", "show this help and exit")

    /// The options that come before a script or subcommand.
    package static let globalOptions: [OptionSpec] = [
        .valued("sandbox", "DATA.json", .file, optional: true,
                "run against an in-process Flickr emulator on 127.0.0.1 (its app and default user)"),
        .valued("endpoint", "URL", .text, "another base URL than Flickr's (e.g. a flickr-sandbox's url=)"),
        .valued("profile", "NAME", .profile, "stored credentials to use (default: FLICKR_PROFILE or \"default\")"),
        .valued("budget", "N/SECONDS", .text,
                "calls per API key shared by every flickr process (default 3500/3600 for Flickr, none on loopback; also FLICKR_BUDGET)"),
        .valued("record", "CASSETTE", .file,
                "write every request and answer of the script to CASSETTE (no secrets; docs/CASSETTES.md)"),
        .valued("replay", "CASSETTE", .file,
                "run the script offline from CASSETTE: no network, no credentials; a request it lacks is an error"),
        .flag("debug", "trace HTTP requests and responses on stderr (secrets redacted)"),
        .flag("no-color", "no colour in the REPL (also NO_COLOR)"),
        help,
        .flag("version", "print the version and exit"),
    ]

    package static let yes = OptionSpec.flag("yes", short: "y", "apply or undo without asking")
    package static let events = OptionSpec.flag("events", "NDJSON progress events on stderr")
    package static let maxOutage = OptionSpec.valued("max-outage", "SECONDS", .text,
                                                     "stop (resumable) when the endpoint stays unreachable this long (default 30)")

    /// The options of running a job, whatever its kind (`jobs`, and `retag` and `edit` as the same commands).
    package static let runOptions: [OptionSpec] = [yes, events, maxOutage, diff, force]
    package static let diff = OptionSpec.flag("diff", "undo: print the undo's per-photo diff (default: a summary)")
    package static let force = OptionSpec.flag("force", "undo: undo also what changed since the job (default: a conflict, left alone)")

    /// `apply`, `resume` and `undo`: the same commands for every kind of job (``runOptions``).
    package static let runActions: [SubcommandSpec] = [
        SubcommandSpec(
            name: "apply", synopsis: "PLAN [--yes] [--events] [--max-outage SECONDS]",
            summary: "writes a planned job (PLAN: a --out file or a job id)",
            options: [yes, events, maxOutage], positional: .none),
        SubcommandSpec(
            name: "resume", synopsis: "[JOB|last] [--events] [--max-outage SECONDS]", summary: "continues an interrupted job",
            options: [events, maxOutage], positional: .none),
        SubcommandSpec(
            name: "undo", synopsis: "[JOB|last] [--yes] [--diff] [--force] [--events] [--max-outage SECONDS]",
            summary: "puts back what a job changed, and only that",
            options: [yes, diff, force, events, maxOutage], positional: .none),
    ]

    package static let photoSizes = ["o", "6k", "5k", "4k", "3k", "k", "h", "b", "c", "z", "-", "n", "w", "m", "t", "q", "s"]

    package static let subcommands: [SubcommandSpec] = [
        SubcommandSpec(
            name: "call", synopsis: "METHOD [key=value ...] [--json] [--verb GET|POST] [--no-strict]",
            summary: "Calls one Flickr method and prints the answer as a Lua table (or JSON).",
            options: [.flag("json", "print the answer as JSON (sorted keys)"),
                      .valued("verb", "GET|POST", .choice(["GET", "POST"]), "the HTTP verb (writes always POST)"),
                      .flag("no-strict", "send a method or argument names the catalog does not know (newer than it) as given")],
            positional: .methodCall),
        SubcommandSpec(
            name: "login", synopsis: "[--perms read|write|delete] [--profile NAME] [--callback oob|loopback]",
            summary: "Authorizes this app for your account (OAuth 1.0a) and saves the token in the profile.",
            options: [.valued("perms", "read|write|delete", .choice(["read", "write", "delete"]),
                              "the permission to ask for (default: write)"),
                      .valued("profile", "NAME", .profile, "the profile to save to (default: FLICKR_PROFILE or \"default\")"),
                      .valued("callback", "oob|loopback", .choice(["oob", "loopback"]),
                              "type the verifier (oob, default) or catch the browser's redirect on 127.0.0.1")],
            positional: .none),
        SubcommandSpec(
            name: "logout", synopsis: "[--profile NAME]",
            summary: "Forgets the profile's token (the app's key and secret stay).",
            options: [.valued("profile", "NAME", .profile, "the profile (default: FLICKR_PROFILE or \"default\")")],
            positional: .none),
        SubcommandSpec(
            name: "whoami", synopsis: "", summary: "Prints the user, permission and endpoint of the credentials in use.",
            options: [], positional: .none),
        SubcommandSpec(
            name: "help", synopsis: "[METHOD|GROUP]",
            summary: "Lists the subcommands and method groups, describes a method, or lists a group's methods.",
            options: [], positional: .methodOrGroup),
        SubcommandSpec(
            name: "upload",
            synopsis: "PATH... [--title-from-filename] [--tags TAGS] [--set TITLE] [--public|--private] [--async]",
            summary: "Uploads photos and videos (directories recursively); other files are skipped before any byte is sent.",
            options: [.flag("title-from-filename", "title each photo with its file name, without the extension"),
                      .valued("tags", "TAGS", .text, "tags for every photo, Flickr's syntax: 'cat \"black cat\"'"),
                      .valued("set", "TITLE", .text, "add the photos to your set with this title (created when missing)"),
                      .flag("public", "visible to everyone"),
                      .flag("private", "visible to you only"),
                      .flag("async", "upload asynchronously and wait for Flickr's tickets")],
            positional: .paths),
        SubcommandSpec(
            name: "download", synopsis: "(PHOTO_ID... | --set ID | --search key=value...) [--size SIZE] [--dir DIR]",
            summary: "Downloads photos by id, a whole set, or a search's results, streaming each file to disk.",
            options: [.valued("set", "ID", .text, "every photo of this photoset"),
                      .flag("search", "the words that follow are flickr.photos.search arguments (key=value)"),
                      .valued("size", "SIZE", .choice(photoSizes),
                              "o (original), 6k … q, s (default: the original, else the largest offered)"),
                      .valued("dir", "DIR", .directory, "where to write (default: the current directory)")],
            positional: .photos),
        SubcommandSpec(
            name: "retag",
            synopsis: "plan RULES... [--query k=v...] [--out PLAN] [--json] | apply PLAN [--yes] [--events] [--max-outage SECONDS] "
                + "| resume [JOB|last] [--events] [--max-outage SECONDS] | undo [JOB|last] [--yes] [--diff] [--force] [--events] [--max-outage SECONDS]",
            summary: "Renames, adds and removes your tags over many photos: a plan (reads only, a diff), then apply, resume, undo.",
            options: [], positional: .choice(["plan", "apply", "resume", "undo"]),
            actions: [
                SubcommandSpec(
                    name: "plan", synopsis: "RULES... [--query k=v...] [--out PLAN] [--json]",
                    summary: "reads only; prints the diff and saves the job (exit 0 nothing to do, 1 changes, 2 error)",
                    options: [.valued("rename", "OLD NEW", .text, count: 2, "rename a tag (clean-form match; machine tags may use * parts)"),
                              .valued("add", "TAG", .text, "add a tag"),
                              .valued("remove", "TAG", .text, "remove a tag"),
                              .valued("lua", "FILE", .file, "a chunk returning function(photo, tags) return new_tags end, run after the other rules"),
                              .valued("query", "k=v", .text, "select photos: tags, machine_tags, dates, photoset_id, … (default: all yours)"),
                              .valued("out", "PLAN", .file, "also write the plan as JSON to this file"),
                              .flag("json", "print the plan as JSON instead of a diff")],
                    positional: .none),
            ] + runActions),
        SubcommandSpec(
            name: "edit",
            synopsis: "plan (--query k=v... | --find KEY=VALUE...) CHANGES... [--lua FILE] [--out PLAN] [--json] | apply PLAN [--yes] [--events] "
                + "[--max-outage SECONDS] | resume [JOB|last] [--events] [--max-outage SECONDS] | undo [JOB|last] [--yes] [--diff] [--force] [--events] [--max-outage SECONDS]",
            summary: "Edits any metadata over many photos (titles, dates, privacy, licence, location, sets, tags): a plan, then apply, resume, undo.",
            options: [], positional: .choice(["plan", "apply", "resume", "undo"]),
            actions: [
                SubcommandSpec(
                    name: "plan", synopsis: "(--query k=v... | --find KEY=VALUE...) CHANGES... [--lua FILE] [--out PLAN] [--json]",
                    summary: "reads only; prints the per-field diff and saves the job (exit 0 nothing to do, 1 changes, 2 error)",
                    options: [.valued("title", "TEMPLATE", .text, "new title; {field} and {date_taken:%Y-%m-%d} read the photo"),
                              .valued("description", "TEMPLATE", .text, "new description (a template, as --title)"),
                              .valued("privacy", "WHO", .choice(["public", "private", "friends", "family", "friends,family"]),
                                      "public, private, friends, family or friends,family"),
                              .valued("license", "ID|NAME", .text, "a licence by id or by name (by-sa, Attribution-NonCommercial, cc0)"),
                              .valued("safety", "LEVEL", .choice(["safe", "moderate", "restricted"]), "safe, moderate or restricted"),
                              .valued("content-type", "TYPE", .choice(["photo", "screenshot", "other"]), "photo, screenshot or other"),
                              .valued("shift-taken", "±DURATION", .text, "move the date taken: +3h, -1d2h (its granularity kept)"),
                              .valued("set-taken", "DATE", .text, "set the date taken: 2019-07-02 14:03:00, 2019-07-02, 2019-07, 2019, circa 2019"),
                              .valued("geo", "LAT,LON[,ACCURACY]", .text, "set the location (accuracy 1–16, default 16)"),
                              .flag("clear-geo", "remove the location"),
                              .valued("add-to-set", "TITLE|ID", .text, "add to one of your sets"),
                              .flag("create-set", "create the --add-to-set set when you have none of that title (apply creates it)"),
                              .valued("remove-from-set", "TITLE|ID", .text, "remove from one of your sets"),
                              .valued("rename", "OLD NEW", .text, count: 2, "rename a tag (as retag)"),
                              .valued("add", "TAG", .text, "add a tag"),
                              .valued("remove", "TAG", .text, "remove a tag"),
                              .valued("query", "k=v", .text, "select photos by Flickr's search: tags, dates, photoset_id, … (default: all yours)"),
                              .valued("find", "KEY=VALUE", .text, "select photos from the library on disk: flickr find's keys (no call)"),
                              .valued("lua", "FILE", .file, "a chunk returning function(photo) return { title = …, … } end"),
                              .valued("out", "PLAN", .file, "also write the plan as JSON to this file"),
                              .flag("json", "print the plan as JSON instead of a diff")],
                    positional: .none),
            ] + runActions),
        SubcommandSpec(
            name: "push",
            synopsis: "plan DIR... [--sets folder|none|TITLE] [--tags T] [--privacy P] [--license L] [--safety S] [--hidden] [--replace] [--delete] "
                + "[--ignore GLOB]... [--keywords full] [--title-from-filename] [--out FILE] | apply PLAN [--yes] [--events] [--max-outage SECONDS] "
                + "| resume [JOB|last] [--events] [--max-outage SECONDS] | undo [JOB|last] [--yes] [--diff] [--force] [--events] [--max-outage SECONDS]",
            summary: "Keeps photo folders and Flickr in step: each file uploaded once (known by its SHA-256), moves, replaces, "
                + "metadata and deletions as a plan, then apply, resume, undo.",
            options: [], positional: .choice(["plan", "apply", "resume", "undo"]),
            actions: [
                SubcommandSpec(
                    name: "plan", synopsis: "DIR... [--sets folder|none|TITLE] [--tags T] [--privacy P] [--license L] [--safety S] [--hidden] "
                        + "[--replace] [--delete] [--ignore GLOB]... [--keywords full] [--title-from-filename] [--out FILE]",
                    summary: "reads only (the folders, the library, an incremental sync); a line per file and what apply costs "
                        + "(exit 0 nothing to do, 1 steps planned, 2 error)",
                    options: [.valued("sets", "folder|none|TITLE", .text, "the set of each photo: its folder's (default), none, or this one"),
                              .valued("tags", "TAGS", .text, "tags every uploaded photo gets, besides its keywords"),
                              .valued("privacy", "WHO", .choice(["public", "private", "friends", "family", "friends,family"]),
                                      "public, private, friends, family or friends,family (uploads)"),
                              .valued("license", "ID|NAME", .text, "a licence by id or by name (uploads)"),
                              .valued("safety", "LEVEL", .choice(["safe", "moderate", "restricted"]), "safe, moderate or restricted (uploads)"),
                              .flag("hidden", "hide uploads from public searches"),
                              .flag("replace", "replace a photo whose file's bytes changed (photos.replace; not videos)"),
                              .flag("delete", "delete a photo this push uploaded whose file is gone (its original kept in DIR/.flickr-deleted/)"),
                              .valued("ignore", "GLOB", .text, "leave out files whose path (or name) matches; may be repeated"),
                              .valued("keywords", "full", .choice(["full"]), "hierarchical keywords a|b|c as whole tags, not their last part"),
                              .flag("title-from-filename", "title uploads after their file names"),
                              .valued("out", "FILE", .file, "also write the plan as JSON to this file")],
                    positional: .paths),
            ] + runActions),
        SubcommandSpec(
            name: "jobs",
            synopsis: "[--json] | show JOB [--all] [--json] | apply JOB [--yes] [--events] [--max-outage SECONDS] "
                + "| resume JOB [--events] [--max-outage SECONDS] | undo JOB [--yes] [--diff] [--force] [--events] [--max-outage SECONDS]",
            summary: "Lists the jobs on this machine (kind, state, photos, done, failed, conflicts, calls), shows one, "
                + "or applies, resumes or undoes any job (JOB: an id, a plan file or last).",
            options: [.flag("json", "print JSON (an array of job objects; show: one, with every photo)"),
                      .flag("all", "show: every photo with its status, not only those to act on")] + runOptions,
            positional: .choice(["show", "apply", "resume", "undo"])),
        SubcommandSpec(
            name: "sync", synopsis: "[--full] [--deep] [--json] [--events]",
            summary: "Brings the library on disk up to date: the first time every photo and set, later only what changed.",
            options: [.flag("full", "list every photo even when an incremental sync would do"),
                      .flag("deep", "also read each changed photo's raw tags (author, id), notes, people and comments"),
                      .flag("json", "print the summary as a JSON object"), events],
            positional: .none),
        SubcommandSpec(
            name: "find", synopsis: "[KEY=VALUE...] [--json|--csv|--ids] [--fields a,b,...]",
            summary: "Queries the library on disk (no call): tags=, any_tags=, untagged, machine_tags=, text=, taken=, uploaded=, "
                + "updated=, set=, privacy=, license=, media=, has_geo, order=, limit=.",
            options: [.flag("json", "print an array of objects (keys: the field names)"),
                      .flag("csv", "print CSV with a header line (lists joined by ;)"),
                      .flag("ids", "print the photo ids only"),
                      .valued("fields", "a,b,...", .text, "the fields to print (id, title, tags, date_taken, …)")],
            positional: .choice(["tags=", "any_tags=", "untagged", "machine_tags=", "text=", "taken=", "uploaded=", "updated=", "set=",
                                 "privacy=", "license=", "media=", "has_geo", "order=", "limit="])),
        SubcommandSpec(
            name: "backup", synopsis: "DIR [--sizes o] [--xmp] [--prune] [--verify [--repair]] [--events]",
            summary: "Keeps a verified copy of every original with its metadata in DIR: only what changed is fetched again.",
            options: [.valued("sizes", "o", .text, "what to keep of each photo: o (the original, the default)"),
                      .flag("xmp", "also write an XMP sidecar per photo (title, description, keywords, date taken, GPS)"),
                      .flag("prune", "move photos deleted on Flickr to DIR/.deleted/ (default: report and keep them)"),
                      .flag("verify", "re-hash every file against the manifest and the library; change nothing"),
                      .flag("repair", "with --verify: fetch and write again every missing or corrupt file, then verify again"),
                      events],
            positional: .none),
        SubcommandSpec(
            name: "export", synopsis: "DIR --from BACKUP [--by set|date|flat] [--embed] [--gallery] [--events] | --verify [--repair] DIR",
            summary: "Makes a tree of named, dated copies from a backup for people and photo managers (no call): "
                + "only what changed is written again.",
            options: [.valued("from", "BACKUP", .directory, "the folder flickr backup wrote (read only)"),
                      .valued("by", "set|date|flat", .choice(["set", "date", "flat"]),
                              "a folder per set (default; a photo in several sets is a hard link in each), YYYY/MM-DD, or one folder"),
                      .flag("embed", "write title, description, keywords, date, GPS, licence, the Flickr URL and id into the copies "
                            + "(EXIF, IPTC, XMP; a video gets an XMP sidecar)"),
                      .flag("gallery", "also write a static site into DIR (index.html: years, sets, a page per photo) that opens "
                            + "from file:// with no server"),
                      .flag("verify", "check every copy against what was written and against the backup; change nothing"),
                      .flag("repair", "with --verify: write again every missing, corrupt or stale copy, then verify again"),
                      events],
            positional: .none),
        SubcommandSpec(
            name: "completion", synopsis: "bash|zsh|fish",
            summary: "Prints the shell completion script for bash, zsh or fish.",
            options: [], positional: .choice(["bash", "zsh", "fish"])),
        SubcommandSpec(
            name: "editor", synopsis: "luals|luacheck",
            summary: "Prints the definitions of the flickr module for LuaLS (flickr.lua: completion, docs, types) or luacheck (.luacheckrc).",
            options: [], positional: .choice(["luals", "luacheck"])),
        SubcommandSpec(
            name: "__complete", synopsis: "(--line LINE | -- WORD...)",
            summary: "Completion candidates for the shell scripts, one per line.",
            options: [.valued("line", "LINE", .text, "the command line up to the cursor")],
            positional: .none, hidden: true),
    ]

    package static func subcommand(named name: String) -> SubcommandSpec? { subcommands.first { $0.name == name } }

    package static func globalOption(named name: String) -> OptionSpec? { globalOptions.first { $0.name == name } }

    /// Aligned `  --name VALUE   help` lines.
    package static func table(_ options: [OptionSpec]) -> [String] {
        let width = min(28, (options.map(\.usage.count).max() ?? 0) + 2)
        return options.map { option in
            let left = "  " + option.usage
            let pad = left.count < width + 2 ? String(repeating: " ", count: width + 2 - left.count) : "  "
            return left + pad + option.help
        }
    }

    /// The text of `flickr --help`.
    package static var usage: String {
        var lines = ["usage: flickr [global options] [lua options] [script [args...]]"]
        for sub in subcommands where !sub.hidden {
            lines.append("       flickr [global options] \(sub.name) \(sub.synopsis)".trimmingTrailingSpaces)
        }
        lines += ["", "Subcommands:"]
        let nameWidth = (subcommands.map(\.name.count).max() ?? 0) + 2
        for sub in subcommands where !sub.hidden {
            lines.append("  " + sub.name + String(repeating: " ", count: nameWidth - sub.name.count) + sub.summary)
        }
        lines += ["", "Global options (before the script or subcommand):"]
        lines += table(globalOptions)
        lines += ["", "Lua options (as lua):"]
        lines += luaOptionLines
        lines += ["",
                  "With no script, a terminal gets the REPL and anything else on standard input runs as a chunk.",
                  "`flickr SUBCOMMAND --help` describes a subcommand; `flickr help METHOD` a Flickr method; man flickr the rest."]
        return lines.joined(separator: "\n")
    }

    /// lua.c's options (its `collectargs`), worded as its usage text words them. A valued one
    /// takes its value attached (`-eprint(1)`) or as the next word; `-i`, `-v`, `-E`, `-W` are
    /// flags; `--` and `-` end the options (``Invocation/parse(_:)``).
    package static let luaOptions: [OptionSpec] = [
        OptionSpec(name: "execute", short: "e", value: .text, placeholder: "stat", valueOptional: false, help: "execute string 'stat'"),
        .flag("interactive", short: "i", "enter interactive mode after executing 'script'"),
        OptionSpec(name: "require", short: "l", value: .text, placeholder: "mod", valueOptional: false,
                   help: "require library 'mod' into global 'mod'"),
        OptionSpec(name: "require", short: "l", value: .text, placeholder: "g=mod", valueOptional: false,
                   help: "require library 'mod' into global 'g'"),
        .flag("version", short: "v", "show version information"),
        .flag("ignore-environment", short: "E", "ignore environment variables"),
        .flag("warnings", short: "W", "turn warnings on"),
    ]

    /// The lines of lua.c's options in `flickr --help`: `  -e stat   execute string 'stat'`.
    package static var luaOptionLines: [String] {
        let rows = luaOptions.map { o in ("-\(o.short.map(String.init) ?? "")" + (o.value == nil ? "" : " " + o.placeholder), o.help) }
            + [("--", "stop handling options"), ("-", "stop handling options and execute stdin")]
        return rows.map { "  " + $0.0 + String(repeating: " ", count: 10 - $0.0.count) + $0.1 }
    }
}

extension String {
    package var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
