import FlickrJobs
import FlickrTestSupport
import Testing

@Suite("Retag rules and the per-photo step", .tags(.unit))
struct RuleAndStepTests {
    @Test("rename matches the clean form with Unicode case folding and writes the new raw form exactly")
    func rename() throws {
        let rule = try RetagRule.renaming("Reykjavík", to: "\"Reykjavík, Iceland\"")
        #expect(RetagRule.apply([rule], to: ["reykjavík", "night"]) == ["\"Reykjavík, Iceland\"", "night"])
        // A case-only rename changes the raw form.
        #expect(RetagRule.apply([try RetagRule.renaming("paris", to: "Paris")], to: ["paris"]) == ["Paris"])
        // Several renames into one tag, or into a tag the photo has, leave one.
        let merge = [try RetagRule.renaming("nyc", to: "New York"), try RetagRule.renaming("newyorkcity", to: "New York")]
        // ("New York City" cleans to "newyorkcity", so the second rule takes it too.)
        #expect(RetagRule.apply(merge, to: ["nyc", "New York City", "newyorkcity", "bridge"]) == ["New York", "bridge"])
        #expect(RetagRule.apply([try RetagRule.renaming("nyc", to: "new york")], to: ["New York", "nyc"]) == ["New York"])
    }

    @Test("add, remove, and machine-tag rewrites with wildcards and quoted values")
    func addRemoveMachine() throws {
        #expect(RetagRule.apply([.add("old town")], to: ["Old Town"]) == ["Old Town"])
        #expect(RetagRule.apply([.add("old town")], to: ["tram"]) == ["tram", "old town"])
        #expect(RetagRule.apply([.remove("OLD TOWN")], to: ["old town", "tram"]) == ["tram"])
        let machine = try RetagRule.renaming("camera:make=*", to: "cam:make=*")
        #expect(RetagRule.apply([machine], to: ["camera:make=Fujifilm", "camera:model=X-T3"]) == ["cam:make=Fujifilm", "camera:model=X-T3"])
        let value = try RetagRule.renaming("geo:quartier=plateau mont royal", to: "geo:quartier=Le Plateau")
        #expect(RetagRule.apply([value], to: ["geo:quartier=Plateau Mont Royal"]) == ["geo:quartier=Le Plateau"])
        #expect(throws: RetagRuleError.self) { try RetagRule.renaming("tram*", to: "x") }
        #expect(throws: RetagRuleError.self) { try RetagRule.renaming("!!!", to: "x") }
    }

    static func tags(_ own: [(String, String)], others: [(String, String)] = [], lastUpdate: Int = 100) -> PhotoTags {
        PhotoTags(photoID: "1", owner: "me", lastUpdate: lastUpdate,
                  tags: own.map { PhotoTag(id: $0.0, author: "me", raw: $0.1) } + others.map { PhotoTag(id: $0.0, author: "them", raw: $0.1) })
    }

    @Test("one setTags without others' tags; remove-then-add with them; done and conflicts from a read")
    func steps() {
        let pre = Self.tags([("a", "paris"), ("b", "night")])
        let change = PhotoChange(pre: pre, target: ["Paris", "night"])
        #expect(PhotoStep.next(change, current: nil) == .write(.setTags(["Paris", "night"])))
        let shared = PhotoChange(pre: Self.tags([("a", "paris"), ("b", "night")], others: [("c", "great shot")]), target: ["Paris", "night"])
        #expect(PhotoStep.next(shared, current: nil) == .write(.removeThenAdd(remove: [PhotoTag(id: "a", author: "me", raw: "paris")], add: ["Paris"])))
        // Settled by a read: already there; half-way (ours); changed by someone else.
        #expect(PhotoStep.next(shared, current: Self.tags([("d", "night"), ("e", "Paris")], others: [("c", "great shot")])) == .done)
        #expect(PhotoStep.next(shared, current: Self.tags([("b", "night")], others: [("c", "great shot")]))
                == .write(.removeThenAdd(remove: [], add: ["Paris"])))
        if case .conflict = PhotoStep.next(shared, current: Self.tags([("b", "night"), ("x", "surprise")], others: [("c", "great shot")])) {} else {
            Issue.record("a tag added elsewhere must be a conflict")
        }
        if case .conflict = PhotoStep.next(shared, current: Self.tags([("a", "paris"), ("b", "night")])) {} else {
            Issue.record("another member's tag removed must be a conflict")
        }
    }
}
