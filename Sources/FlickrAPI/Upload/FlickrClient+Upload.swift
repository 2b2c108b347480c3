import AsyncHTTPClient
import FlickrProtocol
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import _NIOFileSystem

/// What an upload or replace answered.
public struct UploadResult: Sendable, Hashable {
    /// The photo id (synchronous uploads).
    public var photoID: String?
    /// The ticket id (`async=1`); poll it with ``FlickrClient/waitForTickets(_:pollInterval:timeout:)``.
    public var ticketID: String?
    /// The photo's new secret, when Flickr says it (replace does).
    public var secret: String?
    /// The original's new secret, when Flickr says it (replace does).
    public var originalSecret: String?
}

/// One ticket of `flickr.photos.upload.checkTickets`.
public struct UploadTicket: Sendable, Hashable {
    /// Where Flickr is with the ticket's file.
    public enum Status: Sendable, Hashable {
        /// Flickr is still processing the file (`complete="0"`).
        case pending
        /// The photo exists (`complete="1"`); ``UploadTicket/photoID`` names it.
        case complete
        /// Flickr could not process the file (`complete="2"`).
        case failed
        /// Flickr does not know the ticket (`invalid="1"`), or left it out of its answer.
        case invalid
    }

    /// The ticket id an `async=1` upload returned.
    public var id: String
    /// Whether the file is processed, failed, or still pending.
    public var status: Status
    /// Set when `status == .complete`.
    public var photoID: String?
}

/// Progress of an upload: the file's bytes handed to the network so far, and the file's size
/// when known (the form fields around the file are not counted, so `sent` ends at `total`).
public typealias UploadProgress = @Sendable (_ sent: Int64, _ total: Int64?) -> Void

extension FlickrClient {
    /// Uploads a photo or video (`up.flickr.com/services/upload/`), streaming the body in
    /// constant memory. Every field but `photo` is signed.
    ///
    /// - Parameters:
    ///   - source: the file, bytes or stream to send (`.file("cat.jpg")`).
    ///   - arguments: `title`, `description`, `tags` (a tag string; see `TagString/join(_:)`),
    ///     `is_public`, `is_friend`, `is_family`, `safety_level`, `content_type`, `hidden`, `dedup_check`…
    ///   - async: ask for a ticket instead of waiting for Flickr to process the file.
    ///   - progress: called with the file's bytes sent so far and its size (nil for a stream of
    ///     unknown length) as the body goes out: `(0, size)` first, `(size, size)` last.
    /// - Throws: ``FlickrError``; a duplicate (code 9) carries ``FlickrError/duplicatePhotoID``.
    public func upload(_ source: UploadSource, arguments: [String: String] = [:], async: Bool = false,
                       progress: UploadProgress? = nil) async throws(FlickrError) -> UploadResult {
        var fields = arguments.sorted { $0.key < $1.key }.filter { $0.key != "photo" && $0.key != "async" }
        if async { fields.append(("async", "1")) }
        return try await send(source, to: context.endpoints.upload, service: "upload", fields: fields, progress: progress)
    }

    /// Replaces the file of `photoID` (`services/replace/`), keeping its metadata.
    public func replace(photoID: String, with source: UploadSource, async: Bool = false,
                        progress: UploadProgress? = nil) async throws(FlickrError) -> UploadResult {
        var fields: [(String, String)] = [("photo_id", photoID)]
        if async { fields.append(("async", "1")) }
        return try await send(source, to: context.endpoints.replace, service: "replace", fields: fields, progress: progress)
    }

    /// `flickr.photos.upload.checkTickets` for `ids`.
    public func checkTickets(_ ids: [String]) async throws(FlickrError) -> [UploadTicket] {
        let rsp = try await call("flickr.photos.upload.checkTickets", ["tickets": ids.joined(separator: ",")])
        return (rsp["uploader.ticket"]?.array ?? []).compactMap { t in
            guard let id = t["id"]?.string else { return nil }
            let status: UploadTicket.Status
            if t["invalid"]?.string == "1" { status = .invalid }
            else {
                switch t["complete"]?.string {
                case "1": status = .complete
                case "2": status = .failed
                default: status = .pending
                }
            }
            return UploadTicket(id: id, status: status, photoID: t["photoid"]?.string)
        }
    }

    /// Polls `checkTickets` until no ticket is pending; returns them in the order given.
    /// - Throws: `.timeout` when tickets are still pending after `timeout` seconds.
    public func waitForTickets(_ ids: [String], pollInterval: Double = 1,
                               timeout: Double = 600) async throws(FlickrError) -> [UploadTicket] {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while true {
            let tickets = try await checkTickets(ids)
            if !tickets.contains(where: { $0.status == .pending }) {
                let byID = Dictionary(tickets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                return ids.map { byID[$0] ?? UploadTicket(id: $0, status: .invalid, photoID: nil) }
            }
            guard ContinuousClock.now + .milliseconds(Int64(pollInterval * 1000)) < deadline else {
                throw FlickrError(kind: .timeout, message: "upload tickets still pending after \(FlickrError.format(timeout)) s",
                                  method: "flickr.photos.upload.checkTickets")
            }
            do {
                try await Task.sleep(for: .milliseconds(Int64(pollInterval * 1000)))
            } catch {
                throw FlickrError(kind: .cancelled, message: "cancelled", method: "flickr.photos.upload.checkTickets")
            }
        }
    }

    // MARK: - Sending

    /// The part's type: the one the bytes show; where they show only ISO media (`video/mp4`)
    /// a more precise name from the extension of the same family (`.m4v`, `.mov`) is kept.
    static func partType(_ sniffed: String, filename: String) -> String {
        guard sniffed == "video/mp4", let named = MIMEType.forFilename(filename), named.hasPrefix("video/") else { return sniffed }
        return named
    }

    /// Checks the file (a regular file whose first bytes are a photo or video Flickr takes) and
    /// the tags, then sends it. A refusal costs no
    /// request and no slot of the rate limiter or the shared budget: those are taken in `post`.
    private func send(_ source: UploadSource, to url: String, service: String, fields: [(String, String)],
                      progress: UploadProgress?) async throws(FlickrError) -> UploadResult {
        if let tags = fields.last(where: { $0.0 == "tags" })?.1 { try Self.checkTags(tags, method: service) }
        switch source.kind {
        case .stream(let makeIterator, let length):
            // The first chunk is read before anything is sent, to check what it is, then sent first.
            let iterator = makeIterator()
            let first: [UInt8]?
            do { first = try await iterator.next() } catch {
                throw FlickrError(kind: .usage, message: "cannot read \(source.filename): \(error)", method: service)
            }
            let head = Array((first ?? []).prefix(MIMEType.headLength))
            guard let sniffed = MIMEType.sniff(head) else { throw MIMEType.notMedia(source.filename, head: head, service: service) }
            let mime = source.mimeType ?? Self.partType(sniffed, filename: source.filename)
            if let length, let refusal = UploadLimits.refusal(size: length, mime: sniffed) {
                throw FlickrError.usage("cannot upload \(source.filename): \(refusal); nothing was sent", method: service)
            }
            let peeked = Mutex<(ChunkIterator, [UInt8]?)?>((iterator, first))
            let content: @Sendable () -> MultipartBody.ContentIterator = {
                // The iterator that was peeked at serves the first send; a later one starts afresh.
                guard let (it, chunk) = peeked.withLock({ p in defer { p = nil }; return p }) else {
                    let it = makeIterator()
                    return MultipartBody.ContentIterator { try await it.next().map { ByteBuffer(bytes: $0) } }
                }
                let pending = Mutex<[UInt8]?>(chunk)
                return MultipartBody.ContentIterator {
                    if let c = pending.withLock({ p in defer { p = nil }; return p }) { return ByteBuffer(bytes: c) }
                    return try await it.next().map { ByteBuffer(bytes: $0) }
                }
            }
            return try await post(url: url, service: service, fields: fields, filename: source.filename, mime: mime,
                                  length: length, content: content, progress: progress)
        case .file(let path):
            do {
                return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                    let info = try await handle.info()
                    guard info.type == .regular else {
                        throw FlickrError.usage("cannot upload \(path): \(info.type == .directory ? "a directory" : "not a regular file")"
                                                + "; nothing was sent", method: service)
                    }
                    let size = info.size
                    var start = try await handle.readChunk(fromAbsoluteOffset: 0, length: .bytes(Int64(MIMEType.headLength)))
                    let head = start.readBytes(length: start.readableBytes) ?? []
                    guard let sniffed = MIMEType.sniff(head) else { throw MIMEType.notMedia(path, head: head, service: service) }
                    let mime = source.mimeType ?? Self.partType(sniffed, filename: source.filename)
                    if let refusal = UploadLimits.refusal(size: size, mime: sniffed) {
                        throw FlickrError.usage("cannot upload \(path): \(refusal); nothing was sent", method: service)
                    }
                    let chunk = Self.progressChunkLength(fileSize: size)
                    let content: @Sendable () -> MultipartBody.ContentIterator = {
                        // From offset 0 each time (positioned reads): a recorder reads the file
                        // once before it is sent.
                        let box = FileChunkBox(handle.readChunks(in: 0..<size, chunkLength: .bytes(chunk)).makeAsyncIterator())
                        return MultipartBody.ContentIterator { try await box.next() }
                    }
                    return try await self.post(url: url, service: service, fields: fields, filename: source.filename,
                                               mime: mime, length: size,
                                               content: content, progress: progress)
                }
            } catch let error as FlickrError {
                throw error
            } catch let error as FileSystemError {
                throw FlickrError(kind: .usage, message: "cannot read \(path): \(error.message)", method: service)
            } catch {
                throw FlickrError(kind: .usage, message: "cannot read \(path): \(error)", method: service)
            }
        }
    }

    /// Bytes per chunk read from a file: small enough that progress is reported at least every
    /// 1 % of the file or every 256 KiB, whichever comes first (and at least 1 KiB).
    static func progressChunkLength(fileSize: Int64) -> Int64 {
        max(1024, min(256 * 1024, fileSize / 100))
    }

    private func post(url: String, service: String, fields: [(String, String)], filename: String, mime: String,
                      length: Int64?, content: @escaping @Sendable () -> MultipartBody.ContentIterator,
                      progress: UploadProgress?) async throws(FlickrError) -> UploadResult {
        try await waitForTurn(method: service)
        let ctx = context
        guard ctx.hasOAuthToken || ctx.authToken != nil else {
            throw FlickrError.missingCredentials("OAuth token with write permission", method: service)
        }
        // Every field but `photo` is signed, exactly as for a urlencoded POST; the signed pairs
        // (OAuth ones included, unless they travel in the header) become form fields.
        let signed = try sign(url: url, verb: .post, parameters: fields, context: ctx, method: service)
        let body = MultipartBody(fields: signed.parameters, filename: filename, mimeType: mime, contentLength: length,
                                 content: content, progress: progress)
        var request = HTTPRequestSpec(method: .POST, url: url, headers: signed.headers + [("Content-Type", body.contentType)],
                                      body: .streamed(.stream(body, length: body.totalLength.map { .known($0) } ?? .unknown)),
                                      timeout: ctx.uploadTimeout, redactedSummary: "", signedBaseString: signed.baseString)
        request.endpoint = url
        request.parameters = signed.parameters
        request.file = FlickrTransportFile(filename: filename, mimeType: mime, length: length, open: content)
        request.redactedSummary = Self.summary(verb: .post, url: url, signed: signed)
            + " photo=\(filename) (\(mime), \(length.map(String.init) ?? "?") bytes)"
        let rsp = try await execute(request, method: service)
        return UploadResult(photoID: rsp["photoid"]?.text, ticketID: rsp["ticketid"]?.text,
                            secret: rsp["photoid.secret"]?.string, originalSecret: rsp["photoid.originalsecret"]?.string)
    }
}

/// Holds a file chunk iterator for the one task that drains it.
final class FileChunkBox: @unchecked Sendable {
    private var iterator: FileChunks.AsyncIterator
    init(_ iterator: FileChunks.AsyncIterator) { self.iterator = iterator }
    func next() async throws -> ByteBuffer? { try await iterator.next() }
}
