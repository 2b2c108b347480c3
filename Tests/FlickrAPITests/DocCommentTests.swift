import Foundation
import Testing
import FlickrTestSupport

/// Every public declaration a user of the library meets — FlickrAPI, the FlickrProtocol it
/// re-exports, FlickrAPITesting, the sandbox server and its configuration — has a doc comment:
/// `scripts/check-doc-comments` finds them and names each one without.
@Suite(.timeLimit(.minutes(2)), .tags(.unit)) struct DocCommentTests {
    static let script = "scripts/check-doc-comments"

    @Test func everyPublicDeclarationHasADocComment() async throws {
        let result = try await Products.python(Fixtures.repository.appendingPathComponent(Self.script).path)
        #expect(result.status == 0 && !result.timedOut,
                "\(Self.script) found public declarations without a doc comment:\n\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("public declarations documented\n"), "\(result.stdout)\(result.stderr)")
    }
}
