/// Why a document could not be read into ``XMLNode``s.
struct XMLReadError: Error, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension XMLNode {
    /// Reads a small, trusted XML fragment (a documented example payload) into elements.
    ///
    /// A deliberately small reader: elements, attributes, text, the five predefined entities and
    /// numeric references, comments, CDATA and the XML declaration. No DTDs, no entity
    /// definitions. Whitespace-only text between elements is dropped. A `<rsp>` root is unwrapped.
    static func parseFragment(_ source: String) throws(XMLReadError) -> [XMLNode] {
        var reader = FragmentReader(Array(source.unicodeScalars))
        var roots = try reader.readContent(until: nil)
        if roots.count == 1, roots[0].name == "rsp" { roots = roots[0].children }
        return roots
    }
}

private struct FragmentReader {
    let s: [Unicode.Scalar]
    var i = 0

    init(_ s: [Unicode.Scalar]) { self.s = s }

    func peek(_ str: String) -> Bool {
        var j = i
        for u in str.unicodeScalars {
            guard j < s.count, s[j] == u else { return false }
            j += 1
        }
        return true
    }

    mutating func skip(past str: String) throws(XMLReadError) {
        while i < s.count {
            if peek(str) {
                i += str.unicodeScalars.count
                return
            }
            i += 1
        }
        throw XMLReadError(message: "unterminated construct, expected \(str)")
    }

    mutating func readContent(until closing: String?) throws(XMLReadError) -> [XMLNode] {
        var nodes: [XMLNode] = []
        var text = ""
        var parentText = ""
        while i < s.count {
            if peek("<!--") {
                try skip(past: "-->")
            } else if peek("<![CDATA[") {
                i += 9
                let start = i
                try skip(past: "]]>")
                text.unicodeScalars.append(contentsOf: s[start..<(i - 3)])
            } else if peek("<?") {
                try skip(past: "?>")
            } else if peek("<!") {
                throw XMLReadError(message: "DTDs are not accepted")
            } else if peek("</") {
                i += 2
                let name = readName()
                try skip(past: ">")
                guard name == closing else { throw XMLReadError(message: "unexpected </\(name)>") }
                parentText += text
                lastText = parentText
                return nodes
            } else if s[i] == "<" {
                parentText += text
                text = ""
                nodes.append(try readElement())
            } else if s[i] == "&" {
                text.unicodeScalars.append(try readEntity())
            } else {
                text.unicodeScalars.append(s[i])
                i += 1
            }
        }
        if let closing { throw XMLReadError(message: "missing </\(closing)>") }
        return nodes
    }

    var lastText = ""

    mutating func readName() -> String {
        var name = ""
        while i < s.count {
            let u = s[i]
            if u == " " || u == "\t" || u == "\n" || u == "\r" || u == ">" || u == "/" || u == "=" { break }
            name.unicodeScalars.append(u)
            i += 1
        }
        return name
    }

    mutating func skipSpace() {
        while i < s.count, s[i] == " " || s[i] == "\t" || s[i] == "\n" || s[i] == "\r" { i += 1 }
    }

    mutating func readEntity() throws(XMLReadError) -> Unicode.Scalar {
        let start = i
        i += 1
        var name = ""
        while i < s.count, s[i] != ";", i - start < 12 {
            name.unicodeScalars.append(s[i])
            i += 1
        }
        guard i < s.count, s[i] == ";" else {
            i = start + 1
            return "&"
        }
        i += 1
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X"), let v = UInt32(name.dropFirst(2), radix: 16),
               let u = Unicode.Scalar(v) { return u }
            if name.hasPrefix("#"), let v = UInt32(name.dropFirst()), let u = Unicode.Scalar(v) { return u }
            i = start + 1
            return "&"
        }
    }

    mutating func readElement() throws(XMLReadError) -> XMLNode {
        i += 1
        let name = readName()
        guard !name.isEmpty else { throw XMLReadError(message: "empty element name") }
        var node = XMLNode(name)
        while true {
            skipSpace()
            guard i < s.count else { throw XMLReadError(message: "unterminated <\(name)") }
            if peek("/>") {
                i += 2
                return node
            }
            if s[i] == ">" {
                i += 1
                lastText = ""
                node.children = try readContent(until: name)
                let t = lastText
                if node.children.isEmpty {
                    node.text = t
                } else if !t.allSatisfy({ $0.isWhitespace }) {
                    node.text = t
                }
                return node
            }
            let attr = readName()
            skipSpace()
            guard i < s.count, s[i] == "=" else { throw XMLReadError(message: "attribute \(attr) without value") }
            i += 1
            skipSpace()
            guard i < s.count, s[i] == "\"" || s[i] == "'" else { throw XMLReadError(message: "unquoted attribute") }
            let quote = s[i]
            i += 1
            var value = ""
            while i < s.count, s[i] != quote {
                if s[i] == "&" { value.unicodeScalars.append(try readEntity()) } else {
                    value.unicodeScalars.append(s[i])
                    i += 1
                }
            }
            guard i < s.count else { throw XMLReadError(message: "unterminated attribute") }
            i += 1
            node.attributes.append((attr, .string(value)))
        }
    }
}
