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
}
