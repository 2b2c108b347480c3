import Crypto
import FlickrAPI
import Foundation

/// Making a cassette from the client's requests and answers: what is recorded, and every
/// secret left out.
extension Cassette {
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
