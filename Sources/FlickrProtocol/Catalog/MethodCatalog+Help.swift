/// The one help renderer: what `flickr help NAME`, the REPL's `:doc NAME` and `flickr.help(NAME)`
/// show for a method or a group of methods, and the did-you-mean when neither matches.
extension MethodCatalog {
    /// The group of a method: `photos.comments` of `flickr.photos.comments.addComment`.
    package static func group(of method: String) -> String {
        var parts = method.split(separator: ".").dropFirst()  // "flickr"
        parts = parts.dropLast()
        return parts.joined(separator: ".")
    }

    /// A group as written by a person, normalised: `photos` of `flickr.photos`, `Photos.`.
    package static func groupName(_ name: String) -> String {
        var group = name.lowercased()
        if group.hasPrefix("flickr.") { group.removeFirst("flickr.".count) }
        while group.hasSuffix(".") { group.removeLast() }
        return group
    }

    /// The methods of a group and of its subgroups (any case), in catalog order.
    package func methods(inGroup name: String) -> [FlickrMethod] {
        let group = Self.groupName(name)
        guard !group.isEmpty else { return [] }
        return methods.filter {
            let g = Self.group(of: $0.name).lowercased()
            return g == group || g.hasPrefix(group + ".")
        }
    }

    /// Every group with its number of methods, sorted by name.
    package var groups: [(name: String, count: Int)] {
        Dictionary(grouping: names, by: Self.group(of:)).mapValues(\.count).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// One line per method: its name and the first sentence of its description.
    package static func listing(_ methods: [FlickrMethod], title: String) -> String {
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

    /// What help shows for `query`: a method (any case, `flickr.` implied, a trailing `()`
    /// ignored) or a group's listing.
    package enum HelpTopic: Sendable {
        case method(FlickrMethod)
        case group(name: String, methods: [FlickrMethod])

        /// The text to show.
        package var text: String {
            switch self {
            case .method(let m): m.helpText
            case .group(let name, let methods): MethodCatalog.listing(methods, title: "Methods in \(name):")
            }
        }
    }

    /// The topic `query` names, or a failure that suggests the nearest method names.
    package func helpTopic(_ query: String) throws(CallCheckFailure) -> HelpTopic {
        var name = query.trimmingCharacters(in: .whitespaces)
        if name.hasSuffix("()") { name.removeLast(2) }
        if name.hasSuffix("(") { name.removeLast() }
        if let method = resolve(name) { return .method(method) }
        let group = methods(inGroup: name)
        if !group.isEmpty { return .group(name: Self.groupName(name), methods: group) }
        throw CallCheckFailure(method: name, reason: "no such method or group" + Suggestions.phrase(suggestions(forMethod: name)))
    }
}

import Foundation
