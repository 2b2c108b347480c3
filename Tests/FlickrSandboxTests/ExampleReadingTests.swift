import FlickrProtocol
import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrSandbox

/// The sandbox reads Flickr's documented examples through the package's one XML reader, and a
/// document it cannot read is an error — never an empty answer.
@Suite("Documented examples through the one XML reader", .timeLimit(.minutes(3)), .tags(.unit))
struct ExampleReadingTests {
    @Test func everyDocumentedExampleReads() {
        #expect(ExampleCache.parsed.count == MethodCatalog.examples.count)
        let failures = ExampleCache.parsed.compactMap { name, result -> String? in
            if case .failure(let error) = result { return "\(name): \(error)" }
            return nil
        }
        #expect(failures.isEmpty, "\(failures)")
        // And they are not empty: every example has at least one element.
        let empty = ExampleCache.parsed.filter { (try? $0.value.get())?.isEmpty ?? true }.map(\.key)
        #expect(empty.isEmpty, "\(empty.sorted())")
    }

    @Test func structureIsKeptAsWritten() throws {
        let nodes = try XMLNode.read("<a x=\"1 &amp; 2\" y='q'>\n <b>t&lt;</b>\n <b/>\n</a><c>text</c>")
        #expect(nodes.map(\.name) == ["a", "c"])
        #expect(nodes[0].attributes.map(\.0) == ["x", "y"] && nodes[0][attribute: "x"] == "1 & 2")
        #expect(nodes[0].children.map(\.name) == ["b", "b"] && nodes[0].children[0].text == "t<")
        #expect(nodes[0].text == nil && nodes[1].text == "text")
    }

    @Test func malformedDocumentsAreErrors() {
        for bad in ["<a><b></a>", "<a x=1/>", "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "<a>&undefined;</a>"] {
            #expect(throws: FlickrParseError.self, "\(bad)") { try XMLNode.read(bad) }
        }
    }
}
