import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Synchronization
import Testing
import FlickrTestSupport

@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct CallTests {
    @Test func echoSurvivesReservedAndUnicodeCharacters() async throws {
        try await SandboxHarness.with { h in
            let tricky = "a b+c&d=e/f?g%h ~!*'() 日本 😀 \"q\""
            for placement in [SignaturePlacement.parameters, .header] {
                h.client.updateContext { $0.signaturePlacement = placement }
                for verb in [HTTPVerb.get, .post] {
                    let rsp = try await h.client.call("flickr.test.echo", ["name": tricky, "empty": ""], verb: verb)
                    #expect(rsp["name"]?.text == tricky, "\(placement) \(verb)")
                    #expect(rsp["method"]?.text == "flickr.test.echo")
                }
            }
        }
    }

    @Test func searchWithExtrasAndInfo() async throws {
        try await SandboxHarness.with { h in
            let rsp = try await h.client.call("photos.search", ["user_id": "me", "extras": "tags,url_q,date_upload,owner_name", "per_page": "5"])
            let photos = try #require(rsp["photos.photo"]?.array)
            #expect(photos.count == 5)
            let first = photos[0]
            #expect(first["url_q"]?.string?.hasPrefix(h.server.url + "/static/") == true)
            #expect(first["owner"]?.string == h.server.credentials.userNSID)
            #expect(try PhotoURL.source(first, size: .square150, images: h.client.context.endpoints.images) == first["url_q"]?.string)
            let id = try #require(first["id"]?.string)
            let info = try await h.client.call("flickr.photos.getInfo", ["photo_id": id])
            #expect(info["photo.id"]?.string == id)
            #expect(info["photo.title"]?.text != nil)
            if case .list = info["photo.tags.tag"] {} else { Issue.record("photo.tags.tag is not a list") }
            // The built source URL serves bytes.
            let url = try PhotoURL.source(info["photo"]!, size: .small240, images: h.client.context.endpoints.images)
            #expect(try await SandboxHarness.fetch(url).status == 200)
        }
    }

    @Test func jsonFormatMapsToTheSameTreeType() async throws {
        try await SandboxHarness.with(format: .json) { h in
            let rsp = try await h.client.call("flickr.photos.search", ["user_id": "me", "per_page": "3"])
            #expect(rsp["stat"]?.string == "ok")
            #expect(rsp["photos.photo"]?.array.count == 3)
            do {
                // Past the catalog check, the way Flickr answers a method it lacks.
                _ = try await h.client.call("flickr.nope.nothing", strict: false)
                Issue.record("unknown method accepted")
            } catch let error as FlickrError {
                #expect(error.kind == .api && error.code == 112)
            }
        }
    }

    @Test func callBodyHandsOverCheckedXMLOrTheTree() async throws {
        @Sendable func tree(_ bytes: [UInt8]) throws(FlickrError) -> FlickrNode {
            do throws(FlickrParseError) { return try FlickrXML.parse(bytes) } catch {
                throw FlickrError(kind: .parse, message: "malformed response: \(error)")
            }
        }
        try await SandboxHarness.with { h in
            guard case .xml(let mapped) = try await h.client.callBody("flickr.test.echo", arguments: [("a", "1")], mapXML: tree) else {
                Issue.record("an XML success was not handed to the mapping")
                return
            }
            #expect(mapped["a"]?.text == "1")
            do {
                _ = try await h.client.callBody("flickr.photos.getInfo", arguments: [("photo_id", "1")], mapXML: tree)
                Issue.record("a failure came back as a body")
            } catch let error as FlickrError {
                #expect(error.kind == .api && error.code == 1)
            }
            h.client.updateContext { $0.format = .json }
            guard case .tree(let tree) = try await h.client.callBody("flickr.test.echo", arguments: [("a", "2")], mapXML: tree) else {
                Issue.record("JSON did not come back as a tree")
                return
            }
            #expect(tree["a"]?.text == "2")
        }
        // A truncated success is classified (a parse error), not handed over.
        try await SandboxHarness.with(SandboxConfiguration(faults: try FaultSpec.parse("truncate=1"))) { h in
            do {
                _ = try await h.client.callBody("flickr.test.echo", arguments: [], mapXML: tree)
                Issue.record("a truncated body was handed over")
            } catch let error as FlickrError {
                #expect(error.kind == .parse || error.kind == .network)
            }
        }
    }

    /// The mapping runs under the retry policy: a parse error it throws is retried like the
    /// client's own, and a malformed answer (a control character in it, which XML forbids: the
    /// sandbox's `malformed` fault) costs as many requests on the mapping path as on the tree path.
    @Test func callBodyRetriesTheMappingsParseErrors() async throws {
        try await SandboxHarness.with { h in
            h.client.updateContext { $0.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01) }
            let attempts = Mutex(0)
            let before = h.server.requestCount()
            let body = try await h.client.callBody("flickr.test.echo", arguments: [("a", "1")]) { bytes throws(FlickrError) in
                if attempts.withLock({ n in n += 1; return n }) == 1 { throw FlickrError(kind: .parse, message: "malformed response: test") }
                return bytes.count
            }
            guard case .xml(let count) = body, count > 0 else {
                Issue.record("no mapped answer")
                return
            }
            #expect(attempts.withLock { $0 } == 2)
            #expect(h.server.requestCount() - before == 2)

            // Every answer now whole but not well-formed XML (the sandbox's `malformed` fault).
            await h.server.setFaults(try FaultSpec.parse("malformed=1"))
            for mapped in [true, false] {
                let start = h.server.requestCount()
                do {
                    if mapped {
                        _ = try await h.client.callBody("flickr.test.echo", arguments: [("a", "x")]) { bytes throws(FlickrError) in
                            do throws(FlickrParseError) { return try FlickrXML.parse(bytes) } catch {
                                throw FlickrError(kind: .parse, message: "malformed response: \(error)")
                            }
                        }
                    } else {
                        _ = try await h.client.call("flickr.test.echo", ["a": "x"])
                    }
                    Issue.record("a malformed answer was accepted")
                } catch let error as FlickrError {
                    #expect(error.kind == .parse && error.method == "flickr.test.echo", "\(error)")
                    #expect(error.httpStatus == 200 && error.bodyExcerpt != nil)
                }
                #expect(h.server.requestCount() - start == 3, "mapped: \(mapped)")
            }
        }
    }

    @Test func tagsAddAndRemoveOnTheServer() async throws {
        try await SandboxHarness.with { h in
            let photos = try await h.client.call("flickr.photos.search", ["user_id": "me", "per_page": "1"])
            let id = try #require(photos["photos.photo.0.id"]?.string)
            _ = try await h.client.call("flickr.photos.addTags", ["photo_id": id, "tags": "swiftflickr \"black cat\""])
            let info = try await h.client.call("flickr.photos.getInfo", ["photo_id": id])
            let tags = info["photo.tags.tag"]?.array ?? []
            let added = try #require(tags.first { $0["raw"]?.string == "black cat" })
            #expect(added.text == "blackcat")
            let tagID = try #require(added["id"]?.string)
            _ = try await h.client.call("flickr.photos.removeTag", ["tag_id": tagID])
            let after = try await h.client.call("flickr.tags.getListPhoto", ["photo_id": id])
            let raws = (after["photo.tags.tag"]?.array ?? []).compactMap { $0["raw"]?.string }
            #expect(!raws.contains("black cat") && raws.contains("swiftflickr"))
        }
    }

    @Test func permissionsAreEnforced() async throws {
        try await SandboxHarness.with { h in
            let read = try await h.server.issueToken(username: nil, perms: .read)
            h.client.updateContext { $0.oauthToken = read.token; $0.oauthTokenSecret = read.secret }
            let photos = try await h.client.call("flickr.photos.search", ["user_id": "me", "per_page": "1"])
            let id = try #require(photos["photos.photo.0.id"]?.string)
            do {
                _ = try await h.client.call("flickr.photos.setTags", ["photo_id": id, "tags": "x"])
                Issue.record("read token wrote")
            } catch let error as FlickrError {
                #expect(error.kind == .api && error.code == 99)
                #expect(error.description.hasPrefix("flickr.photos.setTags: [99]"))
            }
        }
    }

    @Test func traceIsRedacted() async throws {
        try await SandboxHarness.with { h in
            _ = try await h.client.call("flickr.test.login")
            let c = h.server.credentials
            let trace = h.log.messages.joined(separator: "\n")
            #expect(trace.contains("flickr.test.login"))
            for secret in [c.apiSecret, c.oauthTokenSecret, c.oauthToken] { #expect(!trace.contains(secret)) }
        }
    }

    /// A view controller as an app writes one: main-actor isolated, conforming as written.
    @MainActor final class PhotoViewController: FlickrRequestDelegate {
        let done: AsyncStream<Result<FlickrNode, FlickrError>>.Continuation
        var progress: [Int64] = []
        var events: [String] = []
        init(_ c: AsyncStream<Result<FlickrNode, FlickrError>>.Continuation) { done = c }
        func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode) {
            // A main-actor callback off the main actor would trap here.
            MainActor.preconditionIsolated()
            events.append("complete")
            done.yield(.success(response))
        }
        func flickrRequest(_ request: FlickrRequest, didFailWith error: FlickrError) {
            MainActor.preconditionIsolated()
            events.append("fail")
            done.yield(.failure(error))
        }
        func flickrRequest(_ request: FlickrRequest, imageUploadSentBytes sent: Int64, totalBytes: Int64?) {
            MainActor.preconditionIsolated()
            events.append("progress")
            progress.append(sent)
        }
    }

    @Test func requestDelegateCompletesAndCancels() async throws {
        try await SandboxHarness.with { h in
            let (stream, continuation) = AsyncStream<Result<FlickrNode, FlickrError>>.makeStream()
            let delegate = await PhotoViewController(continuation)
            let request = FlickrRequest(client: h.client)
            request.delegate = delegate
            request.sessionInfo = "step-1"
            #expect(request.callAPIMethod(withGET: "flickr.test.echo", arguments: ["x": "1"]))
            var iterator = stream.makeAsyncIterator()
            guard case .success(let rsp)? = await iterator.next() else { Issue.record("no completion"); return }
            #expect(rsp["x"]?.text == "1")
            #expect(request.sessionInfo as? String == "step-1")
            // An upload: progress on the main actor, every one before the completion.
            let path = try UploadTests.writeTemp(UploadTests.jpeg(size: 3 << 20), name: "delegate.jpg")
            #expect(request.uploadImage(.file(path), arguments: ["title": "delegate"]))
            let upload = await iterator.next()
            guard case .success(let uploaded)? = upload else { Issue.record("no upload completion: \(String(describing: upload))"); return }
            #expect(uploaded["photoid"]?.text?.isEmpty == false)
            let (events, progress) = await MainActor.run { (delegate.events, delegate.progress) }
            #expect(events.last == "complete" && events.dropLast().allSatisfy { $0 == "progress" || $0 == "complete" }, "\(events)")
            #expect(!progress.isEmpty && progress == progress.sorted() && (progress.last ?? 0) >= 3 << 20, "\(progress)")
            await h.server.setLatency(milliseconds: 3000)
            #expect(request.callAPIMethod(withPOST: "flickr.test.echo"))
            try await Task.sleep(for: .milliseconds(100))
            request.cancel()
            guard case .failure(let error)? = await iterator.next() else { Issue.record("no failure"); return }
            #expect(error.kind == .cancelled)
        }
    }
}
