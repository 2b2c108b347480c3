import FlickrProtocol
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// The per-request context: Hummingbird's core storage plus the connection, which fault
/// injection needs to reset or cut a response short.
struct SandboxRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Thrown after a connection was deliberately dropped (the `reset` and `truncate` faults).
struct ConnectionDropped: Error {}

/// Routes Flickr's paths to the engine and applies latency, the rate limit and faults.
struct SandboxResponder: HTTPResponder {
    typealias Context = SandboxRequestContext
    let engine: SandboxEngine
    /// `--log FILE`, when given.
    var log: AccessLog? = nil

    /// Largest non-upload body accepted.
    static let maxFormBody = 8 << 20

    enum Route {
        case rest, upload, replace, requestToken, authorize, accessToken, legacyLogin, image, index, unknown
    }

    static func route(_ path: String) -> Route {
        var p = path
        if p.count > 1, p.hasSuffix("/") { p.removeLast() }
        switch p {
        case "/services/rest": return .rest
        case "/services/upload": return .upload
        case "/services/replace": return .replace
        case "/services/oauth/request_token": return .requestToken
        case "/services/oauth/authorize": return .authorize
        case "/services/oauth/access_token": return .accessToken
        case "/services/auth": return .legacyLogin
        case "/": return .index
        default: return p.hasPrefix("/static/") ? .image : .unknown
        }
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let entry = AccessLog.Entry()
        entry.http = request.method.rawValue
        engine.controls.requestStarted()
        defer { engine.controls.requestEnded() }
        do {
            let response = try await respond(to: request, context: context, noting: entry)
            if entry.status == nil { entry.status = Int(response.status.code) }
            log?.append(entry)
            return response
        } catch {
            entry.status = nil  // dropped on purpose (a fault) or failed: no answer was sent
            log?.append(entry)
            throw error
        }
    }

    /// Answers one request; what it learns on the way goes into `entry` (for the access log).
    private func respond(to request: Request, context: Context, noting entry: AccessLog.Entry) async throws -> Response {
        var request = request
        let target = request.head.path ?? "/"
        let path: String
        let queryString: String
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            queryString = String(target[target.index(after: q)...])
        } else {
            path = target
            queryString = ""
        }
        let route = Self.route(path)
        entry.path = path
        entry.note(FormEncoding.parse(queryString).reduce(into: [:]) { $0[$1.0] = $1.1 })
        // A form-posted call is read before any fault is drawn, so that the access log names
        // the method of every request that arrived, answered or not.
        var formBody: [(String, String)]?
        let contentType = request.headers[.contentType] ?? ""
        if request.method == .post, route != .upload, route != .replace, route != .image {
            guard let buffer = try? await request.collectBody(upTo: Self.maxFormBody) else {
                return entry.answer(.html(413, "<html><body><h1>413 Request Entity Too Large</h1></body></html>\n"))
            }
            let fields = Self.formFields(contentType: contentType, bytes: Array(buffer.readableBytesView))
            formBody = fields
            entry.note(fields.reduce(into: [:]) { $0[$1.0] = $1.1 })
        }
        let latency = engine.controls.latencyMilliseconds
        if latency > 0 { try? await Task.sleep(for: .milliseconds(latency)) }

        var truncate = false
        var stall = false
        var apiFault: FaultKind?
        let api = route == .rest || route == .upload || route == .replace
        // The OAuth token endpoints fail like the API (Flickr's do too), short of API errors.
        let tokens = route == .requestToken || route == .accessToken
        if api || tokens || route == .image {
            if api { guard engine.controls.admit() else { return entry.answer(Self.tooManyRequests()) } }
            let drawn = api || tokens ? engine.controls.drawFault() : engine.controls.drawImageFault()
            switch drawn {
            case .reset?:
                entry.status = nil
                log?.append(entry)  // before the reset: whoever sees it finds its line
                await Self.reset(context.channel)
                throw ConnectionDropped()
            case .serverError?:
                return entry.answer(Self.serverError(Bool.random() ? 502 : 503))
            case .tooManyRequests?:
                return entry.answer(Self.tooManyRequests())
            case .html?:
                return entry.answer(.html(200, Self.maintenancePage))
            case .truncate?:
                truncate = true
            case .stall?:
                stall = true
            case .unavailable?, .writeFailed?:
                // Flickr's own error answers, on REST calls only (decided once the method is known).
                if route == .rest { apiFault = drawn }
            case nil:
                break
            }
        }

        let host = request.head.authority ?? "127.0.0.1"
        let authorization = request.headers[.authorization].flatMap { header -> [(String, String)]? in
            header.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("oauth ")
                ? OAuthParameters.parseAuthorizationHeader(header) : nil
        }
        var sandboxRequest = SandboxRequest(verb: request.method.rawValue, path: path, host: host,
                                            query: FormEncoding.parse(queryString), authorization: authorization, body: [])
        let reply: SandboxReply
        switch route {
        case .upload, .replace:
            do {
                let upload = try await engine.receiveUpload(contentType: contentType, body: request.body)
                sandboxRequest.body = upload.fields
                if let refusal = overBudget(sandboxRequest) {
                    if let file = upload.file { try? FileManager.default.removeItem(at: file) }
                    entry.note(sandboxRequest.parameters)
                    return entry.answer(refusal)
                }
                reply = engine.completeUpload(sandboxRequest, upload: upload, replace: route == .replace)
            } catch let error as MultipartError {
                reply = ResponseFormat.xml.render(APIFailure(3, "General upload failure: \(error.message)"))
            }
        case .image:
            reply = engine.handleStatic(path: path)
        case .index:
            reply = .html(200, engine.page(title: "Flickr Sandbox", body: "<p>A Flickr emulator. REST at <code>/services/rest/</code>.</p>"))
        case .unknown:
            reply = .notFound()
        default:
            if let formBody { sandboxRequest.body = formBody }
            switch route {
            case .rest:
                if let refusal = overBudget(sandboxRequest) {
                    entry.note(sandboxRequest.parameters)
                    return entry.answer(refusal)
                }
                if let failure = apiFault.flatMap({ Self.apiFailure($0, for: sandboxRequest) }) {
                    reply = ResponseFormat(sandboxRequest.parameters).orXML.render(failure)
                } else {
                    reply = engine.handleREST(sandboxRequest)
                }
            case .requestToken: reply = engine.handleRequestToken(sandboxRequest)
            case .authorize: reply = engine.handleAuthorize(sandboxRequest)
            case .accessToken: reply = engine.handleAccessToken(sandboxRequest)
            default: reply = engine.handleLegacyLogin(sandboxRequest)
            }
        }
        entry.note(sandboxRequest.parameters)
        entry.note(reply)
        if truncate || stall { return Self.truncated(reply, channel: context.channel, stall: stall) }
        return Self.response(reply)
    }

    /// Fields of a urlencoded body, or every field of a small multipart body (flickr-sdk posts
    /// REST calls as multipart forms; all their fields are signed).
    static func formFields(contentType: String, bytes: [UInt8]) -> [(String, String)] {
        if contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            return FormEncoding.parse(String(decoding: bytes, as: UTF8.self))
        }
        guard let boundary = MultipartStreamParser.boundary(fromContentType: contentType) else { return [] }
        var parser = MultipartStreamParser(boundary: boundary)
        var fields: [(String, String)] = []
        var name: String?
        var value: [UInt8] = []
        try? bytes.withUnsafeBytes { raw in
            try parser.feed(raw) { event in
                switch event {
                case .begin(let head):
                    name = head.name
                    value = []
                case .data(let d): value += d
                case .end:
                    if let name { fields.append((name, String(decoding: value, as: UTF8.self))) }
                }
            }
        }
        return fields
    }

    /// The 429 of a spent per-key budget, or nil when the call is admitted (and counted).
    /// Calls that name no key are not counted: authentication refuses them anyway.
    func overBudget(_ request: SandboxRequest) -> SandboxReply? {
        let params = request.parameters
        guard let key = params["oauth_consumer_key"] ?? params["api_key"],
              let wait = engine.controls.admitBudget(apiKey: key) else { return nil }
        return Self.tooManyRequests(retryAfter: max(1, Int(wait.rounded(.up))))
    }

    // MARK: Faults

    static let maintenancePage = """
        <!DOCTYPE html>
        <html><head><title>Flickr: Site temporarily unavailable</title></head>
        <body><h1>Flickr will be back soon</h1><p>We're doing some maintenance. Please try again in a few minutes.</p></body></html>

        """

    /// The API error of a drawn 105/106 fault for this call, or nil when it does not apply
    /// (106 only fails writes, as on Flickr; the write then does not happen).
    static func apiFailure(_ kind: FaultKind, for request: SandboxRequest) -> APIFailure? {
        switch kind {
        case .unavailable: return APIFailure(105, "Service currently unavailable")
        case .writeFailed:
            guard let name = request.parameters["method"], let method = MethodCatalog.shared.method(name),
                  method.perms >= .write else { return nil }
            return APIFailure(106, "Write operation failed")
        default: return nil
        }
    }

    /// Flickr's 429: a small HTML page and `Retry-After` in whole seconds.
    static func tooManyRequests(retryAfter: Int = 1) -> SandboxReply {
        .html(429, "<html><body><h1>429 Too Many Requests</h1>\nYou have sent too many requests in a given amount of time.\n</body></html>",
              headers: [("Retry-After", String(retryAfter))])
    }

    static func serverError(_ status: Int) -> SandboxReply {
        .html(status, """
            <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">
            <html><head><title>Flickr</title></head>
            <body><!-- status code : \(status) -->
            <h1>Will be right back...</h1>
            <p>Thank you for your patience. Our engineers are working quickly to resolve the issue.</p>
            </body></html>

            """)
    }

    /// Closes the connection with an RST (SO_LINGER 0) and no response.
    static func reset(_ channel: any Channel) async {
        if let provider = channel as? SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    // MARK: Writing

    static func response(_ reply: SandboxReply) -> Response {
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
        }
        let status = HTTPResponse.Status(code: reply.status)
        if let file = reply.file {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            fields[.contentLength] = String(size)
            return Response(status: status, headers: fields, body: ResponseBody(contentLength: size) { writer in
                try await Self.streamFile(file, to: &writer)
            })
        }
        fields[.contentLength] = String(reply.body.count)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    /// A 200 that declares the whole body but sends only the first half, then closes.
    static func truncated(_ reply: SandboxReply, channel: any Channel, stall: Bool = false) -> Response {
        if let file = reply.file { return truncated(file: file, headers: reply.headers, channel: channel, stall: stall) }
        var full = reply.body
        if full.count < 2 { full = Array("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n</rsp>\n".utf8) }
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
        }
        fields[.contentLength] = String(full.count)
        fields[.connection] = "close"
        let half = Array(full[..<(full.count / 2)])
        return Response(status: .ok, headers: fields, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(bytes: half))
            if stall { await holdOpen(channel) }
            try? await Task.sleep(for: .milliseconds(5))
            try? await channel.close()
            throw ConnectionDropped()
        })
    }

    /// The `stall` fault: nothing more is sent while the client keeps the connection, for at
    /// most two minutes (the client's deadline is what ends it).
    static func holdOpen(_ channel: any Channel) async {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(120)
        while channel.isActive, clock.now < end {
            do { try await Task.sleep(for: .milliseconds(50)) } catch { return }
        }
    }

    /// A file reply cut in half: the whole length declared, half the bytes sent, then closed.
    static func truncated(file: URL, headers: [(String, String)], channel: any Channel, stall: Bool = false) -> Response {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        var fields = HTTPFields()
        for (name, value) in headers {
            if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
        }
        fields[.contentLength] = String(size)
        fields[.connection] = "close"
        return Response(status: .ok, headers: fields, body: ResponseBody { writer in
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let half = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: size / 2) ?? Data() }
            try await writer.write(ByteBuffer(bytes: half))
            if stall { await holdOpen(channel) }
            try? await Task.sleep(for: .milliseconds(5))
            try? await channel.close()
            throw ConnectionDropped()
        })
    }

    static func streamFile(_ url: URL, to writer: inout any ResponseBodyWriter) async throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        while true {
            let chunk = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: 256 * 1024) ?? Data() }
            if chunk.isEmpty { break }
            try await writer.write(ByteBuffer(bytes: chunk))
        }
        try await writer.finish(nil)
    }
}

extension AccessLog.Entry {
    /// Notes an answer made before the request was read (a fault, the rate limit) and makes it.
    func answer(_ reply: SandboxReply) -> Response {
        note(reply)
        return SandboxResponder.response(reply)
    }
}
