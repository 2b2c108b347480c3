import FlickrProtocol
import Foundation
import Synchronization

/// The delegate of a ``FlickrRequest`` — ObjectiveFlickr's `OFFlickrAPIRequestDelegate`.
/// Every method is optional.
///
/// The protocol is isolated to the main actor: an app's view controller or view model conforms
/// as it is written, and every callback arrives on the main actor, in the order the events
/// happened (progress before completion).
///
/// ```swift
/// @MainActor final class PhotoViewController: FlickrRequestDelegate {
///     func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode) { … }
/// }
/// ```
@MainActor
public protocol FlickrRequestDelegate: AnyObject, Sendable {
    /// The request answered `stat="ok"`: `response` is the answer's `<rsp>` (for an upload,
    /// its `photoid` or `ticketid`).
    func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode)
    /// The request failed (a `.cancelled` error after ``FlickrRequest/cancel()``).
    func flickrRequest(_ request: FlickrRequest, didFailWith error: FlickrError)
    /// An upload's progress: the file's bytes sent so far of `totalBytes`, its size (nil when unknown).
    func flickrRequest(_ request: FlickrRequest, imageUploadSentBytes sent: Int64, totalBytes: Int64?)
}

extension FlickrRequestDelegate {
    /// Does nothing.
    public func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode) {}
    /// Does nothing.
    public func flickrRequest(_ request: FlickrRequest, didFailWith error: FlickrError) {}
    /// Does nothing.
    public func flickrRequest(_ request: FlickrRequest, imageUploadSentBytes sent: Int64, totalBytes: Int64?) {}
}

/// ObjectiveFlickr's `OFFlickrAPIRequest` for code that prefers callbacks: one request at a
/// time, a delegate, `sessionInfo`, `cancel()`. A thin layer over ``FlickrClient``'s async API.
///
/// Delegate methods are called on the main actor, in order.
public final class FlickrRequest: Sendable {
    /// The client the request calls through.
    public let client: FlickrClient
    private struct State {
        weak var delegate: (any FlickrRequestDelegate)?
        var sessionInfo: (any Sendable)?
        var task: Task<Void, Never>?
        /// Callbacks not yet delivered, oldest first (see ``notify(_:)``).
        var pending: [@MainActor @Sendable (any FlickrRequestDelegate) -> Void] = []
    }
    private let state = Mutex(State())

    /// A request that calls through `client`.
    public init(client: FlickrClient) {
        self.client = client
    }

    /// Told how the request ends; held weakly, as ObjectiveFlickr held it.
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

    /// Delivers a callback on the main actor. Each event is queued here in the order it
    /// happened and each main-actor task delivers whatever is queued, oldest first: however
    /// the tasks are scheduled, the delegate sees progress before completion.
    private func notify(_ body: @escaping @MainActor @Sendable (any FlickrRequestDelegate) -> Void) {
        state.withLock { $0.pending.append(body) }
        Task { @MainActor in
            // The delegate as it is at delivery (it may have gone or changed since the event).
            while let next = self.state.withLock({ s in s.pending.isEmpty ? nil : s.pending.removeFirst() }) {
                if let delegate = self.delegate { next(delegate) }
            }
        }
    }
}
