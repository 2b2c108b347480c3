import CFlickrXML
import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrProtocol

@Suite(.timeLimit(.minutes(5)), .tags(.unit), .kind("unit")) struct XMLMappingTests {
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

    /// Parsing threads are parked and reused: documents one after another take one thread;
    /// documents at once take a thread each, and of those only `parkedLimit` stay parked.
    @Test func parsingThreadsAreReused() {
        let threads = FlickrXMLTape.ParsingThreads()
        let limit = FlickrXMLTape.ParsingThreads.parkedLimit
        /// Polls (bounded) for a thread to park: it does so after its job has signalled.
        func waitForParked(_ n: Int) {
            let deadline = Date().addingTimeInterval(10)
            while threads.counts.parked < n && Date() < deadline { usleep(1000) }
        }
        for _ in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            threads.run { done.signal() }
            #expect(done.wait(timeout: .now() + 10) == .success)
            waitForParked(1)
        }
        #expect(threads.counts.started == 1, "20 documents in turn: \(threads.counts)")
        let running = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            threads.run {
                running.signal()
                release.wait()
                finished.signal()
            }
        }
        for _ in 0..<4 { #expect(running.wait(timeout: .now() + 10) == .success) }
        #expect(threads.counts.started == 4, "four at once: the parked thread and three new ones (\(threads.counts))")
        for _ in 0..<4 { release.signal() }
        for _ in 0..<4 { #expect(finished.wait(timeout: .now() + 10) == .success) }
        waitForParked(limit)
        #expect(threads.counts.parked == limit)
    }

    /// The two-thread path (FlickrXMLTape) builds the tree the one-thread path builds: every doc
    /// example and fixture with the tape forced, and a large document of many chunks; a broken
    /// large document is a parse error.
    @Test func theTapeBuildsTheSameTree() throws {
        var docs = try Fixtures.files(in: "doc-examples", suffix: ".xml").map { Fixtures.wrapped(try Fixtures.string($0)) }
        docs += try Fixtures.files(in: "", suffix: ".xml").map { file in
            let text = try Fixtures.string(file)
            return text.contains("<rsp") ? text : Fixtures.wrapped(text)
        }
        var big = "<rsp stat=\"ok\"><photos page=\"1\">"
        for i in 0..<6_000 { big += "<photo id=\"\(i)\" title=\"a &amp; b &#38;#38; \(i)\"><note>n \(i) &lt;</note></photo>" }
        big += "</photos><big>" + String(repeating: "y", count: 150_000) + "</big></rsp>"
        docs.append(big)
        #expect(big.utf8.count > FlickrXMLTape.threshold)
        // Past the tape's first table of names (256 slots, grown at three quarters) and its
        // attribute buffer (64 on the stack): 400 element names, an element of 100 attributes.
        var names = "<rsp stat=\"ok\"><many>"
        for i in 0..<400 { names += "<e\(i) a\(i)=\"\(i)\">t\(i)</e\(i)>" }
        names += "<wide " + (0..<100).map { "w\($0)=\"v\($0)\"" }.joined(separator: " ") + "/></many></rsp>"
        docs.append(names)
        for doc in docs {
            let bytes = Array(doc.utf8)
            let one: Result<FlickrNode, FlickrParseError> = bytes.withUnsafeBytes { raw in
                do throws(FlickrParseError) { return .success(try FlickrXML.parse(raw, rule: MethodCatalog.listRule, pipelineThreshold: .max)) }
                catch { return .failure(error) }
            }
            let two: Result<FlickrNode, FlickrParseError> = bytes.withUnsafeBytes { raw in
                do throws(FlickrParseError) { return .success(try FlickrXML.parse(raw, rule: MethodCatalog.listRule, pipelineThreshold: 0)) }
                catch { return .failure(error) }
            }
            #expect(try one.get() == two.get(), "\(doc.prefix(100))")
        }
        // An attribute whose decoded value holds `&#38;` keeps it (decoded once, not twice).
        let tree = try FlickrXML.parse(Array(big.utf8))
        #expect(tree["photos.photo"]?.array.first?["title"]?.string == "a & b &#38; 0")
        let broken = Array(big.utf8.prefix(big.utf8.count - 200_000))
        #expect(throws: FlickrParseError.self) { try FlickrXML.parse(broken) }
        // Both paths report a broken document alike: libxml2's message and line.
        let errors = [Int.max, 0].map { threshold -> FlickrParseError? in
            broken.withUnsafeBytes { raw in
                do throws(FlickrParseError) {
                    _ = try FlickrXML.parse(raw, rule: MethodCatalog.listRule, pipelineThreshold: threshold)
                    return nil
                } catch { return error }
            }
        }
        #expect(errors[0] != nil && errors[0]?.message == errors[1]?.message && errors[0]?.line == errors[1]?.line)
    }

    /// A document cut in two (FlickrXMLTape.Split: the parsing thread parses up to a start tag,
    /// the calling thread the rest) maps as the one-thread path maps it. The cut is taken when it
    /// checks, and not when the start tag found is inside a comment or a CDATA section, when the
    /// elements open there are not those open at the first element of its name, under a
    /// namespace, or in a transcoded document; an error on either side of it is reported with the
    /// one-thread path's message and line.
    /// The tape's chunks shrink towards the end of the document, by how far the parser is in it:
    /// a list whose attribute names are long (the tape much smaller than the XML) ended on a
    /// chunk of 37 kB after full 64 KiB ones when the end was judged from the tape's bytes.
    @Test func theTapesLastChunksAreSmall() {
        let photos = (0..<3000).map {
            "<photo id=\"\($0)\" owner=\"12345678@N0\($0 % 8)\" secret=\"0123456789\" server=\"65535\" dateupload=\"16000\($0)\" "
                + "ispublic=\"1\" isfriend=\"0\" isfamily=\"0\" license=\"\($0 % 10)\" originalformat=\"jpg\" />\n"
        }.joined()
        let doc = Array(("<rsp stat=\"ok\"><photos page=\"1\">\n" + photos + "</photos></rsp>").utf8)
        final class Sizes: @unchecked Sendable { var all: [Int] = [] }
        let sizes = Sizes()
        var sink = fx_tape_sink(put: { ctx, chunk, count, _ in
            Unmanaged<Sizes>.fromOpaque(ctx!).takeUnretainedValue().all.append(count)
            free(chunk)
        }, ctx: Unmanaged.passUnretained(sizes).toOpaque())
        let first = 8 * 1024, chunk = 64 * 1024
        let rc = withExtendedLifetime(sizes) {
            doc.withUnsafeBytes { fx_record($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, &sink, first, chunk) }
        }
        #expect(rc == 0)
        let tape = sizes.all.reduce(0, +)
        #expect(tape < doc.count * 9 / 10, "tape \(tape) bytes for \(doc.count) of XML")
        #expect(sizes.all.count > 4 && sizes.all.max() ?? 0 <= chunk + 4096, "\(sizes.all)")
        // Each chunk near the end is at most half of what was left, and none less than the first
        // but the last: the last two are small.
        #expect(sizes.all.suffix(2).allSatisfy { $0 <= 2 * first }, "\(sizes.all)")
    }

    @Test func aDocumentCutInTwoMapsAsOne() throws {
        func one(_ doc: [UInt8]) -> Result<FlickrNode, FlickrParseError> {
            doc.withUnsafeBytes { raw in
                do throws(FlickrParseError) { return .success(try FlickrXML.parse(raw, rule: MethodCatalog.listRule, pipelineThreshold: .max)) }
                catch { return .failure(error) }
            }
        }
        func cut(_ doc: [UInt8], share: Double) -> (result: Result<FlickrNode, FlickrParseError>, split: Bool) {
            let sink = FlickrTreeSink()
            let (result, split) = doc.withUnsafeBytes { FlickrXMLTape.mapReportingSplit($0, rule: MethodCatalog.listRule, into: sink, callerShare: share) }
            return (result.map { name in
                let root = sink.root ?? .map(FlickrMap())
                return name == "rsp" ? root : .map(FlickrMap(keys: [name], values: [root]))
            }, split)
        }
        let (head, tail, photos) = (PhotoListXML.head, PhotoListXML.tail, PhotoListXML.photos)
        let cases: [(what: String, doc: String, share: Double, split: Bool)] = [
            ("a list", head + photos(0..<2000) + tail, 0.36, true),
            ("text, CDATA, a comment and entities after the cut",
             head + photos(0..<1000) + "\t<photo id=\"x\">text <![CDATA[<raw> & ]]> &#233;<!-- c --></photo>\n" + photos(1000..<1100) + tail, 0.2, true),
            ("a start tag inside a comment",
             head + photos(0..<1000) + "<!-- " + photos(1000..<2000) + " -->\n" + photos(2000..<2100) + tail, 0.25, false),
            ("a start tag inside CDATA",
             head + photos(0..<1000) + "\t<photo id=\"c\"><tag><![CDATA[" + photos(1000..<2000) + "]]></tag></photo>\n" + photos(2000..<2100) + tail, 0.25, false),
            ("other elements open than at the first of its name",
             head + photos(0..<1000) + "\t<set id=\"s\">\n" + photos(1000..<2000) + "\t</set>\n" + photos(2000..<2100) + tail, 0.25, false),
            ("a namespace", head.replacingAll("<rsp stat=\"ok\">", with: "<rsp stat=\"ok\" xmlns:f=\"urn:f\">") + photos(0..<2000) + tail, 0.36, false),
            ("a transcoded document", head.replacingAll("utf-8", with: "ISO-8859-1") + photos(0..<2000) + tail, 0.36, false),
            ("an error after the cut", head + photos(0..<1900) + "\t<photo id=\"e\"><tag>x</tg></photo>\n" + photos(1900..<2000) + tail, 0.36, false),
            ("an error before the cut", head + photos(0..<100) + "\t<photo id=\"e\"><tag>x</tg></photo>\n" + photos(100..<2000) + tail, 0.36, false),
        ]
        for c in cases {
            let bytes = Array(c.doc.utf8)
            let (result, split) = cut(bytes, share: c.share)
            #expect(split == c.split, "\(c.what): split \(split)")
            switch (one(bytes), result) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(c.what)")
                #expect((a["photos.photo"]?.array.count ?? 0) >= 1100, "\(c.what)")
            case (.failure(let a), .failure(let b)):
                #expect(c.what.hasPrefix("an error") && a.message == b.message && a.line == b.line && a.line != nil, "\(c.what): \(a) vs \(b)")
            default:
                Issue.record("\(c.what): one thread \(one(bytes)), cut in two \(result)")
            }
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

    /// A sink other than the tree (Lua tables) also has its calling thread parse a share of a
    /// large list (``FlickrXMLTape/tableCallerShare``): the list is cut in two by default, and
    /// the sink sees the events that one thread gives it, in order.
    @Test func otherSinksGetTheirListCutInTwo() throws {
        let bytes = Array(PhotoListXML.document(photos: 3_000).utf8)
        #expect(bytes.count > FlickrXMLTape.threshold)
        #expect(FlickrXMLTape.tableCallerShare > 0)
        let one = EventSink()
        let oneRoot = try bytes.withUnsafeBytes { raw in try FlickrXMLMapper.map(raw, rule: MethodCatalog.listRule, into: one) }
        let cut = EventSink()
        let (result, split) = bytes.withUnsafeBytes { FlickrXMLTape.mapReportingSplit($0, rule: MethodCatalog.listRule, into: cut) }
        #expect(split, "the default share for a sink other than the tree cuts a large list")
        #expect(try result.get() == oneRoot)
        #expect(cut.events.count == one.events.count && cut.events.count > 9_000)
        #expect(cut.events == one.events, "first difference: \(zip(cut.events, one.events).first { $0 != $1 }.map { "\($0)" } ?? "none")")
    }

    /// The tape's chunks: a small first one (the replay starts soon), full ones in the middle,
    /// then each about half of what is left, so that the last — which the building thread
    /// replays after parsing is over — is small; each goes over at the first record past its fill.
    @Test func tapeChunksShrinkTowardTheEnd() throws {
        var doc = "<rsp stat=\"ok\"><photos>"
        for i in 0..<8_000 { doc += "<photo id=\"\(i)\" title=\"photo number \(i)\" tags=\"a b c d\"/>" }
        doc += "</photos></rsp>"
        final class Sizes { var all: [Int] = [] }
        let sizes = Sizes()
        var sink = fx_tape_sink(put: { ctx, chunk, count, _ in
            Unmanaged<Sizes>.fromOpaque(ctx!).takeUnretainedValue().all.append(count)
            free(chunk)
        }, ctx: Unmanaged.passUnretained(sizes).toOpaque())
        let first = 8 * 1024, full = 64 * 1024, record = 128  // no record here is longer
        let bytes = Array(doc.utf8)
        let rc = bytes.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { fx_record($0.baseAddress, $0.count, &sink, first, full) }
        }
        #expect(rc == 0)
        let all = sizes.all
        try #require(all.count >= 6, "\(all)")
        #expect(all[0] >= first && all[0] < first + record, "\(all)")
        let peak = try #require(all.firstIndex { $0 >= full }, "no full chunk: \(all)")
        let tail = Array(all[peak..<(all.count - 1)])  // the last one holds what was left
        #expect(tail.count >= 4, "\(all)")
        #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 <= $0 + record }, "\(all)")
        #expect(tail.allSatisfy { $0 >= first } && tail.last! < 2 * first + record, "\(all)")
        #expect(all.last! < 2 * first + record, "\(all)")
        #expect(all.reduce(0, +) >= bytes.count * 9 / 10, "\(all)")
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

@Suite(.timeLimit(.minutes(5)), .tags(.unit), .kind("unit")) struct JSONMappingTests {
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
