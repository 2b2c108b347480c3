import FlickrProtocol

/// `flickr help [METHOD|GROUP]`: with no argument the subcommands and the method groups; a
/// method's documentation; or the methods of a group (`photos`, `photosets.comments`).
/// Everything comes from the compiled-in catalog: no network.
enum Help {
    static func run(_ args: [String]) throws(Invocation.UsageError) -> Int32 {
        let (_, words) = try Subcommands.options(args, spec: "help")
        guard let name = words.first else {
            print(overview)
            return 0
        }
        guard words.count == 1 else { throw Invocation.UsageError(message: "unexpected argument '\(words[1])'") }
        if let method = MethodCatalog.shared.method(name) ?? caseInsensitiveMethod(name) {
            print(method.helpText)
            return 0
        }
        let group = methods(inGroup: name)
        if !group.isEmpty {
            print(listing(group, title: "Methods in \(groupName(name)):"))
            return 0
        }
        let close = MethodCatalog.shared.names.filter { $0.lowercased().contains(name.lowercased()) }.prefix(10)
        throw Invocation.UsageError(message: "no method or group \(name)"
                                    + (close.isEmpty ? "" : "; did you mean: " + close.joined(separator: ", ")))
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
        let groups = Dictionary(grouping: MethodCatalog.shared.names, by: groupOf).mapValues(\.count)
        for (group, count) in groups.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(group) (\(count))")
        }
        lines.append("")
        lines.append("flickr help METHOD describes one (e.g. flickr help photos.search).")
        return lines.joined(separator: "\n")
    }

    /// `photos.comments` of `flickr.photos.comments.addComment`.
    static func groupOf(_ method: String) -> String {
        var parts = method.split(separator: ".").dropFirst()  // "flickr"
        parts = parts.dropLast()
        return parts.joined(separator: ".")
    }

    /// `photos` of `flickr.photos`, `photos`, `Photos.`.
    static func groupName(_ name: String) -> String {
        var group = name.lowercased()
        if group.hasPrefix("flickr.") { group.removeFirst("flickr.".count) }
        while group.hasSuffix(".") { group.removeLast() }
        return group
    }

    /// The methods of a group and of its subgroups.
    static func methods(inGroup name: String) -> [FlickrMethod] {
        let group = groupName(name)
        guard !group.isEmpty else { return [] }
        return MethodCatalog.shared.methods.filter {
            let g = groupOf($0.name).lowercased()
            return g == group || g.hasPrefix(group + ".")
        }
    }

    static func caseInsensitiveMethod(_ name: String) -> FlickrMethod? {
        let wanted = name.lowercased()
        return MethodCatalog.shared.methods.first {
            $0.name.lowercased() == wanted || $0.name.lowercased() == "flickr." + wanted
        }
    }

    /// One line per method: its name and the first sentence of its description.
    static func listing(_ methods: [FlickrMethod], title: String) -> String {
        let width = (methods.map(\.name.count).max() ?? 0) + 2
        var lines = [title]
        for m in methods {
            var summary = FlickrMethod.plainText(m.description)
            if let stop = summary.range(of: ". ") { summary = String(summary[..<stop.lowerBound]) + "." }
            if summary.count > 90 { summary = String(summary.prefix(89)) + "…" }
            lines.append("  " + m.name + String(repeating: " ", count: width - m.name.count) + summary)
        }
        return lines.joined(separator: "\n")
    }
}
