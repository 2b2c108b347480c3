import AsyncHTTPClient
import FlickrProtocol
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// HTTP verb of a call.
public enum HTTPVerb: String, Sendable, Hashable {
    /// `GET`: arguments in the query string.
    case get = "GET"
    /// `POST`: arguments in a form body.
    case post = "POST"
}

/// Where OAuth parameters travel (RFC 5849 §3.5); Flickr accepts each.
public enum SignaturePlacement: Sendable, Hashable {
    /// In the query string (GET) or the form body (POST), like flickr-sdk.
    case parameters
    /// In an `Authorization: OAuth …` header, like python-flickrapi.
    case header
}

extension FlickrClient {
    /// Calls a Flickr method and returns the mapped `<rsp>` (`FlickrNode`; `stat` is "ok").
    ///
    /// - Parameters:
    ///   - method: `flickr.photos.search`; the leading `flickr.` may be left out.
    ///   - arguments: the method's arguments (not `api_key`, `method`, `format`, auth).
    ///   - verb: overrides the catalog's choice (POST for write/delete methods, else GET).
    ///   - timeout: seconds; defaults to the context's request timeout.
    ///   - strict: check the call against the catalog before sending it (see
    ///     `MethodCatalog/check(_:argumentNames:strict:)`); false sends a method or argument
    ///     newer than the catalog as given.
    /// - Throws: ``FlickrError`` — `.api` for `stat="fail"`, `.oauth` for a 401, `.http`,
    ///   `.network`, `.timeout`, `.parse`, `.usage` (also every refusal made before sending),
    ///   `.cancelled`.
    public func call(_ method: String, _ arguments: [String: String] = [:], verb: HTTPVerb? = nil,
                     timeout: Double? = nil, strict: Bool = true) async throws(FlickrError) -> FlickrNode {
        try await call(method, arguments: arguments.sorted { $0.key < $1.key }, verb: verb, timeout: timeout, strict: strict)
    }

    /// Calls a method with ordered arguments (repeated names allowed).
    public func call(_ method: String, arguments: [(String, String)], verb: HTTPVerb? = nil,
                     timeout: Double? = nil, strict: Bool = true) async throws(FlickrError) -> FlickrNode {
        try await rest(method, arguments, verb: verb, timeout: timeout, strict: strict) { result, name throws(FlickrError) in
            try ResponseClassifier.classify(status: result.status, contentType: result.contentType,
                                            retryAfter: result.retryAfter, body: result.body, method: name)
        }
    }

    /// Calls a method and has `mapXML` map a successful XML answer — for consumers that map XML
    /// themselves (the Lua module builds its tables straight from the parser); a JSON answer
    /// comes back as the mapped tree. Failures, errors and bodies that are not a complete
    /// `<rsp stat="ok">` document are classified as ``call(_:arguments:verb:timeout:strict:)``
    /// does. `mapXML` runs inside the retry policy: a parse error it throws (a malformed answer)
    /// is retried like one of the client's own.
    package func callBody<Mapped: Sendable>(_ method: String, arguments: [(String, String)], verb: HTTPVerb? = nil,
                                           timeout: Double? = nil, strict: Bool = true,
                                           mapXML: @escaping @Sendable ([UInt8]) async throws(FlickrError) -> Mapped)
        async throws(FlickrError) -> FlickrResponseBody<Mapped> {
        try await rest(method, arguments, verb: verb, timeout: timeout, strict: strict) { result, name async throws(FlickrError) in
            let complete = result.status == 200 && ResponseClassifier.isCompleteSuccessXML(result.body)
            if !complete {
                let tree = try ResponseClassifier.classify(status: result.status, contentType: result.contentType,
                                                           retryAfter: result.retryAfter, body: result.body, method: name)
                // XML that passed the classifier in another form (stat='ok', …) is mapped the same way.
                guard ResponseClassifier.isXML(result.body) else { return .tree(tree) }
            }
            do throws(FlickrError) {
                return .xml(try await mapXML(result.body))
            } catch {
                var e = error
                e.method = e.method ?? name
                if e.kind == .parse {
                    e.httpStatus = e.httpStatus ?? result.status
                    e.bodyExcerpt = e.bodyExcerpt ?? ResponseClassifier.excerpt(result.body)
                }
                throw e
            }
        }
    }

    /// One REST call under the retry policy and the rate limiter: the checks made before any
    /// request (``preflight(_:_:strict:)``), the verb from the catalog (unless given), `format`
    /// for JSON, signing, sending; `interpret` turns each answer into the result or the error
    /// (which the retry policy then judges).
    func rest<T: Sendable>(_ method: String, _ arguments: [(String, String)], verb: HTTPVerb?, timeout: Double?,
                           strict: Bool = true,
                           interpret: @escaping @Sendable (HTTPResult, String) async throws(FlickrError) -> T) async throws(FlickrError) -> T {
        let name = try preflight(method, arguments, strict: strict)
        if verb == .get, let known = MethodCatalog.shared.method(name), known.perms >= .write {
            throw FlickrError.usage("\(name) writes, and Flickr takes a write only by POST (it answers 116 to a GET); nothing was sent",
                                    method: name, remedy: .init(commandLine: ": leave out --verb GET", swift: ": leave out verb: .get"))
        }
        let catalogVerb = MethodCatalog.shared.method(name).map { $0.verb == "POST" ? HTTPVerb.post : .get }
        let chosen = verb ?? catalogVerb ?? .get
        let isWrite = MethodCatalog.shared.method(name).map { $0.perms >= .write } ?? (chosen == .post)
        return try await withRetries(method: name, isWrite: isWrite) { () async throws(FlickrError) -> T in
            let ctx = self.context
            var params: [(String, String)] = [("method", name)]
            params += arguments
            if ctx.format == .json, !arguments.contains(where: { $0.0 == "format" }) {
                params += [("format", "json"), ("nojsoncallback", "1")]
            }
            let spec = try self.signedRequest(url: ctx.endpoints.rest, verb: chosen, parameters: params, context: ctx,
                                              timeout: timeout ?? ctx.requestTimeout, method: name)
            return try await self.execute(spec, method: name, interpret: interpret)
        }
    }

    /// What can be known wrong before a request, refused as a usage error that costs none: the
    /// catalog's checks (the method's spelling is corrected), and `user_id=me` with no login to
    /// say who "me" is. Returns the method name to send.
    func preflight(_ method: String, _ arguments: [(String, String)], strict: Bool) throws(FlickrError) -> String {
        let name: String
        do {
            name = try MethodCatalog.shared.check(method, argumentNames: arguments.lazy.map(\.0), strict: strict)
        } catch {
            throw FlickrError.refused(error)
        }
        let ctx = context
        if ctx.oauthToken == nil, ctx.authToken == nil, arguments.contains(where: { $0.0 == "user_id" && $0.1 == "me" }) {
            throw FlickrError.usage("user_id=me stands for the logged-in user, and no login is configured", method: name,
                                    remedy: .init(commandLine: ": run `flickr login` (or pass an NSID such as 12037949754@N01)",
                                                  swift: ": give the context an OAuth token (FlickrContext(apiKey:sharedSecret:oauthToken:oauthTokenSecret:)), "
                                                      + "or pass an NSID such as 12037949754@N01"))
        }
        // (Without an API key nothing can be signed: that error, which says what to set, comes first.)
        if let needed = MethodCatalog.shared.method(name)?.perms, needed > .none, !ctx.apiKey.isEmpty {
            try Self.checkPermission(needed, for: name, context: ctx)
        }
        if Self.tagStringMethods.contains(name), let tags = arguments.last(where: { $0.0 == "tags" })?.1 {
            try Self.checkTags(tags, method: name)
        }
        return name
    }

    /// Refuses a call that needs `needed` when the context has no token at all, or a token
    /// known to hold less: Flickr would answer 99 (insufficient permissions) after the request.
    package static func checkPermission(_ needed: FlickrPermission, for name: String, context ctx: FlickrContext) throws(FlickrError) {
        let remedy = FlickrError.Remedy(commandLine: ": run `flickr login --perms \(needed.rawValue)`",
                                        swift: ": give the context an OAuth token granted \(needed.rawValue) permission "
                                            + "(FlickrContext(apiKey:sharedSecret:oauthToken:oauthTokenSecret:))")
        if !ctx.hasOAuthToken, ctx.authToken == nil {
            throw FlickrError.usage("\(name) needs \(needed.rawValue) permission, and no login is configured; nothing was sent",
                                    method: name, remedy: remedy)
        }
        if let granted = ctx.tokenPermission, granted < needed {
            throw FlickrError.usage("\(name) needs \(needed.rawValue) permission, and this login was granted \(granted.rawValue); nothing was sent",
                                    method: name, remedy: remedy)
        }
    }

    /// The methods whose `tags` argument is a tag string (upload's `tags` field is one too).
    static let tagStringMethods: Set<String> = ["flickr.photos.addTags", "flickr.photos.setTags"]

    /// Refuses a tag string holding a word Flickr would store as no tag at all (no letter or
    /// digit: `📷`), so that a tag is never lost without a word; nothing is sent.
    static func checkTags(_ tags: String, method: String) throws(FlickrError) {
        let lost = TagString.unstorable(in: tags)
        guard !lost.isEmpty else { return }
        throw FlickrError.usage("tags: " + lost.map { "'\($0)'" }.joined(separator: ", ")
                                + (lost.count == 1 ? " has" : " have") + " no letter or digit, so Flickr would not store "
                                + (lost.count == 1 ? "it as a tag" : "them as tags") + "; leave "
                                + (lost.count == 1 ? "it" : "them") + " out or add a word; nothing was sent", method: method)
    }

    /// Sends a prepared request and classifies the answer.
    func execute(_ spec: HTTPRequestSpec, method: String) async throws(FlickrError) -> FlickrNode {
        try await execute(spec, method: method) { result, name throws(FlickrError) in
            try ResponseClassifier.classify(status: result.status, contentType: result.contentType,
                                            retryAfter: result.retryAfter, body: result.body, method: name)
        }
    }

    /// Sends a prepared request (traced, secrets redacted) and lets `interpret` read the answer;
    /// errors it throws get the signed base string and lose any secret.
    func execute<T>(_ spec: HTTPRequestSpec, method: String,
                    interpret: (HTTPResult, String) async throws(FlickrError) -> T) async throws(FlickrError) -> T {
        let start = ContinuousClock.now
        logger.trace("→ \(spec.redactedSummary)")
        let result: HTTPResult
        do {
            result = try await send(spec, method: method)
        } catch {
            logger.trace("✗ \(method): \(error.kind.rawValue): \(error.message)")
            throw error
        }
        logger.trace("← \(result.status) \(method) \(result.body.count) bytes in \(ContinuousClock.now - start): \(Redaction.scrub(ResponseClassifier.excerpt(result.body, limit: 300), secrets: self.credentialValues))")
        do {
            return try await interpret(result, method)
        } catch {
            throw scrubbed(error, signed: spec)
        }
    }

    /// Parameters and headers of a request after authentication was added.
    struct SignedParameters {
        var parameters: [(String, String)]
        var headers: [(String, String)]
        /// The OAuth base string, when OAuth signed the request.
        var baseString: String?
    }

    /// Adds auth to `parameters`: OAuth when the context has an access token; legacy `api_key`
    /// (+ `auth_token`) + `api_sig` otherwise.
    func sign(url: String, verb: HTTPVerb, parameters: [(String, String)], context ctx: FlickrContext,
              method: String, placement: SignaturePlacement? = nil) throws(FlickrError) -> SignedParameters {
        guard !ctx.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: method) }
        var params = parameters
        if let token = ctx.oauthToken, let tokenSecret = ctx.oauthTokenSecret {
            guard !ctx.sharedSecret.isEmpty else { throw FlickrError.missingCredentials("API secret", method: method) }
            let oauth = OAuthParameters.fresh(consumerKey: ctx.apiKey, token: token)
            let signed = OAuthSignature.sign(method: verb.rawValue, url: url, parameters: params + oauth.pairs,
                                             consumerSecret: ctx.sharedSecret, tokenSecret: tokenSecret)
            if (placement ?? ctx.signaturePlacement) == .header {
                return SignedParameters(parameters: params,
                                        headers: [("Authorization", oauth.authorizationHeader(signature: signed.signature))],
                                        baseString: signed.baseString)
            }
            params += oauth.pairs + [("oauth_signature", signed.signature)]
            return SignedParameters(parameters: params, headers: [], baseString: signed.baseString)
        }
        params.append(("api_key", ctx.apiKey))
        if let authToken = ctx.authToken { params.append(("auth_token", authToken)) }
        if !ctx.sharedSecret.isEmpty {
            params.append(("api_sig", LegacySignature.apiSig(secret: ctx.sharedSecret, parameters: params)))
        }
        return SignedParameters(parameters: params, headers: [], baseString: nil)
    }

    /// The longest URL sent as a GET: servers and proxies refuse longer ones (HTTP 414 or 400),
    /// so a longer read goes as a POST, which Flickr accepts for every method.
    static let maxGETURLLength = 8 * 1024

    /// A signed GET (parameters in the query) or POST (urlencoded body). A GET whose URL would
    /// be longer than ``maxGETURLLength`` is signed again as a POST.
    func signedRequest(url: String, verb: HTTPVerb, parameters: [(String, String)], context ctx: FlickrContext,
                       timeout: Double, method: String, placement: SignaturePlacement? = nil) throws(FlickrError) -> HTTPRequestSpec {
        var verb = verb
        var signed = try sign(url: url, verb: verb, parameters: parameters, context: ctx, method: method, placement: placement)
        var query = FormEncoding.serialize(signed.parameters)
        if verb == .get, url.utf8.count + 1 + query.utf8.count > Self.maxGETURLLength {
            verb = .post
            signed = try sign(url: url, verb: verb, parameters: parameters, context: ctx, method: method, placement: placement)
            query = FormEncoding.serialize(signed.parameters)
        }
        var spec = HTTPRequestSpec(method: verb == .get ? .GET : .POST, url: url, headers: signed.headers, body: nil,
                                   timeout: timeout, redactedSummary: "", signedBaseString: signed.baseString)
        if verb == .get {
            spec.url = url + (url.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + query
        } else {
            spec.headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            spec.body = .whole(ByteBuffer(string: query))
        }
        // Only a trace shows it: masking every parameter costs more than the rest of the signing.
        if logger.logLevel <= .trace { spec.redactedSummary = Self.summary(verb: verb, url: url, signed: signed) }
        spec.endpoint = url
        spec.parameters = signed.parameters
        return spec
    }

    static func summary(verb: HTTPVerb, url: String, signed: SignedParameters) -> String {
        "\(verb.rawValue) \(url) \(Redaction.redactForm(signed.parameters))"
            + signed.headers.filter { $0.0 == "Authorization" }.map { " Authorization: \(Redaction.redactAuthorization($0.1))" }.joined()
    }

    /// Attaches the base string we signed to OAuth errors, and keeps secrets out of messages;
    /// the token, an identifier, is shown shortened as in traces (in both base strings alike,
    /// so that they still compare).
    func scrubbed(_ error: FlickrError, signed spec: HTTPRequestSpec) -> FlickrError {
        var e = error
        if e.kind == .oauth { e.signedBaseString = spec.signedBaseString }
        let secrets = credentialValues
        e.message = Redaction.scrub(e.message, secrets: secrets)
        e.bodyExcerpt = e.bodyExcerpt.map { Redaction.scrub($0, secrets: secrets) }
        e.debugSBS = e.debugSBS.map { Redaction.scrub($0, secrets: secrets) }
        e.signedBaseString = e.signedBaseString.map { Redaction.scrub($0, secrets: secrets) }
        return e
    }

    /// The context's secrets and tokens, for ``Redaction/scrub(_:secrets:)`` of free text.
    var credentialValues: [String?] {
        let ctx = context
        return [ctx.sharedSecret, ctx.oauthTokenSecret, ctx.oauthToken, ctx.authToken]
    }

    /// Returns when the rate limiter and the call budget (``pacer``) let one more request go.
    /// Cancelled while waiting: a `cancelled` error. The budget's own failure (its database
    /// cannot be opened): a `usage` error saying why — nothing was sent.
    func waitForTurn(method: String) async throws(FlickrError) {
        do {
            try await limiter.acquire()
            try await pacer?.acquire(apiKey: context.apiKey)
        } catch is CancellationError {
            throw FlickrError(kind: .cancelled, message: "cancelled", method: method)
        } catch {
            throw FlickrError(kind: .usage, message: "call budget: \(error)", method: method)
        }
    }

    /// Runs `attempt` under the rate limiter (API calls; image downloads pass `rateLimited:
    /// false`), retrying per the context's policy.
    func withRetries<T: Sendable>(method: String, isWrite: Bool, rateLimited: Bool = true,
                                  _ attempt: () async throws(FlickrError) -> T) async throws(FlickrError) -> T {
        var number = 0
        while true {
            number += 1
            if rateLimited { try await waitForTurn(method: method) }
            do {
                return try await attempt()
            } catch {
                if rateLimited, error.httpStatus == 429, let pacer {
                    await pacer.backOff(apiKey: context.apiKey, seconds: error.retryAfter ?? 1)
                }
                let policy = context.retryPolicy
                let retryable = !isWrite || error.requestNotSent || error.unreachable || policy.retryWrites || policy.idempotentWrites.contains(method)
                guard error.isTransient, retryable, number < policy.maxAttempts, !Task.isCancelled else { throw error }
                if let after = error.retryAfter, after > policy.maxRetryAfter { throw error }
                // A request that never went out on a pooled connection waits for nothing: the next
                // one takes a new connection. A server that takes no connection is given time.
                let delay = error.requestNotSent && !error.unreachable ? 0 : max(policy.backoff(afterAttempt: number), error.retryAfter ?? 0)
                logger.debug("retrying \(method) in \(FlickrError.format(delay)) s after \(error.kind.rawValue): \(error.message) (attempt \(number + 1)/\(policy.maxAttempts))")
                do {
                    try await Task.sleep(for: .milliseconds(Int64(delay * 1000)))
                } catch {
                    throw FlickrError(kind: .cancelled, message: "cancelled", method: method)
                }
            }
        }
    }
}
