import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

extension SandboxReply {
    /// The reply's header fields.
    var httpFields: HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
        }
        return fields
    }

    /// The reply as a Hummingbird response: the body, or the file streamed in chunks.
    var response: Response {
        var fields = httpFields
        let status = HTTPResponse.Status(code: status)
        if let file {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            fields[.contentLength] = String(size)
            return Response(status: status, headers: fields, body: ResponseBody(contentLength: size) { writer in
                try await Self.streamFile(file, to: &writer)
            })
        }
        fields[.contentLength] = String(body.count)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
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
