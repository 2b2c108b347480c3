import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Progress of a download: bytes received so far, and the total when the server said it.
public typealias DownloadProgress = @Sendable (_ received: Int64, _ total: Int64?) -> Void

/// How a download ended.
public struct DownloadOutcome: Sendable, Hashable {
    /// Where the file is.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// True when a file of the same size was already there and nothing was written.
    public var skipped: Bool
    /// HTTP requests made (retries included).
    public var attempts: Int
}

extension FlickrClient {
    /// Downloads an image (or video) from Flickr's image host to `path`.
    ///
    /// The body streams to `path + ".part"` in constant memory and is renamed to `path` only
    /// once every byte the server announced has arrived, so `path` never holds half a file. When
    /// `path` already exists with the size the server announces, nothing is written
    /// (``DownloadOutcome/skipped``). An HTML page in place of the file (an outage page served
    /// with 200) is a failure, never saved. Transient failures (resets, 5xx, 429, a body cut
    /// short, such a page) are retried from the start under the context's retry policy, waiting at least as long as a
    /// `Retry-After` asks; image requests do not count against the API's rate limiter.
    ///
    /// - Throws: ``FlickrError``: `.http` (404 and other statuses, 429 after the last attempt),
    ///   `.network`, `.timeout`, `.parse` (the body was cut short), `.usage` (a bad URL, a path
    ///   that cannot be written), `.cancelled`.
    public func download(from url: String, to path: String,
                         progress: DownloadProgress? = nil) async throws(FlickrError) -> DownloadOutcome {
        try Self.createFolder(of: path)
        var attempts = 0
        var outcome = try await withRetries(method: "download", isWrite: false, rateLimited: false) { () async throws(FlickrError) in
            attempts += 1
            return try await downloadOnce(from: url, to: path, progress: progress)
        }
        outcome.attempts = attempts
        return outcome
    }

    /// Creates the folder `path` goes into when it is missing (as `flickr download --dir`
    /// does), before any request: a folder that cannot be made is a usage error.
    static func createFolder(of path: String) throws(FlickrError) {
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if folder.isEmpty || (FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue) {
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw FlickrError.usage("cannot create the folder \(folder) for \((path as NSString).lastPathComponent): "
                                    + ((error as NSError).localizedFailureReason ?? error.localizedDescription), method: "download")
        }
    }

    /// One GET: skip, stream to the `.part` file and rename, or throw.
    private func downloadOnce(from url: String, to path: String,
                              progress: DownloadProgress?) async throws(FlickrError) -> DownloadOutcome {
        let method = "download"
        let partial = path + ".part"
        if let customTransport { return try await downloadOnce(from: url, to: path, through: customTransport, progress: progress) }
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.replaceOrAdd(name: "User-Agent", value: HTTPTransport.userAgent)
        let timeout = context.uploadTimeout
        logger.trace("→ GET \(url)")
        do {
            try Task.checkCancellation()
            let response = try await transport.client.execute(request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
            let status = Int(response.status.code)
            guard status == 200 else {
                throw FlickrError(kind: .http, message: "HTTP \(status) \(ResponseClassifier.reason(status)) for \(url)",
                                  method: method, httpStatus: status,
                                  retryAfter: ResponseClassifier.parseRetryAfter(response.headers.first(name: "retry-after")),
                                  bodyExcerpt: try await Self.excerpt(of: response))
            }
            // An outage or login page served with 200 in place of the file (Flickr's image host
            // sends image/* and video/* only): never saved under the photo's name; retried.
            if let type = response.headers.first(name: "content-type"), type.lowercased().hasPrefix("text/html") {
                throw FlickrError(kind: .http, message: "\(url) answered an HTML page instead of the file (an outage page?)",
                                  method: method, httpStatus: status, bodyExcerpt: try await Self.excerpt(of: response))
            }
            let total = response.headers.first(name: "content-length").flatMap { Int64($0) }
            if let total, let existing = Self.fileSize(path), existing == total {
                logger.trace("← 200 \(url): \(path) already has \(total) bytes, skipped")
                return DownloadOutcome(path: path, bytes: total, skipped: true, attempts: 1)
            }
            guard FileManager.default.createFile(atPath: partial, contents: nil),
                  let handle = FileHandle(forWritingAtPath: partial) else {
                throw Self.writeFailure(NSError(domain: NSPOSIXErrorDomain, code: Int(errno)), path: partial)
            }
            let received: Int64
            do {
                defer { try? handle.close() }
                progress?(0, total)
                // The head's deadline ends with the head: a body that stops arriving fails once
                // no byte has come for requestTimeout seconds (a total limit would cut off a
                // large video on a slow line).
                let body = response.body
                received = try await HTTPTransport.failingWhenIdle(for: context.requestTimeout, on: transport.client.eventLoopGroup.any()) { touch in
                    var count: Int64 = 0
                    for try await chunk in body {
                        touch()
                        do {
                            try chunk.withUnsafeReadableBytes { try handle.write(contentsOf: Data($0)) }
                        } catch {
                            throw Self.writeFailure(error, path: partial)
                        }
                        count += Int64(chunk.readableBytes)
                        progress?(count, total)
                    }
                    return count
                }
                do { try handle.synchronize() } catch { throw Self.writeFailure(error, path: partial) }
            } catch {
                try? FileManager.default.removeItem(atPath: partial)
                throw error
            }
            if let total, received != total {
                try? FileManager.default.removeItem(atPath: partial)
                throw FlickrError(kind: .parse, message: "the download of \(url) stopped after \(received) of \(total) bytes",
                                  method: method, httpStatus: status)
            }
            guard rename(partial, path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: partial)
                throw FlickrError.usage("cannot rename \(partial) to \(path): \(reason)", method: method)
            }
            logger.trace("← 200 \(url): \(received) bytes to \(path)")
            return DownloadOutcome(path: path, bytes: received, skipped: false, attempts: 1)
        } catch let error as FlickrError {
            throw error
        } catch {
            throw HTTPTransport.map(error, method: method, timeout: timeout)
        }
    }

    /// One GET through a custom transport (``FlickrTransport``): the whole answer at once,
    /// checked as over HTTP, written to the `.part` file and renamed.
    private func downloadOnce(from url: String, to path: String, through custom: any FlickrTransport,
                              progress: DownloadProgress?) async throws(FlickrError) -> DownloadOutcome {
        let method = "download"
        let partial = path + ".part"
        let ctx = context
        logger.trace("→ GET \(url)")
        let request = FlickrTransportRequest(service: method, endpoint: url, timeout: ctx.uploadTimeout,
                                             secrets: [ctx.apiKey, ctx.sharedSecret, ctx.oauthToken ?? "",
                                                       ctx.oauthTokenSecret ?? "", ctx.authToken ?? ""])
        let response = try await custom.send(request)
        let excerpt = ResponseClassifier.excerpt(Array(response.body.prefix(4096)))
        guard response.status == 200 else {
            throw FlickrError(kind: .http, message: "HTTP \(response.status) \(ResponseClassifier.reason(response.status)) for \(url)",
                              method: method, httpStatus: response.status,
                              retryAfter: ResponseClassifier.parseRetryAfter(response.header("retry-after")),
                              bodyExcerpt: excerpt)
        }
        if let type = response.header("content-type"), type.lowercased().hasPrefix("text/html") {
            throw FlickrError(kind: .http, message: "\(url) answered an HTML page instead of the file (an outage page?)",
                              method: method, httpStatus: response.status, bodyExcerpt: excerpt)
        }
        let total = Int64(response.body.count)
        if let existing = Self.fileSize(path), existing == total {
            return DownloadOutcome(path: path, bytes: total, skipped: true, attempts: 1)
        }
        progress?(0, total)
        guard FileManager.default.createFile(atPath: partial, contents: Data(response.body)) else {
            throw FlickrError.usage("cannot write \(partial): \(String(cString: strerror(errno)))", method: method)
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: partial)
            throw FlickrError.usage("cannot rename \(partial) to \(path): \(reason)", method: method)
        }
        progress?(total, total)
        logger.trace("← 200 \(url): \(total) bytes to \(path)")
        return DownloadOutcome(path: path, bytes: total, skipped: false, attempts: 1)
    }

    /// The start of an answer that is not the file, for the error (at most 4 KiB read).
    private static func excerpt(of response: HTTPClientResponse) async throws -> String {
        var head = try await response.body.collect(upTo: 4096)
        return ResponseClassifier.excerpt(head.readBytes(length: head.readableBytes) ?? [])
    }

    /// A failed write of `path` as a usage error a person can act on; a full disk or quota is
    /// marked ``FlickrError/diskFull``.
    static func writeFailure(_ error: any Error, path: String) -> FlickrError {
        let code = SystemErrors.posixCode(error)
        let full = code == ENOSPC || code == EDQUOT
        let reason = full ? "no space left on the disk" : code.map { String(cString: strerror($0)) } ?? error.localizedDescription
        var failure = FlickrError.usage("cannot write \(path): \(reason)", method: "download")
        failure.diskFull = full
        return failure
    }

    /// The size of the regular file at `path`, or nil.
    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
