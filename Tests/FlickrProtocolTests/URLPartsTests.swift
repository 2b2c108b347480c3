import FlickrProtocol
import Testing

/// The one loopback test (client defaults, `flickr`'s budget, `flickr-sandbox --host`).
@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct LoopbackTests {
    @Test(arguments: [
        "127.0.0.1", "127.0.0.2", "127.255.255.255", "127.1.2.3",
        "::1", "[::1]", "0:0:0:0:0:0:0:1", "[0:0:0:0:0:0:0:1]", "0000:0000:0000:0000:0000:0000:0000:0001", "0::1", "::0:1",
        "localhost", "LOCALHOST", "LocalHost", "[localhost]",
    ])
    func loopbackHosts(_ host: String) {
        #expect(Loopback.isLoopback(host: host), "\(host)")
    }

    @Test(arguments: [
        "", "0.0.0.0", "128.0.0.1", "10.0.0.1", "127.0.0", "127.0.0.1.5", "127.0.0.256", "127..0.1", "127.example.com",
        "localhost.example.org", "mylocalhost", "::", "::2", "1::1", "::1::", "[::1", "::1]", "::ffff:127.0.0.1",
        "0:0:0:0:0:0:0:0:1", "12345::1", "api.flickr.com",
    ])
    func otherHosts(_ host: String) {
        #expect(!Loopback.isLoopback(host: host), "\(host)")
    }

    @Test func urls() {
        for url in ["http://127.0.0.1:8080", "http://127.0.0.1:8080/services/rest/", "http://localhost", "HTTP://LOCALHOST/x",
                    "http://[::1]:9/services/rest/", "http://[::1]", "https://user:pw@127.0.0.1:1/", "http://127.0.0.9?x=1",
                    "http://localhost#top"] {
            #expect(Loopback.isLoopback(url: url), "\(url)")
        }
        for url in ["https://api.flickr.com/services/rest/", "http://127.example.com", "http://127.0.0.1.example.com/",
                    "http://evil.com/127.0.0.1", "http://localhost@evil.com/", "127.0.0.1:8080", "http://", "http://[::2]:9",
                    "not a url", ""] {
            #expect(!Loopback.isLoopback(url: url), "\(url)")
        }
    }
}

/// The services' paths, written once (the client's endpoints, the sandbox's routes).
@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct FlickrServiceTests {
    @Test func pathsAreFlickrs() {
        #expect(FlickrService.allCases.map(\.path) == [
            "/services/rest/", "/services/upload/", "/services/replace/", "/services/oauth/request_token",
            "/services/oauth/authorize", "/services/oauth/access_token", "/services/auth/",
        ])
        #expect(FlickrService.imagesPath == "/static/")
    }

    @Test func requestPathsNameTheirService() {
        for service in FlickrService.allCases {
            #expect(FlickrService(path: service.path) == service)
            let other = service.path.hasSuffix("/") ? String(service.path.dropLast()) : service.path + "/"
            #expect(FlickrService(path: other) == service, "\(other)")
        }
        for path in ["/", "", "/services", "/services/", "/services/rest//", "/services/REST/", "/static/1/2_3.jpg",
                     "/services/oauth", "services/rest/", "/services/rest/x"] {
            #expect(FlickrService(path: path) == nil, "\(path)")
        }
    }
}
