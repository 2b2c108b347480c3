import FlickrAPI
import Foundation
import Synchronization

/// Records every exchange of a client to a cassette file while passing it on to another
/// transport (by default the network): give it to ``FlickrAPI/FlickrClient`` as its transport.
///
/// Each exchange is appended to the file as soon as its answer (or failure) arrives, so the
/// file is complete whenever the process stops. Nothing secret is written (``Cassette``).
///
/// ```swift
/// let recorder = try RecordingTransport(path: "Tests/Cassettes/tags.cassette", endpoint: nil)
/// let flickr = FlickrClient(context: context, transport: recorder)
/// _ = try await flickr.call("flickr.photos.search", ["tags": "cat"])
/// ```
public final class RecordingTransport: FlickrTransport {
    /// Where the cassette is written.
    public let path: String
    private let inner: any FlickrTransport
    private let state: Mutex<(handle: FileHandle, count: Int)>

    /// Starts the cassette at `path` (replacing any file there). `endpoint` is the base URL of
    /// the client's endpoints, written in the cassette for the replay (nil for Flickr's own).
    public init(path: String, endpoint: String?, through inner: any FlickrTransport = FlickrNetworkTransport()) throws {
        self.path = path
        self.inner = inner
        guard FileManager.default.createFile(atPath: path, contents: Data(Cassette.header(endpoint: endpoint).utf8)),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw Cassette.FormatError(path: path, line: 0, message: "cannot write the cassette: \(String(cString: strerror(errno)))")
        }
        handle.seekToEndOfFile()
        state = Mutex((handle, 0))
    }

    /// Names the endpoint in the cassette after all, when it was not known at ``init(path:endpoint:through:)``
    /// (nil: Flickr's own). Only before the first exchange: later it does nothing.
    public func setEndpoint(_ endpoint: String?) {
        state.withLock { s in
            guard s.count == 0 else { return }
            s.handle.truncateFile(atOffset: 0)
            s.handle.write(Data(Cassette.header(endpoint: endpoint).utf8))
        }
    }

    /// How many exchanges were written.
    public var count: Int { state.withLock { $0.count } }

    /// Sends `request` through the inner transport and appends the exchange — the answer, or the
    /// error it throws — to the cassette before handing it back.
    public func send(_ request: FlickrTransportRequest) async throws(FlickrError) -> FlickrTransportResponse {
        let recorded = try await Cassette.request(request)
        do {
            let response = try await inner.send(request)
            append(Cassette.Exchange(request: recorded,
                                     outcome: .answer(Cassette.answer(response, service: request.service, secrets: request.secrets))))
            return response
        } catch {
            append(Cassette.Exchange(request: recorded,
                                     outcome: .failure(kind: error.kind.rawValue,
                                                       message: Cassette.scrub(error.message, secrets: request.secrets),
                                                       unreachable: error.unreachable, requestNotSent: error.requestNotSent)))
            throw error
        }
    }

    private func append(_ exchange: Cassette.Exchange) {
        state.withLock { s in
            s.count += 1
            s.handle.write(Data(exchange.block(number: s.count).utf8))
        }
    }

    deinit {
        state.withLock { s in try? s.handle.close() }
    }
}
