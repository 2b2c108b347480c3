import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrProtocol

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct XMLMappingTests {
    func map(_ xml: String) throws -> FlickrNode { try FlickrXML.parse(xml) }

    @Test func everyDocExampleMaps() throws {
        let files = try Fixtures.files(in: "doc-examples", suffix: ".xml")
        #expect(files.count >= 137)
        for file in files {
            let tree = try map(Fixtures.wrapped(try Fixtures.string(file)))
            #expect(tree["stat"]?.string == "ok", "\(file)")
            #expect((tree.map?.count ?? 0) >= 1, "\(file)")
        }
    }

    /// Elements of one name with the same attributes share their keys array until one of them
    /// gets a key of its own: that one alone has it, in either order of events.
    @Test func sharedKeysStayApart() throws {
        let tree = try map(#"<rsp stat="ok"><photos><photo id="1" t="a"/><photo id="2" t="b"><note>x</note></photo>"#
                           + #"<photo id="3" t="c">text</photo><photo id="4" t="d"/><photo t="e" id="5"/></photos></rsp>"#)
        let photos = try #require(tree["photos.photo"]?.array)
        #expect(photos.map { $0.map?.keys ?? [] } == [["id", "t"], ["id", "t", "note"], ["id", "t", "_text"], ["id", "t"], ["t", "id"]])
        #expect(photos.map { $0["id"]?.string } == ["1", "2", "3", "4", "5"])
        #expect(photos[1]["note"]?.text == "x" && photos[2].text == "text" && photos[4]["t"]?.string == "e")
    }

    /// Large and wide documents: a 6,000-photo list with a 150 kB text node, and 400 element
    /// names with an element of 100 attributes, map in full; an attribute whose decoded value
    /// holds `&#38;` keeps it (decoded once, not twice); a large document cut short is a parse
    /// error with libxml2's message and line.
    @Test func largeAndWideDocumentsMap() throws {
        var big = "<rsp stat=\"ok\"><photos page=\"1\">"
        for i in 0..<6_000 { big += "<photo id=\"\(i)\" title=\"a &amp; b &#38;#38; \(i)\"><note>n \(i) &lt;</note></photo>" }
        big += "</photos><big>" + String(repeating: "y", count: 150_000) + "</big></rsp>"
        let tree = try FlickrXML.parse(Array(big.utf8))
        #expect(tree["photos.photo"]?.array.count == 6_000)
        #expect(tree["photos.photo"]?.array.first?["title"]?.string == "a & b &#38; 0")
        #expect(tree["photos.photo"]?.array.last?["note"]?.text == "n 5999 <")
        #expect(tree["big"]?.text?.utf8.count == 150_000)
        var names = "<rsp stat=\"ok\"><many>"
        for i in 0..<400 { names += "<e\(i) a\(i)=\"\(i)\">t\(i)</e\(i)>" }
        names += "<wide " + (0..<100).map { "w\($0)=\"v\($0)\"" }.joined(separator: " ") + "/></many></rsp>"
        let wide = try FlickrXML.parse(names)
        #expect(wide["many.e399.a399"]?.string == "399" && wide["many.e399"]?.text == "t399")
        #expect(wide["many.wide"]?.map?.count == 100 && wide["many.wide.w99"]?.string == "v99")
        let broken = Array(big.utf8.prefix(big.utf8.count - 200_000))
        do {
            _ = try FlickrXML.parse(broken)
            Issue.record("a document cut short parsed")
        } catch {
            #expect(!error.message.isEmpty && error.message != "malformed XML" && error.line == 1, "\(error)")
        }
    }

    /// Every event a sink sees, names spelled out: what any sink (Lua tables) builds from.
    final class EventSink: FlickrXMLSink {
        var names: [String] = []
        var events: [String] = []
        func makeName(_ name: String) -> Int { names.append(name); return names.count - 1 }
        func begin(element: Int, attributes: FlickrXMLSinkAttributes) {
            var event = "<" + names[element]
            for i in 0..<attributes.count {
                attributes.withValue(at: i) { event += " \(names[attributes.tokens[i]])=" + String(decoding: $0, as: UTF8.self) }
            }
            events.append(event)
        }
        func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement) {
            events.append("/\(names[element]) \(placement)" + (emptyList.map { " +[\(names[$0])]" } ?? "")
                          + (text.map { " '" + String(decoding: $0, as: UTF8.self) } ?? ""))
        }
    }

    /// A sink other than the tree sees each element once, in document order, with the placement
    /// the tree uses: a photo list gives one begin and one end per photo, the first a new list
    /// and the rest appended to it.
    @Test func otherSinksSeeTheDocumentInOrder() throws {
        let bytes = Array(PhotoListXML.document(photos: 3_000).utf8)
        let sink = EventSink()
        let root = try bytes.withUnsafeBytes { raw in try FlickrXML.map(raw, rule: MethodCatalog.listRule, into: sink) }
        #expect(root == "rsp")
        let photos = sink.events.filter { $0.hasPrefix("<photo ") }
        #expect(photos.count == 3_000)
        #expect(photos.first?.hasPrefix("<photo id=0 title=t & 0 caf\u{e9}") == true, "\(photos.first ?? "")")
        #expect(photos.last?.hasPrefix("<photo id=2999 ") == true)
        let ends = sink.events.filter { $0.hasPrefix("/photo ") }
        #expect(ends.count == 3_000 && ends.first != ends.last, "\(ends.prefix(2))")
    }


    @Test func everyTopLevelFixtureMaps() throws {
        let files = try Fixtures.files(in: "", suffix: ".xml")
        #expect(files.count >= 20)
        for file in files {
            let text = try Fixtures.string(file)
            let doc = text.contains("<rsp") ? text : Fixtures.wrapped(text)
            #expect(try map(doc)["stat"]?.string == "ok", "\(file)")
        }
    }

    @Test func everyRecordedLiveResponseMaps() throws {
        var files = try Fixtures.files(in: "real", suffix: ".xml")
        files += try Fixtures.files(in: "real/flickr-foundation-cassettes", suffix: ".xml")
        #expect(files.count >= 140)
        var failures: [String] = []
        for file in files {
            let data = try Fixtures.data(file)
            // Flickr Foundation's hand-made "invalid XML" cassette is JSON served as text/xml.
            if file.contains("persistent_invalid_xml") {
                #expect(throws: FlickrParseError.self) { try FlickrXML.parse(data) }
                continue
            }
            do {
                let tree = try FlickrXML.parse(data)
                if String(decoding: data, as: UTF8.self).contains("<rsp") {
                    let stat = tree["stat"]?.string
                    #expect(stat == "ok" || stat == "fail", "\(file)")
                    if stat == "fail" { #expect(tree["err.code"]?.int != nil, "\(file)") }
                }
            } catch {
                failures.append("\(file): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func seedRulesAttributesTextAndPlurals() throws {
        let tree = try map(Fixtures.wrapped(try Fixtures.string("flickr.auth.checkToken.xml")))
        #expect(tree["auth.token"]?.text?.isEmpty == false)
        #expect(tree["auth.token._text"] == tree["auth.token"]?.map?[FlickrNode.textKey])
        #expect(tree["auth.user.nsid"]?.string != nil)
        let photos = try map(Fixtures.wrapped(try Fixtures.string("flickr.photos.search.xml")))
        guard case .list(let list)? = photos["photos.photo"] else {
            Issue.record("photos.photo is not a list")
            return
        }
        #expect(list.count >= 2)
        #expect(list[0]["id"]?.string != nil)
        #expect(photos["photos.photo.0.id"] == list[0]["id"])
    }

    @Test func pluralParentMakesOneElementList() throws {
        let tree = try map("<rsp stat=\"ok\"><photos page=\"1\"><photo id=\"1\"/></photos><galleries><gallery id=\"g\"/></galleries><people><person nsid=\"p\"/></people></rsp>")
        #expect(tree["photos.photo"]?.array.count == 1)
        if case .list = tree["photos.photo"] {} else { Issue.record("photos/photo not a list") }
        if case .list = tree["galleries.gallery"] {} else { Issue.record("galleries/gallery not a list") }
        if case .list = tree["people.person"] {} else { Issue.record("people/person not a list") }
    }

    @Test func oneOrManyLearnedFromExamples() throws {
        let rule = MethodCatalog.listRule
        #expect(rule.isList(parent: "activity", child: "event"))
        let one = """
        <rsp stat="ok"><items><item type="photo" id="1"><title>A</title>
        <activity><event type="comment" user="u">only one</event></activity></item></items></rsp>
        """
        let tree = try map(one)
        let item = try #require(tree["items.item"]?[0])
        guard case .list(let events)? = item["activity.event"] else {
            Issue.record("activity.event is not a list: \(item)")
            return
        }
        #expect(events.count == 1)
        #expect(events[0].text == "only one")
        #expect(item["title"]?.text == "A")
    }

    @Test func emptyPluralParentGivesEmptyList() throws {
        let tree = try map("<rsp stat=\"ok\"><photos page=\"1\" pages=\"0\" perpage=\"100\" total=\"0\"/></rsp>")
        #expect(tree["photos.photo"] == .list([]))
        #expect(tree["photos.total"]?.string == "0")
    }

    @Test func learnedButNotPluralParentsGetNoInventedList() throws {
        // photosets.getList: a <photoset> holds no <photo> there; no empty list is made up.
        let tree = try map("<rsp stat=\"ok\"><photosets><photoset id=\"1\" photos=\"4\"><title>t</title></photoset></photosets></rsp>")
        #expect(tree["photosets.photoset.0.photo"] == nil)
        #expect(tree["photosets.photoset.0.title"]?.text == "t")
    }

    @Test func repeatedElementsAlwaysBecomeLists() throws {
        let tree = try map("<rsp stat=\"ok\"><thing><x>1</x><x>2</x><x>3</x></thing></rsp>")
        #expect(tree["thing.x"]?.array.compactMap(\.text) == ["1", "2", "3"])
    }

    @Test func entitiesDecodeInTextAndAttributes() throws {
        let xml = #"<rsp stat="ok"><photo title="a &amp; b &#38; c &lt;3 &quot;q&quot; &#039;s&#x263A;"><caption>x &amp; y &#38; z &lt;tag&gt; &#233;</caption></photo></rsp>"#
        let tree = try map(xml)
        #expect(tree["photo.title"]?.string == "a & b & c <3 \"q\" 's☺")
        #expect(tree["photo.caption"]?.text == "x & y & z <tag> é")
    }

    @Test func attributeAndElementWithSameNameKeepBoth() throws {
        let tree = try map(#"<rsp stat="ok"><photo title="attr"><title>elem</title></photo></rsp>"#)
        #expect(tree["photo.title"]?.text == "elem")
        #expect(tree["photo.@title"]?.string == "attr")
    }

    @Test func externalEntitiesAreNeverResolved() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-xxe-\(getpid()).txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xxe = """
        <?xml version="1.0"?>
        <!DOCTYPE rsp [<!ENTITY xxe SYSTEM "file://\(secret.path)">]>
        <rsp stat="ok"><t>before[&xxe;]after</t></rsp>
        """
        #expect(throws: FlickrParseError.self) { try map(xxe) }
        do {
            _ = try map(xxe)
        } catch {
            #expect(!String(describing: error).contains("TOP-SECRET"))
        }
    }

    @Test func billionLaughsFailsFast() throws {
        var doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        doc += "<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
        for i in 2...9 {
            doc += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">\n"
        }
        doc += "]>\n<rsp stat=\"ok\"><t>&lol9;</t><u a=\"&lol9;\"/></rsp>"
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: FlickrParseError.self) { try map(doc) }
        }
        // Expanded, the entities make 3 GB of text: minutes at best. Refused, it is milliseconds;
        // 10 s leaves room for a loaded machine.
        #expect(elapsed < .seconds(10))
    }

    @Test func undefinedEntityIsAnError() {
        #expect(throws: FlickrParseError.self) { try map("<rsp stat=\"ok\"><t>&nope;</t></rsp>") }
    }

    @Test func malformedBodiesFail() {
        for body in ["", "   ", "<rsp stat=\"ok\"><photos>", "<html><body>502</body>", "not xml at all", "<rsp stat=\"ok\"></rs>"] {
            #expect(throws: FlickrParseError.self, "\(body)") { try map(body) }
        }
    }

    @Test func truncatedRecordedBodyFails() throws {
        let data = try Fixtures.data("real/flickr.photos.search.kittens.sybrenstuvel-flickrapi.xml")
        #expect(throws: FlickrParseError.self) { try FlickrXML.parse(Array(data.prefix(data.count / 2))) }
    }

    @Test func failureEnvelope() throws {
        let tree = try FlickrXML.parse(try Fixtures.data("errors/rest.fail.100.invalid-api-key.xml"))
        #expect(tree["stat"]?.string == "fail")
        #expect(tree["err.code"]?.string == "100")
        #expect(tree["err.msg"]?.string?.hasPrefix("Invalid API Key") == true)
    }

    @Test func nonRspRootIsWrapped() throws {
        let tree = try map("<error>BOOM!</error>")
        #expect(tree["error"]?.text == "BOOM!")
    }

    @Test func machineTagFixtureKeepsRawAndClean() throws {
        let tree = try FlickrXML.parse(try Fixtures.data("real/flickr.photos.getInfo.machinetag.sybrenstuvel-flickrapi.xml"))
        let tags = try #require(tree["photo.tags.tag"]?.array)
        #expect(!tags.isEmpty)
        for tag in tags {
            #expect(tag["raw"]?.string != nil)
            #expect(tag.text != nil)
        }
    }
}

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct JSONMappingTests {
    @Test func recordedJSONBodiesMap() throws {
        let files = try Fixtures.files(in: "real", suffix: ".json")
        #expect(files.count >= 4)
        for file in files {
            let tree = try FlickrJSON.parse(try Fixtures.data(file))
            #expect(tree.map != nil, "\(file)")
        }
        let search = try FlickrJSON.parse(try Fixtures.data("real/flickr.photos.search.2024.json"))
        #expect(search["stat"]?.string == "ok")
        let photos = try #require(search["photos.photo"]?.array)
        #expect(!photos.isEmpty)
        // Numbers become strings the way XML has them.
        #expect(search["photos.page"]?.int != nil)
    }

    @Test func contentKeyAndScalars() throws {
        let body = #"jsonFlickrApi({"user":{"id":"21207597@N07","username":{"_content":"jamalfanaian"}},"n":66,"f":1.5,"b":false,"z":null,"stat":"ok"});"#
        let tree = try FlickrJSON.parse(Data(body.utf8))
        #expect(tree["user.username"]?.text == "jamalfanaian")
        #expect(tree["user.username._content"]?.string == "jamalfanaian")
        #expect(tree["n"]?.string == "66")
        #expect(tree["f"]?.string == "1.5")
        #expect(tree["b"]?.string == "0")
        #expect(tree["z"]?.string == "")
    }

    @Test func oauthDocJSON() throws {
        let tree = try FlickrJSON.parse(try Fixtures.data("oauth/flickr.test.login.oauth-doc.json"))
        #expect(tree["user.id"]?.string == "21207597@N07")
    }

    @Test func failureJSON() throws {
        let tree = try FlickrJSON.parse(try Fixtures.data("errors/rest.fail.112.method-not-found.json"))
        #expect(tree["stat"]?.string == "fail")
        #expect(tree["code"]?.string == "112")
    }

    @Test func malformedJSONFails() {
        for body in ["", "{", "jsonFlickrApi({\"a\":)", "<html>"] {
            #expect(throws: FlickrParseError.self, "\(body)") { try FlickrJSON.parse(Data(body.utf8)) }
        }
    }

    @Test func serializeSortsKeysAndEscapes() throws {
        let node: FlickrNode = ["b": "1", "a": ["x\"y\n", "é"]]
        #expect(FlickrJSON.serialize(node) == #"{"a":["x\"y\n","é"],"b":"1"}"#)
        let back = try FlickrJSON.parse(Data(FlickrJSON.serialize(node, pretty: true).utf8))
        #expect(back["a"]?[0]?.string == "x\"y\n")
    }
}
