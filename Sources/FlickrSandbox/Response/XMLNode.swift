/// One element of a response document: the sandbox builds every answer as a tree of these and
/// renders it as Flickr's XML (``XMLNode/renderXML(into:depth:)``) or Flickr's JSON
/// (``XMLNode/jsonValue(parent:)``), so both formats always agree.
struct XMLNode: Sendable, Hashable {
    /// An attribute value; `number` renders unquoted in JSON (Flickr sends `"farm":66`).
    enum Value: Sendable, Hashable {
        case string(String)
        case number(Int)

        var text: String {
            switch self {
            case .string(let s): return s
            case .number(let n): return String(n)
            }
        }
    }

    var name: String
    var attributes: [(String, Value)]
    var children: [XMLNode]
    /// Element text (already unescaped); nil for an element without text.
    var text: String?
    /// Child names that are lists in JSON even when they occur once or not at all.
    var listChildren: Set<String>

    init(_ name: String, _ attributes: [(String, Value)] = [], children: [XMLNode] = [], text: String? = nil,
         lists: Set<String> = []) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.listChildren = lists
    }

    /// Whether `name` can be an element or attribute name (XML 1.0's Name, without the colon of
    /// namespaces): a letter or `_` first, then letters, digits, `_`, `-`, `.`.
    static func isName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }

    /// A text-only element such as `<title>Sunset</title>`.
    static func text(_ name: String, _ text: String) -> XMLNode { XMLNode(name, text: text) }

    subscript(attribute name: String) -> String? {
        attributes.first { $0.0 == name }?.1.text
    }

    mutating func set(_ name: String, _ value: Value) {
        if let i = attributes.firstIndex(where: { $0.0 == name }) { attributes[i].1 = value } else {
            attributes.append((name, value))
        }
    }

    static func == (a: XMLNode, b: XMLNode) -> Bool {
        a.name == b.name && a.attributes.map(\.0) == b.attributes.map(\.0)
            && a.attributes.map(\.1) == b.attributes.map(\.1) && a.children == b.children && a.text == b.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(children)
        hasher.combine(text)
    }
}

extension XMLNode.Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .number(value) }
}
