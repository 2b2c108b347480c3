import Crypto
import FlickrAPI
import Foundation

/// A recorded run: every request a client sent and what came back, in the order the answers
/// arrived, as one text file (docs/CASSETTES.md). ``RecordingTransport`` writes one,
/// ``ReplayTransport`` answers from one; `flickr --record` / `--replay` use the same two.
///
/// Nothing secret is kept: the authentication parameters (`api_key`, `oauth_*`, `api_sig`,
/// `auth_token`), signatures, nonces and timestamps are left out of the requests, every
/// credential value is blanked wherever it appears, and so are the tokens an OAuth answer
/// hands out. An uploaded file is kept as its name, type, size and SHA-256, a downloaded one as
/// its bytes (base64) beside their size and SHA-256.
public struct Cassette: Sendable, Hashable {
    /// The first line of every cassette; a later format changes the number.
    public static let versionLine = "# flickr cassette v1"
    /// What stands in for a secret in a cassette.
    public static let redacted = "REDACTED"
    /// Parameters never recorded nor matched: authentication, signatures, nonces, timestamps,
    /// and `method` (the request's service says it).
    public static let volatileParameters: Set<String> = [
        "api_key", "api_sig", "auth_token", "method",
        "oauth_consumer_key", "oauth_token", "oauth_nonce", "oauth_timestamp", "oauth_signature",
        "oauth_signature_method", "oauth_version", "oauth_callback", "oauth_verifier",
    ]

    /// The base URL the run was recorded against (nil: Flickr's own); a replay uses it, so that
    /// URLs the client builds come out the same.
    public var endpoint: String?
    /// The requests and what came of each, in the order the answers arrived.
    public var exchanges: [Exchange]

    /// A cassette recorded against `endpoint` (nil: Flickr's own), holding `exchanges`.
    public init(endpoint: String? = nil, exchanges: [Exchange] = []) {
        self.endpoint = endpoint
        self.exchanges = exchanges
    }

    /// One request and what came of it.
    public struct Exchange: Sendable, Hashable {
        /// What was sent.
        public var request: Request
        /// What came back.
        public var outcome: Outcome
        /// An exchange of `request` and its `outcome`.
        public init(request: Request, outcome: Outcome) {
            self.request = request
            self.outcome = outcome
        }
    }

    /// A request as recorded and matched.
    public struct Request: Sendable, Hashable, CustomStringConvertible {
        /// `flickr.photos.search`, `upload`, `replace`, `oauth/request_token`, `download`…
        public var service: String
        /// `GET` or `POST`; recorded, not matched.
        public var httpMethod: String
        /// The endpoint's path (`/services/rest/`); recorded, not matched.
        public var path: String
        /// The arguments sent, less ``Cassette/volatileParameters``, sorted by name then value
        /// (a download's is its `url`).
        public var arguments: [Argument]
        /// An upload's file.
        public var file: File?

        /// A request; `arguments` are sorted by name then value, as they are recorded and matched.
        public init(service: String, httpMethod: String = "GET", path: String = "", arguments: [Argument] = [], file: File? = nil) {
            self.service = service
            self.httpMethod = httpMethod
            self.path = path
            self.arguments = arguments.sorted()
            self.file = file
        }

        /// What a replay matches on: the service, the arguments and the file's size and digest.
        public var key: String {
            ([service] + arguments.map { $0.name + "=" + $0.value }
                + (file.map { ["file=\($0.size):\($0.sha256)"] } ?? [])).joined(separator: "\u{0}")
        }

        /// `flickr.photos.search {tags=cat, per_page=5}` (a file as `photo=<name, size, sha256>`).
        public var description: String {
            var parts = arguments.map { "\($0.name)=\(Cassette.shortQuoted($0.value))" }
            if let file { parts.append("photo=<\(file.filename), \(file.size) bytes, sha256 \(file.sha256.prefix(12))…>") }
            return service + " {" + parts.joined(separator: ", ") + "}"
        }
    }

    /// One `name=value` argument.
    public struct Argument: Sendable, Hashable, Comparable {
        /// The argument's name (`tags`).
        public var name: String
        /// Its value, secrets blanked (``Cassette/redacted``).
        public var value: String
        /// The argument `name=value`.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
        /// By name, then by value: the order a request's arguments are kept in.
        public static func < (a: Argument, b: Argument) -> Bool { (a.name, a.value) < (b.name, b.value) }
    }

    /// An uploaded file, by its digest.
    public struct File: Sendable, Hashable {
        /// The file's name as the client sent it.
        public var filename: String
        /// Its MIME type (`image/jpeg`).
        public var mimeType: String
        /// Its size in bytes.
        public var size: Int64
        /// Lowercase hex.
        public var sha256: String
        /// A file as recorded: its name, type, size and digest.
        public init(filename: String, mimeType: String, size: Int64, sha256: String) {
            self.filename = filename
            self.mimeType = mimeType
            self.size = size
            self.sha256 = sha256
        }
    }

    /// What came back: an answer (any status), or no answer at all.
    public enum Outcome: Sendable, Hashable {
        /// An answer arrived: its status, headers and body, whatever the status.
        case answer(Answer)
        /// The transport's failure (`network`, `timeout`…): the kind and message of its error.
        case failure(kind: String, message: String, unreachable: Bool, requestNotSent: Bool)
    }

    /// An answer as recorded: status, the headers the client reads, the body.
    public struct Answer: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// The headers the client reads (``Cassette/recordedHeaders``).
        public var headers: [Argument]
        /// The body's bytes (secrets and handed-out tokens blanked; an image's bytes as they were).
        public var body: [UInt8]
        /// An answer with `status`, `headers` and `body`.
        public init(status: Int, headers: [Argument] = [], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// Response headers kept: the ones the client reads. The rest (dates, request ids,
    /// cookies) change from run to run and would only make recordings differ.
    public static let recordedHeaders = ["Content-Type", "Retry-After", "WWW-Authenticate"]

    // MARK: - Making one from the client's requests

    /// The request as recorded: its volatile parameters left out and secrets blanked; an
    /// upload's file read once for its size and SHA-256.
    public static func request(_ request: FlickrTransportRequest) async throws(FlickrError) -> Request {
        let secrets = request.secrets
        if request.service == "download" {
            return Request(service: "download", httpMethod: request.httpMethod, path: "",
                           arguments: [Argument("url", scrub(request.endpoint, secrets: secrets))])
        }
        let arguments = request.parameters.filter { !volatileParameters.contains($0.0) }
            .map { Argument($0.0, scrub($0.1, secrets: secrets)) }
        var file: File?
        if let f = request.file {
            var hasher = SHA256()
            var size: Int64 = 0
            do {
                try await f.read { chunk in
                    hasher.update(data: chunk)
                    size += Int64(chunk.count)
                }
            } catch {
                throw FlickrError(kind: .usage, message: "cannot read \(f.filename) to record it: \(error)", method: request.service)
            }
            file = File(filename: f.filename, mimeType: f.mimeType, size: size, sha256: hex(hasher.finalize()))
        }
        let path = URLComponents(string: request.endpoint)?.path ?? request.endpoint
        return Request(service: request.service, httpMethod: request.httpMethod, path: path, arguments: arguments, file: file)
    }

    /// The answer as recorded: the headers the client reads, and a body whose secrets and
    /// fresh tokens are blanked (an image's bytes are kept as they are).
    public static func answer(_ response: FlickrTransportResponse, service: String, secrets: [String]) -> Answer {
        var headers: [Argument] = []
        for name in recordedHeaders {
            for (n, v) in response.headers where n.caseInsensitiveCompare(name) == .orderedSame {
                headers.append(Argument(name, v))
            }
        }
        var body = response.body
        if service != "download", let text = String(validating: body, as: UTF8.self) {
            let clean = scrubTokens(scrub(text, secrets: secrets))
            if clean != text { body = Array(clean.utf8) }
        }
        return Answer(status: response.status, headers: headers, body: body)
    }

    /// `text` with every credential value (of 6 characters or more) replaced by ``redacted``.
    public static func scrub(_ text: String, secrets: [String]) -> String {
        var out = text
        for secret in Set(secrets) where secret.count >= 6 && out.contains(secret) {
            out = out.replacingOccurrences(of: secret, with: redacted)
        }
        return out
    }

    /// Tokens an answer hands out (OAuth's `oauth_token`/`oauth_token_secret`, in a form or as
    /// XML attributes or JSON fields; the legacy `<token>`) blanked.
    static func scrubTokens(_ text: String) -> String {
        guard text.contains("token") else { return text }
        var out = text
        let patterns: [(String, String)] = [
            (#"(oauth_token_secret|oauth_token)=[^&\s"<]+"#, "$1=" + redacted),
            (#"(oauth_token_secret|oauth_token)="[^"]*""#, "$1=\"" + redacted + "\""),
            (#""(oauth_token_secret|oauth_token)":\s*\{\s*"_content":\s*"[^"]*""#, "\"$1\":{\"_content\":\"" + redacted + "\""),
            (#""(oauth_token_secret|oauth_token)":\s*"[^"]*""#, "\"$1\":\"" + redacted + "\""),
            (#"<token>[^<]*</token>"#, "<token>" + redacted + "</token>"),
            (#""token":\s*\{\s*"_content":\s*"[^"]*""#, "\"token\":{\"_content\":\"" + redacted + "\""),
        ]
        for (pattern, template) in patterns {
            out = out.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        return out
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Lowercase hex SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    /// A value for messages: as is when short and plain, else quoted and cut.
    static func shortQuoted(_ value: String) -> String {
        let cut = value.count > 60 ? String(value.prefix(57)) + "…" : value
        return needsQuoting(cut) || cut.contains(",") || cut.contains("}") ? quote(cut) : cut
    }
}

// MARK: - The text form

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
