import FlickrAPI
@testable import FlickrLua
import FlickrProtocol
import Foundation
import LuaKit
import Testing
import FlickrTestSupport

/// The two ways a response becomes Lua tables — from the parsed tree (flickr.* calls) and straight
/// from the parser (flickr.parse_xml) — give the same tables.
@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct MappingTests {
    static let documents: [String] = {
        var docs = MethodCatalog.examples.sorted { $0.key < $1.key }.map { _, example in
            example.contains("<rsp") ? example : "<rsp stat=\"ok\">\n" + example + "\n</rsp>"
        }
        docs += [
            #"<rsp stat="ok"><photo id="1" title="a &amp; b &lt;3 &#38; c"><title>Tom &amp; Jerry</title></photo></rsp>"#,
            #"<rsp stat="ok"><photos page="1" total="0"/></rsp>"#,
            #"<rsp stat="ok"><a x="1"><x>child</x><x>again</x></a>  <b>  </b><c>  text  </c></rsp>"#,
            #"<other><item n="1"/><item n="2"/><item n="3"/></other>"#,
            "<rsp stat=\"ok\"><t>caf\u{e9} \u{1F600}</t><e/></rsp>",
        ]
        return docs
    }()

    @Test func treeAndParserGiveTheSameTables() async throws {
        let lua = try LuaRuntime()
        defer { lua.close() }
        let documents = Self.documents
        let mismatches = try await lua.perform { L -> [String] in
            var out: [String] = []
            for doc in documents {
                let tree = try FlickrXML.parse(doc)
                try L.push(flickrNode: tree)
                let fromTree = try L.value(at: -1)
                L.pop()
                try Array(doc.utf8).withUnsafeBytes { try L.push(flickrXML: $0) }
                let fromParser = try L.value(at: -1)
                L.pop()
                if fromTree != fromParser { out.append("\(doc.prefix(120))\n tree:   \(fromTree)\n parser: \(fromParser)") }
            }
            return out
        }
        #expect(documents.count > 100)  // every catalog example plus edge cases
        #expect(mismatches.isEmpty, "\(mismatches.count) differ:\n\(mismatches.prefix(3).joined(separator: "\n"))")
    }

    /// A large document (entities, text, a 200 kB text node) gives the tree's tables; a document
    /// broken far into it is a parse error that leaves the stack as it was.
    @Test func largeDocumentsGiveTheTreesTables() async throws {
        var doc = "<rsp stat=\"ok\"><photos page=\"1\" pages=\"1\" total=\"5000\">"
        for i in 0..<5_000 {
            doc += "<photo id=\"\(i)\" title=\"t \(i) &amp; &quot;q&quot;\" tags=\"a b\" ispublic=\"1\"><d>text \(i) &lt;3</d></photo>"
        }
        doc += "</photos><big>" + String(repeating: "x", count: 200_000) + "</big></rsp>"
        #expect(doc.utf8.count > 700_000)
        let lua = try LuaRuntime()
        defer { lua.close() }
        let bytes = Array(doc.utf8)
        let (same, count, broken) = try await lua.perform { L -> (Bool, LuaValue, String) in
            try L.push(flickrNode: try FlickrXML.parse(bytes))
            let fromTree = try L.value(at: -1)
            L.pop()
            try bytes.withUnsafeBytes { try L.push(flickrXML: $0) }
            let fromParser = try L.value(at: -1)
            L.setGlobal("r")
            let n = try L.run("return #r.photos.photo").first ?? .nil
            let top = L.top
            var message = "no error"
            do {
                try Array(bytes.prefix(bytes.count - 300_000)).withUnsafeBytes { try L.push(flickrXML: $0) }
            } catch let e as FlickrError {
                message = e.kind.rawValue + (L.top == top ? " (stack kept)" : " (stack changed)")
            }
            return (fromTree == fromParser, n, message)
        }
        #expect(same)
        #expect(count == 5_000)
        #expect(broken == "parse (stack kept)")
    }

    /// A large photo list gives the tree's tables; so does one with a run of photos inside a
    /// comment (which neither may count).
    @Test func aLargeListGivesTheTreesTables() async throws {
        let (head, tail, photos) = (PhotoListXML.head, PhotoListXML.tail, PhotoListXML.photos)
        let documents = [PhotoListXML.document(photos: 3_000),
                         head + photos(0..<2_500) + "<!-- " + photos(2_500..<2_600) + " -->\n" + photos(2_600..<3_000) + tail]
        let lua = try LuaRuntime()
        defer { lua.close() }
        let outcomes = try await lua.perform { L -> [(Bool, LuaValue)] in
            try documents.map { doc in
                let bytes = Array(doc.utf8)
                #expect(bytes.count > 200_000)
                try L.push(flickrNode: try FlickrXML.parse(bytes))
                let fromTree = try L.value(at: -1)
                L.pop()
                try bytes.withUnsafeBytes { try L.push(flickrXML: $0) }
                let fromParser = try L.value(at: -1)
                L.setGlobal("r")
                return (fromTree == fromParser, try L.run("return #r.photos.photo").first ?? .nil)
            }
        }
        #expect(outcomes.map(\.0) == [true, true])
        #expect(outcomes.map(\.1) == [3_000, 2_900])
    }

    @Test func rulesOfTheMapping() async throws {
        let lua = try LuaRuntime()
        defer { lua.close() }
        let values = try await lua.perform { L -> [LuaValue] in
            try L.push(flickrXMLAt: { L.push(#"<rsp stat="ok"><photos page="1"><photo id="7" t="a &amp; b"/></photos><x a="1"><a>c</a></x></rsp>"#); return -1 }())
            L.remove(at: -2)
            L.setGlobal("r")
            return try L.run("""
                return r.stat, r.photos.photo[1].id, r.photos.photo[1].t, r.x["@a"], r.x.a._text, #r.photos.photo
                """)
        }
        #expect(values == ["ok", "7", "a & b", "1", "c", 1])
    }

    @Test func malformedXMLIsAParseError() async throws {
        let lua = try LuaRuntime()
        defer { lua.close() }
        let outcome = try await lua.perform { L -> (String, Int32) in
            do {
                try Array("<rsp><photo></rsp>".utf8).withUnsafeBytes { try L.push(flickrXML: $0) }
                return ("no error", L.top)
            } catch let e as FlickrError {
                return (e.kind.rawValue + ": " + e.message, L.top)
            }
        }
        #expect(outcome.0.hasPrefix("parse: malformed response"))
        #expect(outcome.1 == 0)
    }
}
