import FlickrProtocol
import Hummingbird

/// Reads a form-posted body (REST calls, the OAuth endpoints) whole, before any fault is drawn,
/// so that the access log names the method of every request that arrived, answered or not.
/// Uploads stream later (``UploadBodyMiddleware``).
struct FormBodyMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext

    /// Largest non-upload body accepted.
    static let maxFormBody = 8 << 20

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, context.route.readsFormBody else { return try await next(request, context) }
        var request = request
        var context = context
        guard let buffer = try? await request.collectBody(upTo: Self.maxFormBody) else {
            return context.answer(.html(413, "<html><body><h1>413 Request Entity Too Large</h1></body></html>\n"))
        }
        context.form = Self.formFields(contentType: request.headers[.contentType] ?? "", bytes: Array(buffer.readableBytesView))
        context.entry.note(context.form.reduce(into: [:]) { $0[$1.0] = $1.1 })
        return try await next(request, context)
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
}
