import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrProtocol

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct CatalogTests {
    @Test func bundledCatalogMatchesFixtures() throws {
        let catalog = MethodCatalog.shared
        let names = try Fixtures.string("methods.txt").split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        #expect(catalog.methods.count == names.count)
        #expect(Set(catalog.names) == Set(names))
        let tsv = try Fixtures.string("methods_perms.tsv").split(separator: "\n").dropFirst()
        for line in tsv {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let m = catalog.method(cols[0]) else { continue }  // groups.browse: 2017 only
            #expect(m.perms.rawValue == cols[1], "\(cols[0])")
            #expect(m.verb == cols[2], "\(cols[0])")
            let required = cols[5].split(separator: ",").map(String.init)
            if cols[0] != "flickr.photosets.getPhotos" { #expect(Set(m.requiredArguments) == Set(required), "\(cols[0])") }
        }
    }

    @Test("The names compiled in beside the catalog (what start-up reads) are the catalog's, in its order")
    func namesIndexIsTheCatalogs() {
        #expect(MethodCatalog.methodNames.count == 223)
        #expect(MethodCatalog.methodNames == MethodCatalog.shared.methods.map(\.name))
    }

    @Test func verbsPermsAndArguments() throws {
        let c = MethodCatalog.shared
        let setTags = try #require(c.method("flickr.photos.setTags"))
        #expect(setTags.verb == "POST")
        #expect(setTags.perms == .write)
        #expect(setTags.requiredArguments == ["photo_id", "tags"])
        #expect(setTags.errors.contains { $0.code == 2 })
        #expect(c.method("photos.search")?.verb == "GET")
        #expect(c.method("flickr.photos.delete")?.perms == .delete)
        #expect(c.method("flickr.photosets.getPhotos")?.optionalArguments.contains("user_id") == true)
        #expect(c.method("flickr.nope") == nil)
        #expect(c.globalErrors.contains { $0.code == 100 })
        #expect(MethodCatalog.examples.count >= 137)
        #expect(FlickrPermission.read < .write && FlickrPermission.write < .delete)
    }
}

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct TagStringTests {
    @Test func parsesLikeFlickr() {
        #expect(TagString.parse("T1 \"T2\" T3") == ["T1", "T2", "T3"])
        #expect(TagString.parse("   T\"1   T\"2   T\"3  ") == ["T1   T2", "T3"])
        #expect(TagString.parse("TaG taG GAT tag gat") == ["TaG", "GAT"])
        #expect(TagString.parse("Amsterdam \"central station\"") == ["Amsterdam", "central station"])
        #expect(TagString.parse("geo:quartier=\"plateau mont royal\"") == ["geo:quartier=plateau mont royal"])
        #expect(TagString.parse("") == [])
    }

    @Test func cleanForms() {
        #expect(TagString.clean("woo yay") == "wooyay")
        #expect(TagString.clean("Hasselblad 500 C/M") == "hasselblad500cm")
        #expect(TagString.clean("Mid-Atlantic") == "midatlantic")
        #expect(TagString.clean("Week in the Life 2017") == "weekinthelife2017")
        #expect(TagString.clean("lens:type=17-55mm F/2.8 IS USM") == "lens:type=1755mmf28isusm")
        #expect(TagString.clean("uploaded:by=instagram") == "uploaded:by=instagram")
        #expect(TagString.clean("Café") == "café")
        #expect(TagString.isMachineTag("dc:title=x"))
        #expect(!TagString.isMachineTag("9dc:title=x"))
    }

    @Test("A tag is stored without double quotes and the spaces around it, and not at all without a letter or digit")
    func storedForms() {
        #expect(TagString.stored("New York \"City\"") == "New York City")
        #expect(TagString.stored(" café ") == "café")
        #expect(TagString.stored("café") == "café")
        #expect(TagString.stored("📷") == nil && TagString.stored("--") == nil)
        #expect(TagString.unstorable(in: "📷 café \"🌅 🌄\" x") == ["📷", "🌅 🌄"])
        #expect(TagString.unstorable(in: "a \"b c\"").isEmpty)
        // parse leaves the unstorable out, as Flickr does.
        #expect(TagString.parse("📷 café") == ["café"])
    }

    @Test func joinQuotesMultiWord() {
        #expect(TagString.join(["cat", "black cat"]) == "cat \"black cat\"")
        #expect(TagString.parse(TagString.join(["cat", "black cat", "a:b=c d"])) == ["cat", "black cat", "a:b=c d"])
    }
}

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct HelpTextTests {
    @Test func helpTextIsPlainAndComplete() throws {
        let m = try #require(MethodCatalog.shared.method("flickr.photos.setTags"))
        let text = m.helpText
        #expect(text.hasPrefix("flickr.photos.setTags  (POST, needs write permission)"))
        #expect(text.contains("Required arguments:\n  photo_id"))
        #expect(text.contains("2 Maximum number of tags reached"))
        let search = try #require(MethodCatalog.shared.method("flickr.photos.search")).helpText
        #expect(search.contains("Optional arguments:"))
        #expect(!search.contains("<a href") && !search.contains("&quot;"))
        #expect(FlickrMethod.plainText("<b>Do</b> &amp; &lt;x&gt;\n  y") == "Do & <x> y")
    }
}

/// Did-you-mean and the catalog's checks before a call.
@Suite(.tags(.unit)) struct CallCheckTests {
    @Test func suggestionsFindNearNames() {
        #expect(Suggestions.closest(to: "photoid", among: ["photo_id", "secret"]) == ["photo_id"])
        #expect(Suggestions.closest(to: "photo_di", among: ["photo_id", "secret"]) == ["photo_id"])
        #expect(Suggestions.closest(to: "xyzzy", among: ["photo_id", "secret"]).isEmpty)
        #expect(MethodCatalog.shared.suggestions(forMethod: "photos.getInfoo").first == "flickr.photos.getInfo")
        #expect(Suggestions.phrase([]) == "")
    }

    @Test func checksNamesArgumentsAndRequiredOnes() throws {
        let catalog = MethodCatalog.shared
        #expect(try catalog.check("flickr.photos.getinfo", argumentNames: ["photo_id"]) == "flickr.photos.getInfo")
        #expect(try catalog.check("photos.getInfo", argumentNames: ["photo_id", "format", "nojsoncallback"]) == "flickr.photos.getInfo")
        #expect(throws: CallCheckFailure.self) { try catalog.check("flickr.photos.getInfo", argumentNames: []) }
        #expect(throws: CallCheckFailure.self) { try catalog.check("flickr.photos.getInfo", argumentNames: ["photo_id", "extra"]) }
        #expect(throws: CallCheckFailure.self) { try catalog.check("flickr.no.such", argumentNames: []) }
        // Not strict: only the spelling of a known method changes.
        #expect(try catalog.check("flickr.no.such", argumentNames: ["x"], strict: false) == "flickr.no.such")
        #expect(try catalog.check("flickr.photos.getinfo", argumentNames: [], strict: false) == "flickr.photos.getInfo")
        // Echo takes anything; arguments the reference marks required by mistake are not required.
        #expect(try catalog.check("flickr.test.echo", argumentNames: ["anything"]) == "flickr.test.echo")
        #expect(try catalog.check("flickr.photosets.getPhotos", argumentNames: ["photoset_id"]) == "flickr.photosets.getPhotos")
        do {
            _ = try catalog.check("flickr.photos.setMeta", argumentNames: ["photo_id"])
        } catch {
            #expect(error.description == "flickr.photos.setMeta: missing required arguments title, description")
        }
    }
}
