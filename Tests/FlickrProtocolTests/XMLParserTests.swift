import FlickrProtocol
import Foundation
import Testing
import FlickrTestSupport

/// The raw event layer every XML consumer shares, and the placements the mapper decides.
@Suite(.timeLimit(.minutes(3)), .tags(.unit))
struct XMLParserTests {
    final class Recorder: FlickrXMLEventHandler {
        var events: [String] = []
        var pointers: [String: Set<UnsafeRawPointer>] = [:]
        func startElement(_ name: UnsafePointer<CChar>, attributes: FlickrXMLAttributes) {
            let n = String(cString: name)
            pointers[n, default: []].insert(UnsafeRawPointer(name))
            var attrs: [String] = []
            for i in 0..<attributes.count {
                attrs.append(String(cString: attributes.name(at: i)!) + "=" + attributes.withValue(at: i) { String(decoding: $0, as: UTF8.self) })
            }
            events.append("<" + n + (attrs.isEmpty ? "" : " " + attrs.joined(separator: " ")))
        }
        func characters(_ text: UnsafeRawBufferPointer) { events.append("'" + String(decoding: text, as: UTF8.self)) }
        func endElement() { events.append(">") }
    }

    @Test func eventsWithDecodedAttributesAndInternedNames() throws {
        let r = Recorder()
        try FlickrXMLParser.parse("<r a=\"x &amp; y &#38; z\"><p/><p>1<![CDATA[<2>]]></p></r>", handler: r)
        #expect(r.events.filter { !$0.hasPrefix("'") } == ["<r a=x & y & z", "<p", ">", "<p", ">", ">"])
        #expect(r.events.filter { $0.hasPrefix("'") }.joined() == "'1'<2>")
        #expect(r.pointers["p"]?.count == 1, "a name arrives as one interned pointer")
        #expect(throws: FlickrParseError.self) { try FlickrXMLParser.parse("", handler: Recorder()) }
        #expect(throws: FlickrParseError.self) { try FlickrXMLParser.parse("<a>", handler: Recorder()) }
    }

    final class PlacementSink: FlickrXMLSink {
        var names: [String] = []
        var placements: [String] = []
        func makeName(_ name: String) -> Int { names.append(name); return names.count - 1 }
        func begin(element: Int, attributes: FlickrXMLSinkAttributes) {}
        func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement) {
            placements.append("\(names[element]):\(placement)" + (emptyList.map { "+[\(names[$0])]" } ?? "")
                              + (text.map { "'" + String(decoding: $0, as: UTF8.self) } ?? ""))
        }
    }

    @Test func theMapperDecidesEveryPlacementOnce() throws {
        let sink = PlacementSink()
        let xml = "<rsp photo=\"attr\"><photos/><photo/><x> </x><x>t</x><x/><people><person/></people></rsp>"
        let root = try Array(xml.utf8).withUnsafeBytes { raw in try FlickrXMLMapper.map(raw, rule: MethodCatalog.listRule, into: sink) }
        #expect(root == "rsp")
        #expect(sink.placements == ["photos:field+[photo]", "photo:fieldOverAttribute", "x:field", "x:listFromField't",
                                    "x:append", "person:newList", "people:field", "rsp:root"])
    }
}
