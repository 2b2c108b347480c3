import FlickrCommandLine
import FlickrProtocol

/// `flickr help [METHOD|GROUP]`: with no argument the subcommands and the method groups; a
/// method's documentation; or the methods of a group (`photos`, `photosets.comments`).
/// Everything comes from the compiled-in catalog: no network.
enum Help {
    static func run(_ args: [String]) throws(Invocation.UsageError) -> Int32 {
        let words = try CommandLineParser.parse(args, for: "help").positional
        guard let name = words.first else {
            print(TextLayout.fit(overview, width: LineEditor.terminalColumns))
            return 0
        }
        guard words.count == 1 else { throw Invocation.UsageError(message: "unexpected argument '\(words[1])'") }
        do {
            print(TextLayout.fit(try MethodCatalog.shared.helpTopic(name).text, width: LineEditor.terminalColumns))
            return 0
        } catch {
            throw Invocation.UsageError(message: error.description + "; `flickr help` lists the groups")
        }
    }

    /// `flickr help` with no argument.
    static var overview: String {
        var lines = ["Subcommands (flickr SUBCOMMAND --help for each):"]
        let visible = CommandLineSpec.subcommands.filter { !$0.hidden }
        let width = (visible.map(\.name.count).max() ?? 0) + 2
        for sub in visible {
            lines.append("  " + sub.name + String(repeating: " ", count: width - sub.name.count) + sub.summary)
        }
        lines.append("")
        lines.append("\(MethodCatalog.shared.methods.count) Flickr methods, by group (flickr help GROUP lists one):")
        for (group, count) in MethodCatalog.shared.groups {
            lines.append("  \(group) (\(count))")
        }
        lines.append("")
        lines.append("flickr help METHOD describes one (e.g. flickr help photos.search).")
        return lines.joined(separator: "\n")
    }
}
