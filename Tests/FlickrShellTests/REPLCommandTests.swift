import FlickrProtocol
import Testing
import FlickrTestSupport
@testable import FlickrShell

/// `:help`, `:doc`, `:time`, `:quit` parsing and the `:doc` text from the method catalog.
@Suite("REPL commands", .timeLimit(.minutes(5)), .tags(.unit))
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

    @Test(":doc shows the catalog's help (the renderer of flickr help and flickr.help): arguments, errors, a Lua call")
    func doc() throws {
        let (text, found) = REPLText.doc("flickr.photos.addTags")
        #expect(found)
        let method = try #require(MethodCatalog.shared.method("flickr.photos.addTags"))
        #expect(text == method.helpText)
        #expect(text.hasPrefix("flickr.photos.addTags  (\(method.verb), needs \(method.perms.rawValue) permission)"))
        #expect(text.contains("Required arguments:\n  photo_id"))
        #expect(text.contains("  tags"))
        #expect(text.contains("Errors:"))
        for e in method.errors { #expect(text.contains("  \(e.code) ")) }
        #expect(!text.contains("<") && !text.contains("&#") && !text.contains("&mdash;"))
        #expect(text.contains("Lua: flickr.photos.addTags{ photo_id = …, tags = … }"))
    }

    @Test(":doc accepts the name without flickr., in any case, with (), and a group")
    func docShortNames() {
        #expect(REPLText.doc("photos.search").found)
        #expect(REPLText.doc("flickr.test.echo()").found)
        #expect(REPLText.doc("photos.SEARCH").text.hasPrefix("flickr.photos.search  (GET"))
        let group = REPLText.doc("photos.comments")
        #expect(group.found && group.text.hasPrefix("Methods in photos.comments:") && group.text.contains("flickr.photos.comments.addComment"))
    }

    @Test(":doc of an unknown name says so and suggests the nearest methods")
    func docUnknown() {
        let (text, found) = REPLText.doc("photos.getSizez")
        #expect(!found)
        #expect(text.contains("no such method or group"))
        #expect(text.contains("did you mean flickr.photos.getSizes"))
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
