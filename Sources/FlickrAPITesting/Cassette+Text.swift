import FlickrAPI
import Foundation

extension Cassette {
    /// A cassette that cannot be read: the line and what is wrong there.
    public struct FormatError: Error, Sendable, CustomStringConvertible {
        /// The cassette's path (or the name given to ``Cassette/parse(_:path:)``).
        public var path: String
        /// The 1-based line where it is wrong; 0 when the file could not be read at all.
        public var line: Int
        /// What is wrong there.
        public var message: String
        /// The form `description` shows: `path:line: message`.
        public var description: String { "\(path):\(line): \(message)" }
    }

    /// The file's opening: the version line, what it is, the endpoint.
    public static func header(endpoint: String?) -> String {
        var text = versionLine + "\n"
        text += "# What a flickr run asked and what came back, one block each, in the order the answers came;\n"
        text += "# the format is in docs/CASSETTES.md. Credentials and one-time values were left out.\n"
        if let endpoint { text += "endpoint: \(endpoint)\n" }
        return text
    }

    /// The whole cassette as text.
    public var text: String {
        var out = Self.header(endpoint: endpoint)
        for (i, exchange) in exchanges.enumerated() { out += exchange.block(number: i + 1) }
        return out
    }

    /// Writes ``text`` to `path`.
    public func write(to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Reads the cassette at `path`.
    public static func read(_ path: String) throws -> Cassette {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw FormatError(path: path, line: 0, message: "cannot read the cassette: \((error as NSError).localizedDescription)")
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    /// Parses a cassette's text (`path` names it in errors).
    public static func parse(_ text: String, path: String = "cassette") throws -> Cassette {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        func fail(_ line: Int, _ message: String) -> FormatError { FormatError(path: path, line: line, message: message) }
        guard let first = lines.first, first.hasPrefix("# flickr cassette ") else {
            throw fail(1, "not a flickr cassette (the first line is not \"\(versionLine)\")")
        }
        guard first == versionLine else {
            throw fail(1, "\(first.dropFirst(2)) is not a version this flickr reads (it reads v1)")
        }
        var cassette = Cassette()
        var current: (request: Request, status: Int?, headers: [Argument], body: [UInt8]?, failure: Outcome?)?
        var i = 1
        func finish(_ line: Int) throws {
            guard let c = current else { return }
            if let failure = c.failure {
                cassette.exchanges.append(Exchange(request: c.request, outcome: failure))
            } else {
                guard let status = c.status else { throw fail(line, "the block of \(c.request.service) has no status: or error:") }
                cassette.exchanges.append(Exchange(request: c.request,
                                                   outcome: .answer(Answer(status: status, headers: c.headers, body: c.body ?? []))))
            }
            current = nil
        }
        while i < lines.count {
            let line = lines[i]
            let number = i + 1
            i += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("--- ") {
                try finish(number)
                current = (Request(service: ""), nil, [], nil, nil)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { throw fail(number, "expected `field: value`, found \(line)") }
            let field = String(line[..<colon])
            var value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
            if field == "endpoint", current == nil {
                cassette.endpoint = value
                continue
            }
            guard current != nil else { throw fail(number, "\(field): before the first block (`--- 1`)") }
            switch field {
            case "request":
                current!.request.service = value
            case "http":
                let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
                current!.request.httpMethod = parts.first ?? "GET"
                current!.request.path = parts.count > 1 ? parts[1] : ""
            case "arg", "header":
                guard let eq = value.firstIndex(of: field == "arg" ? "=" : ":") else {
                    throw fail(number, field == "arg" ? "expected `arg: name=value`" : "expected `header: Name: value`")
                }
                let name = String(value[..<eq])
                var rest = String(value[value.index(after: eq)...])
                if field == "header", rest.hasPrefix(" ") { rest.removeFirst() }
                guard let decoded = unquote(rest) else { throw fail(number, "a quoted value that does not end: \(rest)") }
                if field == "arg" {
                    current!.request.arguments.append(Argument(name, decoded))
                    current!.request.arguments.sort()
                } else {
                    current!.headers.append(Argument(name, decoded))
                }
            case "file":
                // file: NAME TYPE SIZE sha256:HEX, NAME quoted when it has spaces.
                let words = splitWords(value)
                guard words.count == 4, let size = Int64(words[2]), words[3].hasPrefix("sha256:") else {
                    throw fail(number, "expected `file: NAME TYPE SIZE sha256:HEX`")
                }
                current!.request.file = File(filename: words[0], mimeType: words[1], size: size,
                                             sha256: String(words[3].dropFirst("sha256:".count)))
            case "status":
                guard let status = Int(value) else { throw fail(number, "status: \(value) is not a number") }
                current!.status = status
            case "error":
                // error: KIND[, unreachable][, not sent]: MESSAGE
                guard let sep = value.range(of: ": ") else { throw fail(number, "expected `error: KIND: message`") }
                let flags = value[..<sep.lowerBound].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                current!.failure = .failure(kind: flags.first ?? "network", message: String(value[sep.upperBound...]),
                                            unreachable: flags.contains("unreachable"), requestNotSent: flags.contains("not sent"))
            case "body":
                var bodyLines: [String] = []
                while i < lines.count, lines[i].hasPrefix("|") {
                    bodyLines.append(lines[i] == "|" ? "" : String(lines[i].dropFirst(lines[i].hasPrefix("| ") ? 2 : 1)))
                    i += 1
                }
                let words = value.split(separator: " ").map(String.init)
                switch words.first {
                case "text":
                    current!.body = Array(bodyLines.joined(separator: "\n").utf8)
                case "base64":
                    guard let bytes = Data(base64Encoded: bodyLines.joined()) else { throw fail(number, "the base64 body does not decode") }
                    current!.body = Array(bytes)
                    if let digest = words.first(where: { $0.hasPrefix("sha256:") }), String(digest.dropFirst(7)) != sha256(Array(bytes)) {
                        throw fail(number, "the body's bytes do not have the SHA-256 recorded beside them")
                    }
                case "empty":
                    current!.body = []
                default:
                    throw fail(number, "body: is text, base64 or empty")
                }
            default:
                throw fail(number, "unknown field \(field):")
            }
            if field == "request", value.isEmpty { throw fail(number, "request: names no service") }
        }
        try finish(lines.count)
        return cassette
    }

    /// Words separated by spaces, a double-quoted one taken whole.
    static func splitWords(_ text: String) -> [String] {
        var words: [String] = []
        var rest = Substring(text)
        while let start = rest.firstIndex(where: { $0 != " " }) {
            rest = rest[start...]
            if rest.hasPrefix("\""), let (word, after) = unquotePrefix(rest) {
                words.append(word)
                rest = after
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                words.append(String(rest[..<end]))
                rest = rest[end...]
            }
        }
        return words
    }

    // MARK: Values

    /// A value that would not survive as a plain line: control characters, spaces at either
    /// end, a leading quote.
    static func needsQuoting(_ value: String) -> Bool {
        value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            || value.hasPrefix(" ") || value.hasSuffix(" ") || value.hasPrefix("\"")
    }

    /// A JSON string literal (FlickrProtocol's: control characters and DEL escaped).
    static func quote(_ value: String) -> String { JSONValue.quote(value) }

    static func field(_ value: String) -> String { needsQuoting(value) ? quote(value) : value }

    /// The value of a field: a quoted literal decoded, anything else as it is; nil for a
    /// literal that does not end.
    static func unquote(_ text: String) -> String? {
        guard text.hasPrefix("\"") else { return text }
        guard let (value, rest) = unquotePrefix(Substring(text)), rest.isEmpty else { return nil }
        return value
    }

    static func unquotePrefix(_ text: Substring) -> (String, Substring)? {
        var scalars = text.unicodeScalars.dropFirst()
        var out = String.UnicodeScalarView()
        while let c = scalars.first {
            scalars = scalars.dropFirst()
            if c == "\"" { return (String(out), Substring(scalars)) }
            guard c == "\\" else { out.append(c); continue }
            guard let e = scalars.first else { return nil }
            scalars = scalars.dropFirst()
            switch e {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                guard hex.count == 4, let v = UInt32(hex, radix: 16), let s = Unicode.Scalar(v) else { return nil }
                out.append(s)
                scalars = scalars.dropFirst(4)
            default: out.append(e)
            }
        }
        return nil
    }
}

extension Cassette.Exchange {
    /// This exchange's block, numbered.
    func block(number: Int) -> String {
        var out = "\n--- \(number)\n"
        out += "request: \(request.service)\n"
        out += "http: \(request.httpMethod)" + (request.path.isEmpty ? "" : " \(request.path)") + "\n"
        for a in request.arguments { out += "arg: \(a.name)=\(Cassette.field(a.value))\n" }
        if let f = request.file {
            let name = f.filename.contains(" ") || Cassette.needsQuoting(f.filename) ? Cassette.quote(f.filename) : f.filename
            out += "file: \(name) \(f.mimeType) \(f.size) sha256:\(f.sha256)\n"
        }
        switch outcome {
        case .failure(let kind, let message, let unreachable, let notSent):
            let flags = [kind] + (unreachable ? ["unreachable"] : []) + (notSent ? ["not sent"] : [])
            out += "error: \(flags.joined(separator: ", ")): \(message.replacingOccurrences(of: "\n", with: " "))\n"
        case .answer(let answer):
            out += "status: \(answer.status)\n"
            for h in answer.headers { out += "header: \(h.name): \(Cassette.field(h.value))\n" }
            out += Self.body(answer.body, binary: request.service == "download")
        }
        return out
    }

    /// `body: text` and the text's lines each after `| ` (an empty line is `|`, so a final
    /// newline shows as a last `|`); `body: base64 SIZE sha256:HEX` and its lines of 76; or
    /// `body: empty`.
    static func body(_ bytes: [UInt8], binary: Bool) -> String {
        if bytes.isEmpty { return "body: empty\n" }
        if !binary, let text = String(validating: bytes, as: UTF8.self),
           !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F }) {
            var out = "body: text\n"
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                out += line.isEmpty ? "|\n" : "| \(line)\n"
            }
            return out
        }
        var out = "body: base64 \(bytes.count) sha256:\(Cassette.sha256(bytes))\n"
        let encoded = Data(bytes).base64EncodedString()
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            out += "| " + encoded[start..<end] + "\n"
            start = end
        }
        return out
    }
}
