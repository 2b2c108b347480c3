import FlickrProtocol

extension XMLNode {
    /// Reads an XML document — a documented example payload — into elements, through the
    /// package's one XML reader (``FlickrXMLParser``: libxml2, no DTD, no entity expansion).
    /// Element structure is kept as written (no Flickr mapping): attributes in order, children,
    /// text; whitespace-only text beside child elements is dropped. A fragment of several
    /// elements may be given; a `<rsp>` root is unwrapped. A malformed document throws.
    static func read(_ source: String) throws(FlickrParseError) -> [XMLNode] {
        let wrapped = source.contains("<rsp") ? source : "<rsp>" + source + "</rsp>"
        let reader = XMLNodeReader()
        try FlickrXMLParser.parse(wrapped, handler: reader)
        guard let root = reader.root else { throw FlickrParseError(message: "no root element") }
        return root.name == "rsp" ? root.children : [root]
    }
}

/// Builds ``XMLNode``s from the parser's events.
private final class XMLNodeReader: FlickrXMLEventHandler {
    private var stack: [(node: XMLNode, text: [UInt8])] = []
    private(set) var root: XMLNode?

    func startElement(_ name: UnsafePointer<CChar>, attributes: FlickrXMLAttributes) {
        var node = XMLNode(String(cString: name))
        for i in 0..<attributes.count {
            guard let key = attributes.name(at: i) else { continue }
            let value = attributes.withValue(at: i) { String(decoding: $0, as: UTF8.self) }
            node.attributes.append((String(cString: key), .string(value)))
        }
        stack.append((node, []))
    }

    func characters(_ text: UnsafeRawBufferPointer) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text.append(contentsOf: text)
    }

    func endElement() {
        guard var (node, text) = stack.popLast() else { return }
        let string = String(decoding: text, as: UTF8.self)
        if !text.isEmpty, node.children.isEmpty || !string.allSatisfy(\.isWhitespace) { node.text = string }
        text.removeAll()
        if stack.isEmpty { root = node } else { stack[stack.count - 1].node.children.append(node) }
    }
}
