import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback proxy for crash tests that loses one answer on purpose: it passes bytes both ways
/// between a client and a server until the server answers the `occurrence`-th request that
/// contains `marker` (a method name, as a Flickr request carries it in its query or form body);
/// then it calls `onAnswer` (which kills the client) and drops that answer. The write happened
/// on the server; the client never heard of it — exactly, not by chance.
///
/// Plain blocking sockets on threads: the proxy must see each answer before the client does,
/// and a test has few connections.
public final class AnswerLosingProxy: @unchecked Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let upstream: Int
    private let marker: [UInt8]
    private let occurrence: Int
    private let onAnswer: @Sendable () -> Void
    private let listener: Int32
    private let lock = NSLock()
    private var seen = 0
    private var stopped = false
    private var lost = false

    /// Listens on a free loopback port, forwarding to 127.0.0.1:`upstreamPort`.
    public init(upstreamPort: Int, marker: String, occurrence: Int = 1, onAnswer: @escaping @Sendable () -> Void) throws {
        (upstream, self.marker, self.occurrence, self.onAnswer) = (upstreamPort, Array(marker.utf8), occurrence, onAnswer)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard listener >= 0, bound, listen(listener, 16) == 0 else {
            close(listener)
            throw ProxyError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        Thread { [self] in acceptLoop() }.start()
    }

    /// Whether the answer was lost (the client was told to die before it could read it).
    public var answerLost: Bool { lock.withLock { lost } }

    /// The URL a client uses in place of the server's, with the server's path.
    public func url(replacing serverURL: String) -> String {
        serverURL.replacing(/127\.0\.0\.1:[0-9]+/, with: "127.0.0.1:\(port)")
    }

    /// Stops accepting; connections still open end when either side closes.
    public func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        defer { close(listener) }
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        while !isStopped {
            guard poll(&poller, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            guard let server = LoopbackSocket.connect(port: upstream) else {
                close(client)
                continue
            }
            let connection = Connection(client: client, server: server)
            Thread { [self] in forwardRequests(connection) }.start()
            Thread { [self] in forwardAnswers(connection) }.start()
        }
    }

    /// Client → server, keeping what the client sent since the last answer began.
    private func forwardRequests(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(connection.client, &buffer, buffer.count)
            guard n > 0, Self.writeAll(connection.server, buffer[0..<n]) else { break }
            connection.lock.withLock { connection.request += buffer[0..<n] }
        }
        connection.close()
    }

    /// Server → client; the answer to the chosen request is dropped and `onAnswer` called.
    private func forwardAnswers(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(connection.server, &buffer, buffer.count)
            guard n > 0 else { break }
            // The request is whole by now: a server answers only after reading it.
            let request = connection.lock.withLock { () -> [UInt8] in
                defer { connection.request = [] }
                return connection.request
            }
            if !request.isEmpty, Self.contains(request, marker), takeTurn() {
                onAnswer()
                break
            }
            guard Self.writeAll(connection.client, buffer[0..<n]) else { break }
        }
        connection.close()
    }

    /// Counts one request naming the marker; true for the one whose answer is lost.
    private func takeTurn() -> Bool {
        lock.withLock {
            seen += 1
            guard seen == occurrence, !lost else { return false }
            lost = true
            return true
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return false }
            rest = rest.dropFirst(n)
        }
        return true
    }

    /// One client connection and its connection to the server.
    private final class Connection: @unchecked Sendable {
        let client: Int32, server: Int32
        let lock = NSLock()
        var request: [UInt8] = []
        private var closed = false

        init(client: Int32, server: Int32) { (self.client, self.server) = (client, server) }

        /// Shuts both sockets (waking the other thread); the second caller closes them.
        func close() {
            let last = lock.withLock { () -> Bool in
                defer { closed = true }
                return closed
            }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            if last {
                Glibc.close(client)
                Glibc.close(server)
            }
        }
    }

    struct ProxyError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
