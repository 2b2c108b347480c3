import FlickrProtocol
import Foundation

/// The REPL's own commands, which start with `:` (Lua never does, except `::label::`).
enum REPLCommand: Equatable {
    case help
    case doc(String)
    case time(String)
    case quit
    case history
    case unknown(String)
    case usage(String)

    /// Parses a line that starts with `:` (nil when the line is Lua, e.g. `::label::`).
    static func parse(_ line: String) -> REPLCommand? {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix(":"), !text.hasPrefix("::") else { return nil }
        let body = text.dropFirst()
        let name = String(body.prefix { !$0.isWhitespace })
        let rest = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        switch name {
        case "help", "h", "?": return .help
        case "quit", "q", "exit": return .quit
        case "history": return .history
        case "doc", "d":
            return rest.isEmpty ? .usage(":doc METHOD — e.g. :doc flickr.photos.search") : .doc(rest)
        case "time", "t":
            return rest.isEmpty ? .usage(":time EXPR — e.g. :time flickr.test.echo{}") : .time(rest)
        default: return .unknown(name)
        }
    }
}

/// Texts of `:help` and `:doc`.
enum REPLText {
    /// The REPL part of `:help` (the flickr overview follows it).
    static func help(historyPath: String?) -> String {
        """
        REPL commands
          :help            this text
          :doc METHOD      a Flickr method: description, arguments, perms, errors (:doc photos.search)
          :time EXPR       evaluate EXPR and print how long it took
          :history         list the history
          :quit            leave (Ctrl-D too)\(historyPath.map { "; history is kept in \($0)" } ?? "")
        Keys
          Tab              complete globals, keywords, a.b.c, a:b and a["k"] (tables are read raw: no calls)
          Ctrl-R           search the history          Up/Down   previous/next entry (multi-line chunks whole)
          Ctrl-C           clear the line, or cancel the running call
        Evaluation
          An expression prints its values (tables pretty-printed); `_` holds the last result.
          A statement that isn't finished continues on the next line (>>).

        """
    }

    /// `:doc METHOD`: the catalog entry (`photos.search` is `flickr.photos.search`).
    static func doc(_ query: String, catalog: MethodCatalog = .shared) -> (text: String, found: Bool) {
        var name = query.trimmingCharacters(in: .whitespaces)
        if name.hasSuffix("()") { name.removeLast(2) }
        if name.hasSuffix("(") { name.removeLast() }
        let candidates = [name, "flickr." + name]
        guard let method = candidates.lazy.compactMap({ catalog.method($0) }).first else {
            let needle = name.lowercased()
            let similar = catalog.names.filter { $0.lowercased().contains(needle) }.sorted().prefix(8)
            var text = "no method '\(name)' in the catalog"
            if !similar.isEmpty { text += "; did you mean: " + similar.joined(separator: ", ") }
            return (text, false)
        }
        var out = ["\(method.name)  (\(method.verb), perms: \(method.perms.rawValue)\(method.needsLogin ? ", login" : ""))"]
        let description = plain(method.description)
        if !description.isEmpty { out.append(wrap(description, indent: "  ")) }
        let required = method.arguments.filter { !$0.optional && $0.name != "api_key" }
        let optional = method.arguments.filter(\.optional)
        func list(_ title: String, _ arguments: [FlickrMethod.Argument]) {
            guard !arguments.isEmpty else { return }
            out.append("  \(title):")
            for a in arguments {
                let d = plain(a.description)
                out.append(d.isEmpty ? "    \(a.name)" : wrap("\(a.name) — \(d)", indent: "    ", hanging: "      "))
            }
        }
        list("required", required)
        list("optional", optional)
        if required.isEmpty && optional.isEmpty { out.append("  arguments: none") }
        if !method.errors.isEmpty {
            out.append("  errors:")
            for e in method.errors { out.append(wrap("\(e.code)  \(plain(e.message))", indent: "    ", hanging: "      ")) }
        }
        let call = required.map { "\($0.name) = …" }.joined(separator: ", ")
        out.append("  call: \(method.name){\(call.isEmpty ? "" : " " + call + " ")}")
        return (out.joined(separator: "\n"), true)
    }

    /// Catalog text is HTML-ish: drop tags, decode the common entities, squeeze whitespace.
    static func plain(_ html: String) -> String {
        var s = html.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
        for (entity, char) in [("&quot;", "\""), ("&lt;", "<"), ("&gt;", ">"), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            s = s.replacingOccurrences(of: entity, with: char)
        }
        return s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Wraps at 96 columns.
    static func wrap(_ text: String, indent: String, hanging: String? = nil, width: Int = 96) -> String {
        var lines: [String] = []
        var current = indent
        let next = hanging ?? indent
        for word in text.split(separator: " ") {
            let prefixOnly = current == indent || current == next
            if !prefixOnly && current.count + 1 + word.count > width {
                lines.append(current)
                current = next + word
            } else {
                current += (prefixOnly ? "" : " ") + word
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }
}
