extension XMLNode {
    /// Flickr's XML escaping: `& < > " '` become `&amp; &lt; &gt; &quot; &#039;` in text and
    /// attributes alike (as the live servers do).
    static func escape(_ s: String) -> String {
        // Also a control character or U+FFFE/U+FFFF (EF BF BE/BF): never written (XMLText).
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 < 0x20 || $0 == 0xBF })
        else {
            return s
        }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#039;"
            case _ where !XMLText.allowed(ch): continue
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// Renders this element the way Flickr lays out payloads: the payload root in column 0,
    /// nested elements indented with one TAB per level, empty elements as `<x a="1" />`.
    func renderXML(into out: inout String, depth: Int = 0) {
        let pad = String(repeating: "\t", count: depth)
        out += pad + "<" + name
        for (k, v) in attributes {
            out += " " + k + "=\"" + Self.escape(v.text) + "\""
        }
        if children.isEmpty {
            if let text {
                out += ">" + Self.escape(text) + "</" + name + ">"
            } else {
                out += " />"
            }
            return
        }
        out += ">"
        if let text, !text.isEmpty { out += Self.escape(text) }
        out += "\n"
        for child in children {
            child.renderXML(into: &out, depth: depth + 1)
            out += "\n"
        }
        out += pad + "</" + name + ">"
    }

    /// The XML of this element alone.
    var xml: String {
        var out = ""
        renderXML(into: &out)
        return out
    }
}

/// The `<rsp>` envelope around payloads.
enum FlickrEnvelope {
    static let prolog = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n"

    /// `<rsp stat="ok">` + payload lines + `</rsp>`; an empty payload gives the empty success.
    static func ok(_ payloadXML: String) -> String {
        if payloadXML.isEmpty { return prolog + "<rsp stat=\"ok\">\n</rsp>\n" }
        return prolog + "<rsp stat=\"ok\">\n" + payloadXML + "\n</rsp>\n"
    }

    /// `<rsp stat="fail">` with one TAB-indented `<err>` (plus extra lines, e.g. the
    /// `duplicate_photo_id` of a refused upload).
    static func fail(code: Int, message: String, extra: [XMLNode] = []) -> String {
        var out = prolog + "<rsp stat=\"fail\">\n\t<err code=\"\(code)\" msg=\"\(XMLNode.escape(message))\" />\n"
        for node in extra {
            node.renderXML(into: &out, depth: 1)
            out += "\n"
        }
        return out + "</rsp>\n"
    }
}
