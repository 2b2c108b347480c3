import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrAPI

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct ProfileTests {
    func tempStore() throws -> ProfileStore {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-profiles-\(UUID().uuidString)/flickr")
        return ProfileStore(directory: dir)
    }

    @Test func savesAtomicallyWithMode0600() throws {
        let store = try tempStore()
        let p = FlickrProfile(apiKey: "k", apiSecret: "s", oauthToken: "t", oauthTokenSecret: "ts", userNSID: "1@N01", username: "bees")
        try store.save(p, as: "default")
        let file = try store.url(for: "default")
        let attrs = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try store.load("default") == p)
        // No temporary file is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(names == ["default.json"])
        var q = p
        q.oauthToken = "t2"
        try store.save(q, as: "default")
        #expect(try store.load("default")?.oauthToken == "t2")
        #expect(try store.delete("default"))
        #expect(try store.load("default") == nil)
        #expect(try !store.delete("default"))
    }

    @Test func badNamesAreRefused() throws {
        let store = try tempStore()
        for name in ["", "../x", ".hidden", "a/b"] {
            #expect(throws: FlickrError.self) { try store.url(for: name) }
        }
    }

    @Test func resolutionOrderExplicitThenEnvironmentThenProfile() throws {
        let store = try tempStore()
        try store.save(FlickrProfile(apiKey: "pk", apiSecret: "ps", oauthToken: "pt", oauthTokenSecret: "pts"), as: "work")
        let env = ["FLICKR_API_KEY": "ek", "FLICKR_PROFILE": "work", "FLICKR_ENDPOINT": "http://127.0.0.1:9"]
        let ctx = try FlickrContext.resolve(explicit: FlickrProfile(apiSecret: "xs"), environment: env, store: store)
        #expect(ctx.apiKey == "ek")           // environment beats the profile
        #expect(ctx.sharedSecret == "xs")     // explicit beats both
        #expect(ctx.oauthToken == "pt")       // profile fills the rest
        #expect(ctx.endpoints.rest == "http://127.0.0.1:9/services/rest/")
        #expect(ctx.ratePolicy == .unlimited)
        // "default" does not exist and nothing else gives a key: the error says what to set, in Swift terms.
        let missing = #expect(throws: FlickrError.self) { try FlickrContext.resolve(environment: [:], store: store) }
        #expect(missing?.kind == .usage && missing?.localizedDescription.contains("FlickrContext(apiKey:") == true
                && missing?.localizedDescription.contains("FLICKR_API_KEY") == true
                && missing?.localizedDescription.contains("flickr login") == false, "\(String(describing: missing?.localizedDescription))")
        #expect(!FlickrProfile(apiSecret: "secret-value-123").description.contains("secret-value-123"))
    }

    @Test func oneResolverNamesTheProfileItRead() throws {
        let store = try tempStore()
        try store.save(FlickrProfile(apiKey: "pk", oauthToken: "pt"), as: "work")
        try store.save(FlickrProfile(apiKey: "dk"), as: "default")
        let resolver = CredentialResolver(environment: ["FLICKR_PROFILE": "work", "FLICKR_OAUTH_TOKEN": "et"], store: store)
        let fromEnv = try resolver.resolve()
        #expect(fromEnv.profileName == "work" && fromEnv.profileExists)
        #expect(fromEnv.credentials.apiKey == "pk" && fromEnv.credentials.oauthToken == "et")
        let explicit = try resolver.resolve(explicit: FlickrProfile(apiKey: "xk"), profile: "default")
        #expect(explicit.profileName == "default" && explicit.credentials.apiKey == "xk" && explicit.credentials.oauthToken == "et")
        // A profile named on purpose that does not exist is an error listing those that do.
        #expect(throws: FlickrError.self) { try resolver.resolve(profile: "nope") }
        do {
            _ = try resolver.resolve(profile: "nope")
        } catch {
            #expect(error.kind == .usage && error.message.contains("there are: default, work"), "\(error)")
        }
        // "default" when nobody named it may be missing: the environment alone can be enough.
        let unnamed = try CredentialResolver(environment: ["FLICKR_API_KEY": "ek"], store: try tempStore()).resolve()
        #expect(unnamed.profileName == "default" && !unnamed.profileExists && unnamed.credentials.apiKey == "ek")
        #expect(store.names() == ["default", "work"])
    }
}
