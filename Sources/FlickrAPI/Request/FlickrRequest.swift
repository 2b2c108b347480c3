import FlickrProtocol
import Foundation
import Synchronization

/// The delegate of a ``FlickrRequest`` — ObjectiveFlickr's `OFFlickrAPIRequestDelegate`.
/// Every method is optional.
public protocol FlickrRequestDelegate: AnyObject, Sendable {
    func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode)
    func flickrRequest(_ request: FlickrRequest, didFailWith error: FlickrError)
    func flickrRequest(_ request: FlickrRequest, imageUploadSentBytes sent: Int64, totalBytes: Int64?)
}

extension FlickrRequestDelegate {
    public func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode) {}
    public func flickrRequest(_ request: FlickrRequest, didFailWith error: FlickrError) {}
    public func flickrRequest(_ request: FlickrRequest, imageUploadSentBytes sent: Int64, totalBytes: Int64?) {}
}

/// ObjectiveFlickr's `OFFlickrAPIRequest` for code that prefers callbacks: one request at a
/// time, a delegate, `sessionInfo`, `cancel()`. A thin layer over ``FlickrClient``'s async API.
///
/// Delegate methods are called on `delegateQueue` (a private serial queue by default).
public final class FlickrRequest: Sendable {
    public let client: FlickrClient
    public let delegateQueue: DispatchQueue
    private struct State {
        weak var delegate: (any FlickrRequestDelegate)?
        var sessionInfo: (any Sendable)?
        var task: Task<Void, Never>?
    }
    private let state = Mutex(State())

    public init(client: FlickrClient, delegateQueue: DispatchQueue = DispatchQueue(label: "FlickrRequest")) {
        self.client = client
        self.delegateQueue = delegateQueue
    }

    public var delegate: (any FlickrRequestDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Anything the caller wants to find again in the callbacks.
    public var sessionInfo: (any Sendable)? {
        get { state.withLock { $0.sessionInfo } }
        set { state.withLock { $0.sessionInfo = newValue } }
    }

    /// True while a call or upload runs.
    public var isRunning: Bool { state.withLock { $0.task != nil } }

    /// `callAPIMethodWithGET:arguments:`. Returns false if a request is already running.
    @discardableResult
    public func callAPIMethod(withGET method: String, arguments: [String: String] = [:]) -> Bool {
        start { (c: FlickrClient) async throws(FlickrError) -> FlickrNode in try await c.call(method, arguments, verb: .get) }
    }

    /// `callAPIMethodWithPOST:arguments:`.
    @discardableResult
    public func callAPIMethod(withPOST method: String, arguments: [String: String] = [:]) -> Bool {
        start { (c: FlickrClient) async throws(FlickrError) -> FlickrNode in try await c.call(method, arguments, verb: .post) }
    }

    /// `uploadImageStream:suggestedFilename:MIMEType:arguments:`; completes with the `<rsp>`
    /// map (`photoid` or `ticketid`).
    @discardableResult
    public func uploadImage(_ source: UploadSource, arguments: [String: String] = [:]) -> Bool {
        start { (client: FlickrClient) async throws(FlickrError) -> FlickrNode in
            let result = try await client.upload(source, arguments: arguments, progress: { [weak self] sent, total in
                guard let self else { return }
                self.notify { $0.flickrRequest(self, imageUploadSentBytes: sent, totalBytes: total) }
            })
            var map = FlickrMap()
            map["stat"] = "ok"
            if let id = result.photoID { map["photoid"] = .map([FlickrNode.textKey: .string(id)]) }
            if let id = result.ticketID { map["ticketid"] = .map([FlickrNode.textKey: .string(id)]) }
            return .map(map)
        }
    }

    /// Cancels the running request; the delegate gets a `.cancelled` error.
    public func cancel() {
        state.withLock { $0.task }?.cancel()
    }

    private func start(_ work: @escaping @Sendable (FlickrClient) async throws(FlickrError) -> FlickrNode) -> Bool {
        state.withLock { s -> Bool in
            guard s.task == nil else { return false }
            s.task = Task { [client] in
                let outcome: Result<FlickrNode, FlickrError>
                do throws(FlickrError) {
                    outcome = .success(try await work(client))
                } catch {
                    outcome = .failure(error)
                }
                self.state.withLock { $0.task = nil }
                switch outcome {
                case .success(let rsp): self.notify { $0.flickrRequest(self, didCompleteWith: rsp) }
                case .failure(let error): self.notify { $0.flickrRequest(self, didFailWith: error) }
                }
            }
            return true
        }
    }

    private func notify(_ body: @escaping @Sendable (any FlickrRequestDelegate) -> Void) {
        guard let delegate = self.delegate else { return }
        delegateQueue.async { body(delegate) }
    }
}
