import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import FlickrAPI

/// Transport failures become sentences that name the server and what to check (the refused
/// connection and the TLS mismatch are also met for real, in ResilienceTests and
/// CommandErrorTests; these are the shapes that cannot be produced on loopback).
@Suite(.tags(.unit)) struct TransportErrorTests {
    /// The text NIO gives a failed name lookup (as recorded from `flickr --endpoint http://no-such-host.invalid`).
    struct RecordedDNSFailure: Error, CustomStringConvertible {
        var description: String {
            "DNS error: SocketAddressError.UnknownHost: Name or service not known (error -2) for host no-such-host.invalid, port 80"
        }
    }

    /// No tracer is bootstrapped in the test process, so the shared client makes no spans:
    /// AsyncHTTPClient would otherwise make one per request from the no-op tracer and parse
    /// every URL a second time to fill it.
    @Test func sharedClientMakesNoSpansWithoutATracer() {
        #expect(HTTPTransport.sharedClient.tracer == nil)
    }

    @Test func eachFailureNamesTheServer() {
        let url = "https://api.example.org/services/rest/?method=flickr.test.echo"
        let dns = HTTPTransport.map(RecordedDNSFailure(), method: "m", timeout: 10, url: url)
        #expect(dns.kind == .network && dns.message.hasPrefix("cannot resolve the host name of api.example.org:443"))
        let refused = HTTPTransport.map(IOError(errnoCode: ECONNREFUSED, reason: "connect"), method: "m", timeout: 10, url: url)
        #expect(refused.message.hasPrefix("cannot connect to api.example.org:443: connection refused"))
        let timeout = HTTPTransport.map(HTTPClientError.deadlineExceeded, method: "m", timeout: 2.5, url: url)
        #expect(timeout.kind == .timeout && timeout.message == "no answer from api.example.org:443 within 2.5 s")
        let connect = HTTPTransport.map(HTTPClientError.connectTimeout, method: "m", timeout: 10, url: url)
        #expect(connect.kind == .timeout && connect.message.contains("could not connect to api.example.org:443"))
        let scheme = HTTPTransport.map(HTTPClientError.emptyScheme, method: "m", timeout: 10, url: "x")
        #expect(scheme.kind == .usage && scheme.message.contains("http://127.0.0.1:8080"))
        #expect(HTTPTransport.server(of: "http://[::1]:8080/x") == "[::1]:8080")
    }

    /// Only a write to a connection already closed counts as never sent; a reset or a close
    /// while waiting for the answer may come after the server acted.
    @Test func onlyAClosedConnectionMeansNotSent() {
        let url = "https://api.example.org/services/rest/"
        let closed = HTTPTransport.map(ChannelError.ioOnClosedChannel, method: "m", timeout: 10, url: url)
        #expect(closed.kind == .network && closed.requestNotSent && closed.isTransient)
        #expect(closed.message == "api.example.org:443 had closed the connection before the request went out")
        let midAnswer = HTTPTransport.map(HTTPClientError.remoteConnectionClosed, method: "m", timeout: 10, url: url)
        #expect(midAnswer.kind == .network && !midAnswer.requestNotSent)
        let reset = HTTPTransport.map(IOError(errnoCode: ECONNRESET, reason: "read"), method: "m", timeout: 10, url: url)
        #expect(!reset.requestNotSent)
    }

    @Test func endpointsMustBeBaseURLs() {
        for good in ["http://127.0.0.1:8080", "https://api.example.org/", "http://[::1]:9000"] {
            #expect(throws: Never.self) { try Endpoints.check(baseURL: good) }
        }
        for bad in ["not a url", "ftp://x.org", "http://127.0.0.1:8080/services/rest/", "http://", "127.0.0.1:8080", "http://h/?q=1"] {
            #expect(throws: FlickrError.self, "\(bad)") { try Endpoints.check(baseURL: bad) }
        }
    }
}
