import FlickrJobs
import FlickrProtocol
import FlickrTestSupport
import Foundation
import Testing

/// The edit engine's values and decisions, apart from any request:
/// what the options mean, what each photo's plan is, and the next write of a photo.
@Suite("Edit jobs: options, targets, the next write, the calls", .timeLimit(.minutes(3)), .tags(.unit))
struct EditUnitTests {
    static let alice = "10000001@N01"

    static func photo(taken: String = "2019-07-02 14:03:00", granularity: Int = 0, sets: [String]? = ["72157600000000001"],
                      tags: [String] = ["tram", "lisbon"]) -> PhotoMetadata {
        PhotoMetadata(photoID: "52000000001", owner: alice, lastUpdate: 1_600_000_000, title: "IMG_0042", description: "",
                      dateTaken: taken, takenGranularity: granularity, license: 0, safety: 1, sets: sets,
                      tags: tags.enumerated().map { PhotoTag(id: "t\($0.offset)", author: alice, raw: $0.element) }
                          + [PhotoTag(id: "b1", author: "20000002@N02", raw: "bob was here")])
    }

    @Test("Privacy, location, safety and content type read as the options say; the rest is refused with what is expected")
    func options() throws {
        #expect(try Privacy.parse("friends,family") == Privacy(isPublic: false, isFriend: true, isFamily: true))
        #expect(try Privacy.parse("family, friends").description == "friends,family")
        #expect(try Privacy.parse("private").description == "private")
        #expect(throws: EditSpecError.self) { try Privacy.parse("friends,public") }
        #expect(try GeoPoint.parse("64.1466,-21.9426") == GeoPoint(latitude: 64.1466, longitude: -21.9426, accuracy: 16))
        #expect(try GeoPoint.parse("0,0,3").accuracy == 3)
        for bad in ["91,0", "0,181", "1,2,17", "1,2,0", "north", "1"] {
            #expect(throws: EditSpecError.self, "\(bad)") { try GeoPoint.parse(bad) }
        }
        #expect(try EditSpec.safety("restricted") == 3 && EditSpec.contentType("Screenshot") == 2)
        #expect(throws: EditSpecError.self) { try EditSpec.safety("strict") }
    }

    @Test("Dates taken: --set-taken's forms give their granularity; --shift-taken's durations; 1900 and the future refused")
    func dates() throws {
        #expect(try TakenDate.parse("2019-07-02 14:03:00") == ("2019-07-02 14:03:00", 0))
        #expect(try TakenDate.parse("2019-07-02T14:03") == ("2019-07-02 14:03:00", 0))
        #expect(try TakenDate.parse("2019-07-02") == ("2019-07-02 00:00:00", 0))
        #expect(try TakenDate.parse("2019-07") == ("2019-07-01 00:00:00", 4))
        #expect(try TakenDate.parse("2019") == ("2019-01-01 00:00:00", 6))
        #expect(try TakenDate.parse("circa 1975") == ("1975-01-01 00:00:00", 8))
        for bad in ["2019-02-30", "02/07/2019", "yesterday", "2019-13"] {
            #expect(throws: EditSpecError.self, "\(bad)") { try TakenDate.parse(bad) }
        }
        #expect(try TakenDate.shift("+3h") == 10_800)
        #expect(try TakenDate.shift("-1d2h") == -93_600)
        #expect(try TakenDate.shift("+1w30s") == 604_830)
        for bad in ["3h", "+3x", "+1h1d", "+h", "+0h", "-", "+3"] {
            #expect(throws: EditSpecError.self, "\(bad)") { try TakenDate.shift(bad) }
        }
    }

    @Test("Templates read the photo's fields, dates formatted; an unknown field or a stray brace is refused when read")
    func templates() throws {
        let t = try EditTemplate("{date_taken:%Y-%m-%d} {title} {{{id}}}", option: "--title")
        #expect(t.render(["date_taken": "2019-07-02 14:03:00", "title": "Reykjavík", "id": "5"]) == "2019-07-02 Reykjavík {5}")
        let upload = try EditTemplate("{date_upload:%B %Y, day %j}", option: "--description")
        #expect(upload.render(["date_upload": "1562025600"]) == "July 2019, day 183")
        #expect(throws: EditSpecError.self) { try EditTemplate("{place}", option: "--title") }
        #expect(throws: EditSpecError.self) { try EditTemplate("{title:%Y}", option: "--title") }
        #expect(throws: EditSpecError.self) { try EditTemplate("{title", option: "--title") }
        #expect(throws: EditSpecError.self) { try EditTemplate("title}", option: "--title") }
    }

    @Test("An unknown date directive is refused when the template is read, naming it and the known ones; {date_taken} reads the date the photo will have")
    func templateDirectives() throws {
        let error = #expect(throws: EditSpecError.self) { try EditTemplate("{date_taken:%A %d %B} {title}", option: "--title") }
        #expect(error?.message.contains("%A is not a date directive") == true && error?.message.contains("%Y %y %m %d %H %M %S %j %b %B %%") == true,
                "\(error?.message ?? "")")
        let trailing = #expect(throws: EditSpecError.self) { try EditTemplate("{date_taken:%Y%}", option: "--description") }
        #expect(trailing?.message.hasPrefix("--description: {date_taken:%Y%}") == true, "\(trailing?.message ?? "")")
        #expect(try EditTemplate("{date_taken:%d %B %Y, 100%%}", option: "--title").render(["date_taken": "2019-07-02 14:03:00"]) == "02 July 2019, 100%")
        // --shift-taken: the title's {date_taken} is the shifted date, as the photo will have it.
        var spec = EditSpec()
        spec.title = try EditTemplate("{date_taken:%Y-%m-%d %H:%M} {title}", option: "--title")
        spec.shiftTaken = try TakenDate.shift("+10h")
        let pre = Self.photo(taken: "2019-07-02 14:03:00")
        let targets = try spec.targets(for: pre, fields: EditPlanner.fields(pre, info: nil)).get()
        #expect(targets.contains(.meta(title: "2019-07-03 00:03 IMG_0042", description: "")), "\(targets)")
        #expect(targets.contains(.dates(taken: "2019-07-03 00:03:00", granularity: 0)), "\(targets)")
    }

    @Test("--shift-taken moves a date known to the month or year as a whole: -9h keeps March 2019, 2019 and circa 2019; a shift past half the unit moves it a whole unit")
    func shiftKeepsGranularity() throws {
        func shifted(_ taken: String, _ granularity: Int, _ by: String) throws -> EditValue? {
            var spec = EditSpec()
            spec.shiftTaken = try TakenDate.shift(by)
            let pre = Self.photo(taken: taken, granularity: granularity)
            return try spec.targets(for: pre, fields: EditPlanner.fields(pre, info: nil)).get().first { $0.field == .dates }
        }
        // Within the known unit: nothing to change.
        #expect(try shifted("2019-03-01 00:00:00", 4, "-9h") == nil)
        #expect(try shifted("2019-01-01 00:00:00", 6, "-9h") == nil)
        #expect(try shifted("2019-01-01 00:00:00", 8, "-9h") == nil)
        #expect(try shifted("2019-01-01 00:00:00", 6, "+20w") == nil)
        // Past half of it: a whole unit, the granularity kept.
        #expect(try shifted("2019-03-01 00:00:00", 4, "+20d") == .dates(taken: "2019-04-01 00:00:00", granularity: 4))
        #expect(try shifted("2019-03-01 00:00:00", 4, "-20d") == .dates(taken: "2019-02-01 00:00:00", granularity: 4))
        #expect(try shifted("2019-01-01 00:00:00", 6, "-30w") == .dates(taken: "2018-01-01 00:00:00", granularity: 6))
        #expect(try shifted("2019-01-01 00:00:00", 8, "+30w") == .dates(taken: "2020-01-01 00:00:00", granularity: 8))
        // To the second: moved by the shift itself.
        #expect(try shifted("2019-03-01 00:00:00", 0, "-9h") == .dates(taken: "2019-02-28 15:00:00", granularity: 0))
        // The diff names the granularity on both sides.
        #expect(EditValue.dates(taken: "2019-03-01 00:00:00", granularity: 4).description == "taken 2019-03-01 00:00:00 (known to the month)")
        #expect(EditValue.dates(taken: "2019-03-01 10:00:00", granularity: 0).description == "taken 2019-03-01 10:00:00 (known to the second)")
    }

    @Test("Licences by id or by name as photos.licenses.getInfo gives them, loosely; none or several matching is refused")
    func licences() throws {
        let tree = try FlickrXML.parse(try Fixtures.data("flickr.photos.licenses.getInfo.xml"), rule: .pluralOnly)
        let list = (tree["licenses"]?["license"]?.array ?? []).compactMap { l -> (id: Int, name: String)? in
            guard let id = l["id"]?.int, let name = l["name"]?.string else { return nil }
            return (id, name)
        }
        try #require(list.count >= 9)
        #expect(try EditSpec.license("4", among: list) == 4)
        #expect(try EditSpec.license("attribution", among: list) == 4)
        #expect(try EditSpec.license("by-sa", among: list) == 5)
        #expect(try EditSpec.license("CC BY-NC-ND", among: list) == 3)
        #expect(try EditSpec.license("all rights reserved", among: list) == 0)
        #expect(try EditSpec.license("government", among: list) == 8)
        #expect(throws: EditSpecError.self) { try EditSpec.license("99", among: list) }
        #expect(throws: EditSpecError.self) { try EditSpec.license("noncommercial", among: list) }
        #expect(throws: EditSpecError.self) { try EditSpec.license("gpl", among: list) }
    }

    @Test("Licences by Flickr's newer names (CC BY-SA 4.0 …) from a recorded answer: short forms match, the newest version when several do")
    func newerLicenceNames() throws {
        let file = try #require(try Fixtures.files(in: "real/flickr-foundation-cassettes", suffix: "flickr.photos.licenses.getInfo.200.xml").first)
        let tree = try FlickrXML.parse(try Fixtures.data(file), rule: .pluralOnly)
        let list = (tree["licenses"]?["license"]?.array ?? []).compactMap { l -> (id: Int, name: String)? in
            guard let id = l["id"]?.int, let name = l["name"]?.string else { return nil }
            return (id, name)
        }
        try #require(list.count >= 17)
        #expect(try EditSpec.license("CC BY-SA 2.0", among: list) == 5)
        #expect(try EditSpec.license("by-sa", among: list) == 12)
        #expect(try EditSpec.license("cc-by-nc-nd", among: list) == 16)
        #expect(try EditSpec.license("cc0", among: list) == 9)
        #expect(try EditSpec.license("public domain mark", among: list) == 10)
        #expect(try EditSpec.license("all rights reserved", among: list) == 0)
        // A licence named whole is not one that only contains its name (BY-NC is not BY-NC-SA).
        #expect(try EditSpec.license("by-nc", among: list) == 14)
        #expect(try EditSpec.license("CC BY-NC 2.0", among: list) == 2)
        // The older names, asked of the newer list.
        #expect(try EditSpec.license("Attribution-NonCommercial-ShareAlike License", among: list) == 15)
        #expect(try EditSpec.license("attribution", among: list) == 11)
        #expect(throws: EditSpecError.self) { try EditSpec.license("nc", among: list) }
    }

    @Test("A photo's targets: templates, a shift within a month-date's month, sets and tags; unchanged groups left out; a shift before 1900 refused for that photo")
    func targets() throws {
        var spec = EditSpec()
        spec.title = try EditTemplate("{date_taken:%Y-%m-%d} {title}", option: "--title")
        spec.shiftTaken = try TakenDate.shift("-3h")
        spec.privacy = try Privacy.parse("public")  // already public: no write
        spec.addToSets = ["72157600000000002"]
        spec.removeFromSets = ["72157600000000001"]
        spec.tagRules = [.add("iceland")]
        try spec.check()
        let pre = Self.photo(granularity: 4)
        let targets = try spec.targets(for: pre, fields: ["date_taken": pre.dateTaken, "title": pre.title]).get()
        // A date known to the month keeps its month under -3h: no dates write.
        #expect(targets == [.meta(title: "2019-07-02 IMG_0042", description: ""),
                            .sets(["72157600000000002"]), .tags(["tram", "lisbon", "iceland"])])
        var old = EditSpec()
        old.shiftTaken = try TakenDate.shift("-2d")
        let refused = old.targets(for: Self.photo(taken: "1900-01-01 12:00:00"), fields: [:])
        #expect(throws: EditRefusal.self) { try refused.get() }
        var future = EditSpec()
        future.setTaken = "2999-01-01 00:00:00"
        #expect(throws: EditRefusal.self) { try future.targets(for: Self.photo(), fields: [:]).get() }
        var both = EditSpec()
        both.geo = GeoPoint(latitude: 1, longitude: 2)
        both.clearGeo = true
        #expect(throws: EditSpecError.self) { try both.check() }
        #expect(throws: EditSpecError.self) { try EditSpec().check() }
    }

    @Test("The next write: groups in order, each from the pre-image; a group someone changed is a conflict, the others still written; a partial set change is ours")
    func steps() {
        let pre = Self.photo()
        let change = EditChange(pre: pre, targets: [.tags(["tram", "iceland"]), .meta(title: "Reykjavík", description: ""),
                                                    .sets(["72157600000000002", "72157600000000003"])])
        #expect(change.fields == [.meta, .sets, .tags])
        // The tags: the photo carries bob's tag, so lisbon leaves by its id and iceland is added.
        #expect(change.calls == 1 + 3 + 2)
        guard case .write(let first) = EditStep.next(change, current: nil) else { Issue.record("no write"); return }
        #expect(first.field == .meta && first.calls.map(\.method) == ["flickr.photos.setMeta"])
        // After the title took effect and one set was joined: the sets again, from where they are.
        var now = pre.with(.meta(title: "Reykjavík", description: ""))
        now.sets = ["72157600000000001", "72157600000000002"]
        guard case .write(let second) = EditStep.next(change, current: now) else { Issue.record("no write"); return }
        #expect(second.field == .sets)
        // Joins before leaves: a photo cut off between them is in both sets, never in neither.
        #expect(second.calls.map(\.method) == ["flickr.photosets.addPhoto", "flickr.photosets.removePhoto"])
        #expect(second.calls.map { $0.arguments["photoset_id"] } == ["72157600000000003", "72157600000000001"])
        // Someone retitled it meanwhile: the title is a conflict, never overwritten; the tags still go.
        var edited = pre.with(.sets(["72157600000000002", "72157600000000003"]))
        edited.title = "Someone else's title"
        guard case .write(let third) = EditStep.next(change, current: edited) else { Issue.record("no write"); return }
        #expect(third.field == .tags && third.calls.map(\.method) == ["flickr.photos.removeTag", "flickr.photos.addTags"])
        #expect(third.calls.first?.arguments == ["tag_id": "t1"] && third.calls.last?.arguments["tags"] == "iceland")
        let finished = edited.with(.tags(["tram", "iceland"]))
        #expect(EditStep.next(change, current: finished) == .done(conflicts: [
            EditConflict(field: .meta, found: .meta(title: "Someone else's title", description: ""), planned: .meta(title: "IMG_0042", description: "")),
        ]))
        // Done exactly when every group holds its target.
        let all = pre.with(.meta(title: "Reykjavík", description: "")).with(.sets(["72157600000000002", "72157600000000003"]))
            .with(.tags(["iceland", "tram"]))
        #expect(EditStep.next(change, current: all) == .done(conflicts: []))
    }

    @Test("Each group's write is the Flickr call for it, with Flickr's argument names")
    func calls() {
        let pre = Self.photo()
        func methods(_ value: EditValue) -> [String] { EditWrite(field: value.field, from: pre.value(value.field), to: value, on: pre).calls.map(\.method) }
        #expect(methods(.dates(taken: "2019-07-02 11:03:00", granularity: 0)) == ["flickr.photos.setDates"])
        #expect(methods(.perms(Privacy(isPublic: false, isFriend: true, isFamily: false))) == ["flickr.photos.setPerms"])
        #expect(methods(.license(4)) == ["flickr.photos.licenses.setLicense"])
        #expect(methods(.safety(2)) == ["flickr.photos.setSafetyLevel"])
        #expect(methods(.contentType(2)) == ["flickr.photos.setContentType"])
        #expect(methods(.geo(GeoPoint(latitude: 64.1, longitude: -21.9))) == ["flickr.photos.geo.setLocation"])
        #expect(methods(.geo(nil)) == ["flickr.photos.geo.removeLocation"])
        let perms = EditWrite(field: .perms, from: pre.value(.perms), to: .perms(Privacy(isPublic: false, isFriend: true, isFamily: true)), on: pre)
        #expect(perms.calls[0].arguments == ["is_public": "0", "is_friend": "1", "is_family": "1"])
        let dates = EditWrite(field: .dates, from: pre.value(.dates), to: .dates(taken: "2019-07-01 00:00:00", granularity: 4), on: pre)
        #expect(dates.calls[0].arguments == ["date_taken": "2019-07-01 00:00:00", "date_taken_granularity": "4"])
    }

    @Test("One tag writer: setTags only on a photo with no other member's tag; otherwise the owner's leaving tags by id and one addTags, never a call that could drop another's tag; unknown ids are read first")
    func tagWriter() {
        let owner = "10000001@N01"
        let own = [PhotoTag(id: "t0", author: owner, raw: "tram"), PhotoTag(id: "t1", author: owner, raw: "lisbon")]
        let bobs = PhotoTag(id: "b1", author: "20000002@N02", raw: "bob was here")
        #expect(TagWrite.toward(["tram", "porto"], tags: own, owner: owner) == .setTags(["tram", "porto"]))
        let safe = TagWrite.toward(["tram", "porto"], tags: own + [bobs], owner: owner)
        #expect(safe == .removeThenAdd(remove: [own[1]], add: ["porto"]) && safe.calls == 2 && !safe.needsTagIDs)
        #expect(safe.requests(photo: "7").map(\.method) == ["flickr.photos.removeTag", "flickr.photos.addTags"])
        #expect(safe.requests(photo: "7").map(\.arguments) == [["tag_id": "t1"], ["photo_id": "7", "tags": "porto"]])
        // Nothing leaves: only the addition; nothing arrives: only removals.
        #expect(TagWrite.toward(["tram", "lisbon", "x"], tags: own + [bobs], owner: owner).requests(photo: "7").map(\.method) == ["flickr.photos.addTags"])
        #expect(TagWrite.toward(["tram"], tags: own + [bobs], owner: owner).requests(photo: nil).map(\.arguments) == [["tag_id": "t1"]])
        // A pre-image whose ids are unknown (a library kept without them) must be read before the write.
        let unknown = [PhotoTag(id: "", author: owner, raw: "lisbon"), bobs]
        #expect(TagWrite.toward([], tags: unknown, owner: owner).needsTagIDs)
        // Edit's tag group and retag's step choose the same write for the same photo.
        let photo = Self.photo()
        let edit = EditWrite(field: .tags, from: photo.value(.tags), to: .tags(["tram", "porto"]), on: photo)
        let retag = PhotoStep.next(PhotoChange(pre: PhotoTags(photoID: photo.photoID, owner: photo.owner, lastUpdate: 0, tags: photo.tags),
                                               target: ["tram", "porto"]), current: nil)
        #expect(edit.tagWrite.map { PhotoStep.write($0) } == retag && edit.tagWrite?.calls == 2)
    }

    @Test("The pre-image from a real getInfo answer: title, dates with granularity, visibility, licence, tags with authors")
    func preImage() throws {
        let tree = try FlickrXML.parse(Fixtures.wrapped(try Fixtures.string("flickr.photos.getInfo.xml")), rule: .pluralOnly)
        let m = try #require(PhotoMetadata(getInfo: tree, sets: ["1"]))
        #expect(m.photoID == "2733" && m.owner == "12037949754@N01" && m.title == "orford_castle_taster" && m.description == "hello!")
        #expect(m.dateTaken == "2004-11-19 12:51:19" && m.takenGranularity == 0 && m.lastUpdate == 1_093_022_469)
        #expect(m.privacy.description == "public" && m.license == 3 && m.sets == ["1"])
        #expect(m.ownerTags == ["woo yay", "hoopla"])
    }

    @Test("A set's order after an undo: the photos it held before, in that order, then those it gained since, in their current order")
    func setOrderRestored() {
        let before = ["a", "b", "c", "d", "e"]
        // b and d were taken out and put back at the end; x joined in between.
        #expect(SetOrder.restored(before, current: ["a", "c", "e", "x", "b", "d"]) == ["a", "b", "c", "d", "e", "x"])
        // Already in order: unchanged (no write needed).
        #expect(SetOrder.restored(before, current: before) == before)
        // A photo deleted since is simply absent; order of the rest kept.
        #expect(SetOrder.restored(before, current: ["e", "a", "b"]) == ["a", "b", "e"])
        #expect(SetOrder.restored([], current: ["y", "x"]) == ["y", "x"])
    }
}
