import Foundation
import Testing
import FlickrTestSupport
import FlickrProtocol
@testable import FlickrAPI

/// Each body in Tests/Fixtures/errors (and a few more shapes) lands in the right error kind.
@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct ResponseClassifierTests {
    func classify(_ file: String, status: Int, retryAfter: String? = nil) throws -> Result<FlickrNode, FlickrError> {
        let body = [UInt8](try Fixtures.data(file))
        do throws(FlickrError) {
            return .success(try ResponseClassifier.classify(status: status, contentType: nil, retryAfter: retryAfter,
                                                            body: body, method: "flickr.test"))
        } catch {
            return .failure(error)
        }
    }

    func error(_ file: String, status: Int, retryAfter: String? = nil) throws -> FlickrError {
        guard case .failure(let e) = try classify(file, status: status, retryAfter: retryAfter) else {
            Issue.record("\(file) was accepted")
            return FlickrError(kind: .usage, message: "")
        }
        return e
    }

    @Test func apiFailuresXMLAndJSON() throws {
        let e100 = try error("errors/rest.fail.100.invalid-api-key.xml", status: 200)
        #expect(e100.kind == .api && e100.code == 100)
        #expect(e100.description.hasPrefix("flickr.test: [100] Invalid API Key"))
        let e98 = try error("errors/auth.oauth.checkToken.fail.98.xml", status: 200)
        #expect(e98.kind == .api && e98.code == 98)
        let e112 = try error("errors/rest.fail.112.method-not-found.json", status: 200)
        #expect(e112.kind == .api && e112.code == 112 && e112.message.contains("not found"))
        let revoked = try error("errors/rest.fail.98.revoked-token.json", status: 200)
        #expect(revoked.kind == .api && revoked.code == 98 && revoked.message == "Invalid auth token")
        let upload = try error("errors/upload.fail.5.filetype.xml", status: 200)
        #expect(upload.kind == .api && upload.code == 5)
        let e201 = try error("real/flickr-foundation-cassettes/test_a_persistent_error_201_is_raised__0.flickr.photos.getInfo.200.xml", status: 200)
        #expect(e201.kind == .api && e201.code == 201 && e201.isTransient)
    }

    @Test func oauthProblems() throws {
        let sig = try error("errors/oauth401.signature_invalid.txt", status: 401)
        #expect(sig.kind == .oauth && sig.oauthProblem == "signature_invalid" && sig.httpStatus == 401)
        #expect(sig.debugSBS?.hasPrefix("GET&https%3A%2F%2Fwww.flickr.com%2Fservices%2Foauth%2Faccess_token&") == true)
        #expect(sig.debugSBS?.hasSuffix("oauth_version%3D1.0") == true)
        #expect(sig.description.contains("Flickr signed: GET&"))
        let rejected = try error("errors/oauth401.token_rejected.txt", status: 401)
        #expect(rejected.kind == .oauth && rejected.oauthProblem == "token_rejected")
        let verifier = try error("errors/oauth401.verifier_invalid.txt", status: 401)
        #expect(verifier.kind == .oauth && verifier.oauthProblem == "verifier_invalid")
        #expect(!verifier.isTransient)
    }

    @Test func httpLevelFailures() throws {
        let throttled = try error("errors/http429.html", status: 429, retryAfter: "7")
        #expect(throttled.kind == .http && throttled.httpStatus == 429 && throttled.retryAfter == 7)
        #expect(throttled.isTransient)
        let gateway = try error("errors/http502.yahoo-html.excerpt.txt", status: 502)
        #expect(gateway.kind == .http && gateway.httpStatus == 502 && gateway.isTransient)
        #expect(gateway.bodyExcerpt?.isEmpty == false)
        let persistent = try error("real/flickr-foundation-cassettes/test_a_persistent_5xx_error_is_raised__0.flickr.photos.getInfo.500.xml", status: 500)
        #expect(persistent.kind == .http && persistent.httpStatus == 500)
    }

    @Test func unparsableBodies() throws {
        let repr = try error("errors/rest.fail.108.invalid-frob.python-repr.txt", status: 200)
        #expect(repr.kind == .parse && repr.httpStatus == 200)
        #expect(repr.bodyExcerpt?.contains("Invalid frob") == true)
        let invalid = try error("real/flickr-foundation-cassettes/test_a_persistent_invalid_xml_error_is_raised__0.flickr.photos.getInfo.200.xml", status: 200)
        #expect(invalid.kind == .parse)
        for (body, kind) in [("", FlickrError.Kind.parse), ("   \n", .parse),
                             ("<!DOCTYPE html><html><body>Will be right back</body></html>", .http),
                             ("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photos page=\"1\">\n<photo id=\"1\"", .parse),
                             ("<rsp><nostat/></rsp>", .parse)] {
            do throws(FlickrError) {
                _ = try ResponseClassifier.classify(status: 200, contentType: nil, retryAfter: nil, body: Array(body.utf8), method: "m")
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.kind == kind, "\(body)")
                #expect(error.httpStatus == 200)
            }
        }
    }

    @Test func successesPass() throws {
        guard case .success(let tree) = try classify("real/flickr.photos.getInfo.sybrenstuvel-flickrapi.xml", status: 200) else {
            Issue.record("getInfo rejected")
            return
        }
        #expect(tree["photo.id"] != nil)
        guard case .success(let json) = try classify("real/flickr.photos.search.2024.json", status: 200) else {
            Issue.record("JSON rejected")
            return
        }
        #expect(json["photos.photo"]?.array.isEmpty == false)
    }

    @Test func duplicateCarriesPhotoID() throws {
        let body = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"fail\">\n\t<err code=\"9\" msg=\"Duplicate photo/video detected\" />\n\t<duplicate_photo_id>52412</duplicate_photo_id>\n</rsp>\n"
        do throws(FlickrError) {
            _ = try ResponseClassifier.classify(status: 200, contentType: nil, retryAfter: nil, body: Array(body.utf8), method: "upload")
            Issue.record("accepted")
        } catch {
            #expect(error.code == 9 && error.duplicatePhotoID == "52412")
            #expect(error.description.contains("52412"))
        }
    }

    @Test func completeSuccessXMLIsRecognisedCheaply() {
        func ok(_ s: String) -> Bool { ResponseClassifier.isCompleteSuccessXML(Array(s.utf8)) }
        #expect(ok("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photoid>1</photoid>\n</rsp>\n"))
        #expect(ok("<rsp stat=\"ok\"></rsp>"))
        #expect(!ok("<rsp stat=\"ok\">\n<photos page=\"1\">\n<photo id=\"1\""))   // truncated
        #expect(!ok("<rsp stat=\"fail\"><err code=\"1\" msg=\"x\" /></rsp>"))
        #expect(!ok("{\"stat\":\"ok\"}"))
        #expect(!ok(""))
        #expect(!ok("   "))
    }

    @Test func retryAfterForms() {
        #expect(ResponseClassifier.parseRetryAfter("120") == 120)
        #expect(ResponseClassifier.parseRetryAfter(nil) == nil)
        #expect(ResponseClassifier.parseRetryAfter("soon") == nil)
        let date = ResponseClassifier.parseRetryAfter("Wed, 21 Oct 2099 07:28:00 GMT")
        #expect((date ?? 0) > 1_000_000)
    }
}
