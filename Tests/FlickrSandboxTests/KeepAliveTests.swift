@testable import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite("--close-idle: keep-alive connections closed between requests, never before the first", .timeLimit(.minutes(2)),
       .tags(.integration))
struct KeepAliveTests {
    /// A new connection whose first request comes well after the idle time is answered (the
    /// clock runs only after an answer, as a web server's keep-alive timeout does); after that
    /// answer the server closes the connection on its own, no sooner than the idle time.
    @Test("A slow first request is answered; then the idle connection is closed by the server")
    func closedAfterAnAnswerOnly() async throws {
        var configuration = SandboxConfiguration()
        configuration.closeIdleMilliseconds = 3
        try await withSandbox(configuration) { server in
            let url = try #require(URL(string: server.url))
            let port = try #require(url.port)
            let request = "GET /services/rest/?method=flickr.test.echo&api_key=\(server.credentials.apiKey)&n=1 HTTP/1.1\r\n"
                + "Host: 127.0.0.1:\(port)\r\nConnection: keep-alive\r\n\r\n"
            // The pause is what the test is about (a first request slower than the idle time by
            // far), not a wait for something the server could announce.
            let outcome = try await RawConnection.offThePool {
                let connection = try RawConnection(port: port)
                Thread.sleep(forTimeInterval: 0.2)
                // The server's clock starts when it writes the answer, a moment before the
                // answer arrives here; the request went out before either.
                let sent = ContinuousClock.now
                try connection.send(request)
                let answer = try connection.receive(until: "</rsp>")
                let rest = try connection.receiveUntilClosed()
                return (answer: answer + rest, idle: ContinuousClock.now - sent)
            }
            #expect(outcome.answer.hasPrefix("HTTP/1.1 200"), "\(outcome.answer.prefix(200))")
            #expect(outcome.answer.contains("<rsp stat=\"ok\">") && outcome.answer.contains("<n>1</n>"), "\(outcome.answer)")
            #expect(!outcome.answer.lowercased().contains("connection: close"), "the close was announced: \(outcome.answer)")
            #expect(outcome.idle >= .milliseconds(3), "closed \(outcome.idle) after the request was sent")
        }
    }
}

/// One blocking loopback TCP connection, for seeing what a server does at the socket level
/// (when it closes) that an HTTP client hides. Every receive is bounded by a 20 s timeout.
private final class RawConnection {
    struct Failure: Error, CustomStringConvertible { let description: String }
    private let fd: Int32

    init(port: Int) throws {
        guard let fd = LoopbackSocket.connect(port: port) else {
            throw Failure(description: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        self.fd = fd
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// Reads until `marker` has arrived; a close or the timeout before it is an error.
    func receive(until marker: String) throws -> String {
        var text = ""
        while !text.contains(marker) {
            guard let chunk = try read() else { throw Failure(description: "closed before \(marker): \(text)") }
            text += chunk
        }
        return text
    }

    /// Reads until the server closes the connection (what is left of an answer, if anything).
    func receiveUntilClosed() throws -> String {
        var text = ""
        while let chunk = try read() { text += chunk }
        return text
    }

    /// One `recv`: nil at the server's close, an error at the timeout or a reset.
    private func read() throws -> String? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { return nil }
        guard n > 0 else { throw Failure(description: errno == EAGAIN ? "no close within 20 s" : "recv: errno \(errno)") }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// Runs blocking socket work on a thread of its own, so the cooperative pool the other tests
    /// share is not held by it.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
