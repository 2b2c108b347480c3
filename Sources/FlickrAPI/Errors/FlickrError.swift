import FlickrProtocol
import Foundation

/// The one error type of the client. `kind` says what failed; the other fields say as much as
/// is known. Neither `description` nor `localizedDescription` contains a secret.
///
/// `localizedDescription` (``errorDescription``) is Flickr's message with the method, and what a
/// Swift caller can do about it (`strict: false`, `FlickrContext(apiKey:…)`);
/// `description` gives the same with the advice of the `flickr` command and its Lua module.
public struct FlickrError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// What failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Flickr answered `stat="fail"` (code and message from Flickr).
        case api
        /// HTTP 401 with `oauth_problem=…` (bad signature, rejected token, bad verifier).
        case oauth
        /// An HTTP status or a body that is not a Flickr answer (HTML error pages, 429, 5xx).
        case http
        /// The connection failed or broke.
        case network
        /// No answer in time.
        case timeout
        /// The body claimed to be XML or JSON and was not (truncated, malformed).
        case parse
        /// The caller passed something unusable (missing credentials, bad argument, unreadable file).
        case usage
        /// The task was cancelled.
        case cancelled
    }

    /// What a person can do about an error, said for each kind of caller. Each text starts
    /// with its separator from the message (`: `, `; `, ` — `).
    public struct Remedy: Sendable, Hashable {
        /// For the `flickr` command and its Lua module (`run \`flickr login\``, `--no-strict`).
        public var commandLine: String
        /// For a Swift program (`strict: false`, `FlickrContext(apiKey:sharedSecret:)`).
        public var swift: String

        /// A remedy in both voices.
        public init(commandLine: String, swift: String) {
            self.commandLine = commandLine
            self.swift = swift
        }
    }

    /// What failed.
    public var kind: Kind
    /// What the caller can do about it, when something can be said.
    public var remedy: Remedy?
    /// Flickr's error code (`api`), or nil.
    public var code: Int?
    /// Flickr's message, or the client's (without advice: see ``remedy``).
    public var message: String
    /// The Flickr method or service (`upload`, `oauth/access_token`) that failed.
    public var method: String?
    /// HTTP status, when a response arrived.
    public var httpStatus: Int?
    /// `oauth_problem` of a 401.
    public var oauthProblem: String?
    /// The base string Flickr computed (`debug_sbs`), to diff against the one the client signed.
    public var debugSBS: String?
    /// The base string this client signed, for the same comparison.
    public var signedBaseString: String?
    /// Seconds from a `Retry-After` header.
    public var retryAfter: Double?
    /// Upload code 9: the photo that already exists.
    public var duplicatePhotoID: String?
    /// The start of an unexpected body (at most 200 characters, secrets scrubbed).
    public var bodyExcerpt: String?
    /// The request never went out whole: the client found its pooled connection already closed
    /// by the server (an idle keep-alive connection closed unannounced) while writing it. A
    /// server does not act on a request it did not receive in full, so even a write that is
    /// not idempotent can be sent again.
    public var requestNotSent = false
    /// No connection to the server could be made — refused, no route, the name did not resolve,
    /// or the connect timed out — so nothing of the request reached it. A write that fails this
    /// way did not happen and may be sent again; a job treats a run of these as an outage of the
    /// endpoint (it waits, then stops), never as a failed or unclear write.
    public var unreachable = false
    /// The disk (or the user's quota) had no room for a file being written (ENOSPC, EDQUOT):
    /// nothing half written is kept, and a batch stops rather than fetch the next file only to
    /// fail the same way.
    public var diskFull = false

    /// An error of `kind` with what is known; ``requestNotSent`` and ``unreachable`` start false.
    public init(kind: Kind, code: Int? = nil, message: String, method: String? = nil,
                httpStatus: Int? = nil, oauthProblem: String? = nil, debugSBS: String? = nil,
                signedBaseString: String? = nil, retryAfter: Double? = nil,
                duplicatePhotoID: String? = nil, bodyExcerpt: String? = nil, remedy: Remedy? = nil) {
        self.kind = kind
        self.remedy = remedy
        self.code = code
        self.message = message
        self.method = method
        self.httpStatus = httpStatus
        self.oauthProblem = oauthProblem
        self.debugSBS = debugSBS
        self.signedBaseString = signedBaseString
        self.retryAfter = retryAfter
        self.duplicatePhotoID = duplicatePhotoID
        self.bodyExcerpt = bodyExcerpt
    }

    /// `flickr.photos.search: [100] Invalid API Key` — the form the Lua `__tostring` uses too,
    /// with the command line's advice.
    public var description: String { text(advice: remedy?.commandLine) }

    /// The message with the method, and advice for a Swift program: what
    /// `error.localizedDescription` gives.
    public var errorDescription: String? { text(advice: remedy?.swift) }

    /// The message with the command line's advice (the Lua error table's `message`).
    public var messageWithAdvice: String { message + (remedy?.commandLine ?? "") }

    private func text(advice: String?) -> String {
        var s = method.map { $0 + ": " } ?? ""
        if let code { s += "[\(code)] " }
        s += message + (advice ?? "")
        switch kind {
        case .http:
            if let httpStatus, !message.contains(String(httpStatus)) { s += " (HTTP \(httpStatus))" }
            if let retryAfter { s += "; retry after \(Self.format(retryAfter)) s" }
            if let bodyExcerpt, !bodyExcerpt.isEmpty { s += " — body: \(bodyExcerpt)" }
        case .oauth:
            if let debugSBS { s += "\n  Flickr signed: \(debugSBS)" }
            if let signedBaseString, signedBaseString != debugSBS { s += "\n  we signed:     \(signedBaseString)" }
        case .parse:
            if let bodyExcerpt, !bodyExcerpt.isEmpty { s += " — body: \(bodyExcerpt)" }
        case .api:
            if let duplicatePhotoID { s += " (duplicate of photo \(duplicatePhotoID))" }
        default:
            break
        }
        return s
    }

    /// Whether the error is transient (worth retrying a read).
    public var isTransient: Bool {
        switch kind {
        case .network, .timeout: return true
        // 429, 5xx, and an HTML page where an answer should be (Flickr's outage pages come as 200).
        case .http: return httpStatus.map { $0 == 429 || $0 >= 500 || $0 < 300 } ?? false
        case .parse: return true  // truncated bodies: the connection broke mid-answer
        case .api: return code.map(FlickrErrorCode.isTransient) ?? false
        case .oauth, .usage, .cancelled: return false
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format3(seconds))
    }

    private static func format3(_ x: Double) -> String {
        let scaled = (x * 1000).rounded() / 1000
        return "\(scaled)"
    }

    /// A usage error.
    public static func usage(_ message: String, method: String? = nil, remedy: Remedy? = nil) -> FlickrError {
        FlickrError(kind: .usage, message: message, method: method, remedy: remedy)
    }

    /// The error a missing credential causes: it names every way to provide one.
    public static func missingCredentials(_ what: String, method: String? = nil) -> FlickrError {
        usage("no \(what) configured", method: method, remedy: Remedy(
            commandLine: ": set FLICKR_API_KEY and FLICKR_API_SECRET (and FLICKR_OAUTH_TOKEN, FLICKR_OAUTH_TOKEN_SECRET), "
                + "run `flickr login`, or use `--sandbox`",
            swift: ": pass it to FlickrContext(apiKey:sharedSecret:oauthToken:oauthTokenSecret:), or set FLICKR_API_KEY and "
                + "FLICKR_API_SECRET (and FLICKR_OAUTH_TOKEN, FLICKR_OAUTH_TOKEN_SECRET) for FlickrContext.resolve(); "
                + "tests can use FlickrContext(sandbox:)"))
    }

    /// A call refused before it was sent by the catalog's checks.
    public static func refused(_ failure: CallCheckFailure) -> FlickrError {
        usage(failure.reason, method: failure.method,
              remedy: failure.commandLineAdvice.isEmpty && failure.swiftAdvice.isEmpty
                ? nil : Remedy(commandLine: failure.commandLineAdvice, swift: failure.swiftAdvice))
    }
}
