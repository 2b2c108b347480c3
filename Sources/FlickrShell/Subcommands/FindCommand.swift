import FlickrAPI
import FlickrCommandLine
import FlickrLibrary
import FlickrProtocol
import Foundation

/// `flickr find [KEY=VALUE…] [--json|--csv|--ids] [--fields a,b,…]`: a query of the library on
/// disk; it makes no call (the account is the one a sync remembered for the endpoint).
enum FindCommand {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let parsed = try CommandLineParser.parse(args, for: "find")
        let formats = ["json", "csv", "ids"].filter(parsed.has)
        guard formats.count <= 1 else { throw Invocation.UsageError(message: "--json, --csv and --ids exclude each other") }
        var given: [String: LibraryFilter.Value] = [:]
        for word in parsed.positional {
            if let eq = word.firstIndex(of: "=") {
                given[String(word[..<eq])] = .text(String(word[word.index(after: eq)...]))
            } else {
                // A bare key is a flag: `untagged`, `has_geo`.
                given[word] = .flag(true)
            }
        }
        let filter: LibraryFilter
        do { filter = try LibraryFilter(given) } catch { throw Invocation.UsageError(message: error.message) }
        let fields = try Self.fields(parsed["fields"])
        // The session only says which endpoint (and so which account) is meant: no call is made.
        let opened = try await Subcommands.session(inv, env)
        let endpoint = opened.session.client.context.endpoints.rest
        opened.close()
        let store = try LibraryStore.existing(endpoint: endpoint, environment: env)
        if try !store.isComplete {
            // A first sync that never finished (killed, cut off): what is there is a part.
            FileHandleOutput.standardError("flickr find: the library's first sync has not finished: the answer is from the part mirrored so far (run flickr sync)\n")
        }
        let ids = try store.ids(filter)
        switch formats.first {
        case "ids":
            var out = ""
            for id in ids { out += id + "\n" }
            FileHandleOutput.standardOutput(out)
        case "json":
            FileHandleOutput.standardOutput("[")
            var first = true
            for page in stride(from: 0, to: ids.count, by: 1_000) {
                var chunk = ""
                for record in try store.records(ids[page..<min(ids.count, page + 1_000)]) {
                    chunk += (first ? "\n" : ",\n") + jsonObject(record, fields)
                    first = false
                }
                FileHandleOutput.standardOutput(chunk)
            }
            FileHandleOutput.standardOutput(first ? "]\n" : "\n]\n")
        case "csv":
            FileHandleOutput.standardOutput(fields.map(csv).joined(separator: ",") + "\r\n")
            for page in stride(from: 0, to: ids.count, by: 1_000) {
                var chunk = ""
                for record in try store.records(ids[page..<min(ids.count, page + 1_000)]) {
                    chunk += fields.map { csv(text(record.value($0), list: ";")) }.joined(separator: ",") + "\r\n"
                }
                FileHandleOutput.standardOutput(chunk)
            }
        default:
            let shown = parsed["fields"] == nil ? ["id", "date_taken", "title", "tags"] : fields
            for page in stride(from: 0, to: ids.count, by: 1_000) {
                var chunk = ""
                for record in try store.records(ids[page..<min(ids.count, page + 1_000)]) {
                    chunk += shown.map { escaped(text(record.value($0), list: " ")) }.joined(separator: "\t") + "\n"
                }
                FileHandleOutput.standardOutput(chunk)
            }
            if Terminal.stderrIsTerminal { FileHandleOutput.standardError("\(ids.count) photo\(ids.count == 1 ? "" : "s")\n") }
        }
        return 0
    }

    /// `--fields a,b,…` checked against the photo table's field names.
    static func fields(_ option: String?) throws(Invocation.UsageError) -> [String] {
        guard let option else { return LibraryRecord.fieldNames }
        let names = option.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for name in names where !LibraryRecord.fieldNames.contains(name) {
            throw Invocation.UsageError(message: "--fields: '\(name)' is not a field (fields: \(LibraryRecord.fieldNames.joined(separator: ", ")))")
        }
        guard !names.isEmpty else { throw Invocation.UsageError(message: "--fields: name at least one field") }
        return names
    }

    static func text(_ value: LibraryValue?, list separator: String) -> String {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .number(let d): return String(d)
        case .list(let l): return l.joined(separator: separator)
        case nil: return ""
        }
    }

    /// A field of the default output, one column of one line: a tab, a line break or a
    /// backslash inside it as `\t`, `\n` (`\r`) or `\\`.
    static func escaped(_ field: String) -> String {
        guard field.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\\" || $0 == "\r\n" }) else { return field }
        var out = ""
        for scalar in field.unicodeScalars {
            switch scalar {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\\": out += "\\\\"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func csv(_ field: String) -> String {
        field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    /// One object: the fields asked for, in that order (JSON keys are the field names). Written
    /// directly: 100,000 photos of some 27 fields each are millions of values, and a
    /// serializer's call per value costs seconds.
    static func jsonObject(_ record: LibraryRecord, _ fields: [String]) -> String {
        var out = "{"
        for (i, name) in fields.enumerated() {
            if i > 0 { out += "," }
            out += "\"" + name + "\":"
            switch record.value(name) {
            case .string(let s): JSONValue.appendQuoted(s, to: &out)
            case .integer(let n): out += String(n)
            case .number(let d): out += d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)) : "null"
            case .list(let l):
                out += "["
                for (j, item) in l.enumerated() {
                    if j > 0 { out += "," }
                    JSONValue.appendQuoted(item, to: &out)
                }
                out += "]"
            case nil: out += "null"
            }
        }
        return out + "}"
    }
}
