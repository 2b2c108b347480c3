import FlickrAPI
import Foundation
import Synchronization

/// Answers a client's requests from a cassette, offline: nothing goes to the network, and no
/// credentials are needed (any will do: they are not matched).
///
/// A request is matched on its service (the method), its arguments less the volatile ones
/// (``Cassette/volatileParameters``) whatever their order, and an upload's file size and
/// SHA-256. Requests recorded alike are answered in the order they were recorded. A request
/// the cassette does not have, or has fewer times, throws a ``FlickrAPI/FlickrError`` of kind
/// `usage` that names it and the nearest recorded request, with their differences; each such
/// message is also kept in ``misses`` (a caller can fail a test even when the code under
/// test swallowed the error).
///
/// ```swift
/// import FlickrAPI
/// import FlickrAPITesting
/// import XCTest
///
/// final class TagReportTests: XCTestCase {
///     func testCountsCats() async throws {
///         let replay = try ReplayTransport(path: "Tests/Cassettes/cats.cassette")
///         let flickr = replay.makeClient()
///         let rsp = try await flickr.call("flickr.photos.search", ["tags": "cat", "per_page": "5"])
///         XCTAssertEqual(rsp["photos.photo"]?.array?.count, 5)
///         XCTAssertEqual(replay.misses, [])
///     }
/// }
/// ```
public final class ReplayTransport: FlickrTransport {
    /// The cassette answered from.
    public let cassette: Cassette
    /// Where it was read (for messages).
    public let path: String
    private let byKey: [String: [Int]]
    private let state = Mutex<(used: [String: Int], played: Set<Int>, misses: [String])>(([:], [], []))

    /// Reads the cassette at `path`; throws ``Cassette/FormatError`` for one it cannot read.
    public convenience init(path: String) throws {
        self.init(try Cassette.read(path), path: path)
    }

    /// Answers from `cassette`, already read; `path` names it in messages.
    public init(_ cassette: Cassette, path: String = "the cassette") {
        self.cassette = cassette
        self.path = path
        var keys: [String: [Int]] = [:]
        for (i, exchange) in cassette.exchanges.enumerated() { keys[exchange.request.key, default: []].append(i) }
        byKey = keys
    }

    /// Credentials that stand in for real ones during a replay (no request carries them out).
    public static let placeholderContext = FlickrContext(apiKey: "replay-api-key", sharedSecret: "replay-api-secret",
                                                         oauthToken: "replay-oauth-token",
                                                         oauthTokenSecret: "replay-oauth-token-secret")

    /// A client that replays this cassette: placeholder credentials, the endpoint recorded in
    /// the cassette, no rate limit.
    public func makeClient() -> FlickrClient {
        var context = Self.placeholderContext
        if let endpoint = cassette.endpoint { context.endpoints = Endpoints(baseURL: endpoint) }
        context.ratePolicy = .unlimited
        return FlickrClient(context: context, transport: self)
    }

    /// The messages of requests that were not in the cassette, in order.
    public var misses: [String] { state.withLock { $0.misses } }

    /// Recorded exchanges no request asked for, in recorded order.
    public var unplayed: [Cassette.Exchange] {
        let played = state.withLock { $0.played }
        return cassette.exchanges.indices.filter { !played.contains($0) }.map { cassette.exchanges[$0] }
    }

    /// The recorded answer of the next unplayed exchange that matches `request`.
    /// - Throws: The recorded failure as a ``FlickrAPI/FlickrError``; a `usage` error, also kept in
    ///   ``misses``, when the cassette has no such request left.
    public func send(_ request: FlickrTransportRequest) async throws(FlickrError) -> FlickrTransportResponse {
        let asked = try await Cassette.request(request)
        let key = asked.key
        let recorded = byKey[key] ?? []
        let found: Int? = state.withLock { s in
            let n = s.used[key, default: 0]
            guard n < recorded.count else { return nil }
            s.used[key] = n + 1
            s.played.insert(recorded[n])
            return recorded[n]
        }
        guard let index = found else {
            let message = miss(asked, timesRecorded: recorded.count)
            state.withLock { $0.misses.append(message) }
            throw FlickrError(kind: .usage, message: message, method: request.service)
        }
        switch cassette.exchanges[index].outcome {
        case .answer(let answer):
            return FlickrTransportResponse(status: answer.status, headers: answer.headers.map { ($0.name, $0.value) }, body: answer.body)
        case .failure(let kind, let message, let unreachable, let notSent):
            var error = FlickrError(kind: FlickrError.Kind(rawValue: kind) ?? .network, message: message, method: request.service)
            error.unreachable = unreachable
            error.requestNotSent = notSent
            throw error
        }
    }

    /// The message for a request not in the cassette: it, and the nearest recorded request
    /// with what differs.
    func miss(_ asked: Cassette.Request, timesRecorded: Int) -> String {
        if timesRecorded > 0 {
            return "replay: \(asked) was recorded \(timesRecorded) time\(timesRecorded == 1 ? "" : "s") in \(path), "
                + "and this is request \(timesRecorded + 1) of it"
        }
        var head = "replay: \(path) has no request \(asked)"
        guard let (index, nearest) = Self.nearest(to: asked, in: cassette) else { return head + " (it records none)" }
        head += "; the nearest recorded is #\(index + 1) \(nearest)"
        let differences = Self.differences(asked, nearest)
        return differences.isEmpty ? head : head + " (" + differences.joined(separator: "; ") + ")"
    }

    /// The recorded request closest to `asked`: the same service with the fewest differing
    /// arguments, else the service with the closest name; the first recorded on a tie.
    public static func nearest(to asked: Cassette.Request, in cassette: Cassette) -> (Int, Cassette.Request)? {
        var best: (score: Int, index: Int)?
        var seen = Set<String>()
        for (i, exchange) in cassette.exchanges.enumerated() where seen.insert(exchange.request.key).inserted {
            let r = exchange.request
            let score = r.service == asked.service
                ? differences(asked, r).count
                : 1000 + editDistance(r.service, asked.service) * 10 + differences(asked, r).count
            if best == nil || score < best!.score { best = (score, i) }
        }
        return best.map { ($0.index, cassette.exchanges[$0.index].request) }
    }

    /// What differs between two requests, one phrase each: `tags is "cat" here, "dog" recorded`.
    public static func differences(_ asked: Cassette.Request, _ recorded: Cassette.Request) -> [String] {
        var out: [String] = []
        if asked.service != recorded.service { out.append("the method is \(asked.service) here, \(recorded.service) recorded") }
        let a = Dictionary(grouping: asked.arguments, by: \.name).mapValues { $0.map(\.value) }
        let b = Dictionary(grouping: recorded.arguments, by: \.name).mapValues { $0.map(\.value) }
        for name in Set(a.keys).union(b.keys).sorted() {
            switch (a[name], b[name]) {
            case (let x?, nil): out.append("\(name)=\(show(x)) here, not recorded")
            case (nil, let y?): out.append("\(name) recorded as \(show(y)), not here")
            case (let x?, let y?) where x != y: out.append("\(name) is \(show(x)) here, \(show(y)) recorded")
            default: break
            }
        }
        switch (asked.file, recorded.file) {
        case (let x?, let y?) where x.size != y.size || x.sha256 != y.sha256:
            out.append("the file is \(x.filename) (\(x.size) bytes, sha256 \(x.sha256.prefix(12))…) here, "
                       + "\(y.filename) (\(y.size) bytes, sha256 \(y.sha256.prefix(12))…) recorded")
        case (let x?, nil): out.append("a file (\(x.filename)) here, none recorded")
        case (nil, let y?): out.append("no file here, \(y.filename) recorded")
        default: break
        }
        return out
    }

    static func show(_ values: [String]) -> String {
        values.map { "\"" + (Cassette.shortQuoted($0).hasPrefix("\"") ? String(Cassette.shortQuoted($0).dropFirst().dropLast()) : Cassette.shortQuoted($0)) + "\"" }
            .joined(separator: ", ")
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
