import FlickrProtocol
import Testing
import FlickrTestSupport
@testable import FlickrShell

/// `:help`, `:doc`, `:time`, `:quit` parsing and the `:doc` text from the method catalog.
@Suite("REPL commands", .timeLimit(.minutes(5)), .tags(.unit), .kind("unit"))
struct REPLCommandTests {
    @Test("parsing: commands, arguments, usage errors, unknown names, and Lua that starts with ::")
    func parse() {
        #expect(REPLCommand.parse(":help") == .help)
        #expect(REPLCommand.parse("  :quit  ") == .quit)
        #expect(REPLCommand.parse(":q") == .quit)
        #expect(REPLCommand.parse(":doc flickr.photos.search") == .doc("flickr.photos.search"))
        #expect(REPLCommand.parse(":time  1 + 1 ") == .time("1 + 1"))
        #expect(REPLCommand.parse(":history") == .history)
        if case .usage = REPLCommand.parse(":doc") {} else { Issue.record(":doc without a method is a usage error") }
        if case .usage = REPLCommand.parse(":time") {} else { Issue.record(":time without an expression is a usage error") }
        #expect(REPLCommand.parse(":frob x") == .unknown("frob"))
        #expect(REPLCommand.parse("::top:: goto top") == nil)
        #expect(REPLCommand.parse("x = 1") == nil)
    }

    @Test(":doc prints description, required and optional arguments, perms, verb and errors")
    func doc() throws {
        let (text, found) = REPLText.doc("flickr.photos.addTags")
        #expect(found)
        let method = try #require(MethodCatalog.shared.method("flickr.photos.addTags"))
        #expect(text.hasPrefix("flickr.photos.addTags  (\(method.verb), perms: \(method.perms.rawValue)"))
        #expect(text.contains("  required:\n    photo_id"))
        #expect(text.contains("    tags"))
        #expect(text.contains("  errors:"))
        for e in method.errors { #expect(text.contains("    \(e.code) ")) }
        #expect(!text.contains("<"))  // HTML tags stripped
        #expect(text.contains("call: flickr.photos.addTags{ photo_id = …, tags = … }"))
    }

    @Test(":doc accepts the name without flickr. and with ()")
    func docShortNames() {
        #expect(REPLText.doc("photos.search").found)
        #expect(REPLText.doc("flickr.test.echo()").found)
        #expect(REPLText.doc("photos.search").text.hasPrefix("flickr.photos.search  (GET"))
    }

    @Test(":doc of an unknown method says so and suggests similar names")
    func docUnknown() {
        let (text, found) = REPLText.doc("getSizes")
        #expect(!found)
        #expect(text.contains("no method 'getSizes'"))
        #expect(text.contains("flickr.photos.getSizes"))
    }

    @Test("catalog HTML becomes plain text")
    func plain() {
        #expect(REPLText.plain("A <a href=\"x\">link</a> &amp; &quot;q&quot;\n  more") == "A link & \"q\" more")
    }

    @Test("the note about locals is for `local x`, not `local function` or other statements")
    func localNote() {
        #expect(REPLLoop.declaresLocal("local x = 1"))
        #expect(REPLLoop.declaresLocal("  local a, b = 1, 2"))
        #expect(!REPLLoop.declaresLocal("local function f() end"))
        #expect(!REPLLoop.declaresLocal("localx = 1"))
        #expect(!REPLLoop.declaresLocal("x = 1"))
    }
}
