extension FlickrMethod {
    /// The method's documentation as plain text (HTML from Flickr's reflection data reduced to
    /// text): what `flickr help METHOD`, the REPL's `:doc` and `flickr.help` show.
    package var helpText: String {
        var lines: [String] = []
        lines.append("\(name)  (\(verb), needs \(perms == .none ? "no" : perms.rawValue) permission)")
        lines.append("")
        lines.append(Self.wrap(Self.plainText(description), indent: "  "))
        let explanation = Self.plainText(self.explanation)
        if !explanation.isEmpty {
            lines.append("")
            lines.append(Self.wrap(explanation, indent: "  "))
        }
        let required = arguments.filter { !$0.optional }
        let optional = arguments.filter(\.optional)
        for (title, list) in [("Required arguments", required), ("Optional arguments", optional)] where !list.isEmpty {
            lines.append("")
            lines.append(title + ":")
            for a in list {
                let text = Self.plainText(a.description)
                lines.append("  " + a.name + (text.isEmpty ? "" : "\n" + Self.wrap(text, indent: "      ")))
            }
        }
        if !errors.isEmpty {
            lines.append("")
            lines.append("Errors:")
            for e in errors { lines.append("  \(e.code) \(Self.plainText(e.message))") }
        }
        lines.append("")
        let call = required.map { "\($0.name) = …" }.joined(separator: ", ")
        lines.append("Lua: \(name){\(call.isEmpty ? "" : " " + call + " ")}")
        return lines.joined(separator: "\n")
    }

    /// Flickr's descriptions carry a little HTML: tags dropped, entities decoded (named and
    /// numeric), whitespace collapsed.
    package static func plainText(_ html: String) -> String {
        var out = ""
        var inTag = false
        for ch in html {
            if ch == "<" { inTag = true; continue }
            if ch == ">" && inTag { inTag = false; continue }
            if !inTag { out.append(ch) }
        }
        return decodeEntities(out)
            .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    static let namedEntities: [String: String] = [
        "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "amp": "&", "nbsp": " ", "mdash": "—", "ndash": "–",
        "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "copy": "©", "eacute": "é",
    ]

    /// `&amp;`, `&mdash;`, `&#8212;`, `&#x2014;` → characters; anything else stays as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(10).firstIndex(of: ";") {
                let name = after[..<semi]
                var decoded: String?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else if name.hasPrefix("#") {
                    decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else {
                    decoded = namedEntities[String(name)]
                }
                if let decoded {
                    out += decoded
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            out += "&"
            rest = after
        }
        return out + rest
    }

    /// Wraps `text` at 96 columns with `indent` before every line.
    static func wrap(_ text: String, indent: String, width: Int = 96) -> String {
        var lines: [String] = []
        var line = indent
        for word in text.split(separator: " ") {
            if line.count + word.count + 1 > width, line.count > indent.count {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        if line.count > indent.count { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
