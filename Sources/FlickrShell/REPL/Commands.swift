import FlickrProtocol
import Foundation

/// The REPL's own commands, which start with `:` (Lua never does, except `::label::`).
enum REPLCommand: Equatable {
    case help
    case doc(String)
    case time(String)
    case quit
    case history
    /// `:set NAME VALUE` (nil name: show the settings).
    case set(name: String?, value: String?)
    case unknown(String)
    case usage(String)

    /// The commands as Tab completes them after `:` (a space after those that take words).
    static let completions = [":doc ", ":help", ":history", ":quit", ":set ", ":time "]

    /// Tab completion of a line that is only a command being typed (`:he`) or the name of a
    /// setting after `:set `: the candidates and the byte offset of the word they replace; nil
    /// for any other line (Lua's completer takes those).
    static func candidates(completing line: String) -> (list: [String], start: Int)? {
        let leading = line.prefix { $0 == " " || $0 == "\t" }
        let text = line.dropFirst(leading.count)
        if text.hasPrefix(":"), !text.hasPrefix("::"), text.dropFirst().allSatisfy(\.isLetter) {
            return (completions.filter { $0.hasPrefix(text) }, leading.utf8.count)
        }
        if text.hasPrefix(":set "), case let word = text.dropFirst(5).drop(while: { $0 == " " }), word.allSatisfy(\.isLetter) {
            let names = ["depth ", "items ", "pager "].filter { $0.hasPrefix(word) }
            return (names, line.utf8.count - word.utf8.count)
        }
        return nil
    }

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
        case "set":
            let words = rest.split(whereSeparator: { $0.isWhitespace }).map(String.init)
            guard words.count <= 2 else { return .usage(REPLSettings.usage) }
            return .set(name: words.first, value: words.count > 1 ? words[1] : nil)
        case "doc", "d":
            return rest.isEmpty ? .usage(":doc METHOD — e.g. :doc flickr.photos.search") : .doc(rest)
        case "time", "t":
            return rest.isEmpty ? .usage(":time EXPR — e.g. :time flickr.test.echo{}") : .time(rest)
        default: return .unknown(name)
        }
    }
}

/// What `:set` changes: how results print and whether long ones go through a pager.
struct REPLSettings: Equatable {
    /// Nesting levels printed (nil: all).
    var depth: Int? = 4
    /// Entries printed per table (nil: all).
    var items: Int? = 50
    /// Results taller than the terminal go through a pager.
    var pager = true

    static let usage = ":set [depth N|all] [items N|all] [pager on|off]"

    /// Applies `:set name value`; a message for a person when it cannot.
    mutating func set(_ name: String, _ value: String?) -> String? {
        guard let value else { return "usage: " + Self.usage }
        func count() -> Int?? {
            if value == "all" { return .some(nil) }
            guard let n = Int(value), n >= 1 else { return nil }
            return .some(n)
        }
        switch name {
        case "depth":
            guard let n = count() else { return "depth: a positive number or all" }
            depth = n
        case "items":
            guard let n = count() else { return "items: a positive number or all" }
            items = n
        case "pager":
            guard value == "on" || value == "off" else { return "pager: on or off" }
            pager = value == "on"
        default:
            return "no setting \(name) (depth, items, pager)"
        }
        return nil
    }

    /// `:set` with no argument.
    var description: String {
        "depth \(depth.map(String.init) ?? "all")  items \(items.map(String.init) ?? "all")  pager \(pager ? "on" : "off")"
    }
}

/// Texts of `:help` and `:doc`.
enum REPLText {
    /// The REPL part of `:help` (the flickr overview follows it).
    static func help(historyPath: String?) -> String {
        """
        REPL commands
          :help            this text
          :doc METHOD      a Flickr method: description, arguments, perms, errors (:doc photos.search);
                           a group lists its methods (:doc photos.comments)
          :time EXPR       evaluate EXPR and print how long it took
          :history         list the history
          :set             show the settings; :set depth N|all, :set items N|all (how much of a
                           table prints), :set pager on|off (long results through $PAGER or less -R)
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

    /// `:doc NAME`: the catalog's help for a method or a group (the renderer `flickr help` and
    /// `flickr.help` use), or what is wrong with a name that matches neither.
    static func doc(_ query: String, catalog: MethodCatalog = .shared) -> (text: String, found: Bool) {
        do {
            return (try catalog.helpTopic(query).text, true)
        } catch {
            return (error.description, false)
        }
    }

}
