import FlickrAPI
import FlickrJobs
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// The edit engine through its Swift API against an in-process sandbox over loopback: plans,
/// applies and undoes, with every photo read back through `getInfo` and the calls counted in
/// the access log.
@Suite("Edit jobs: plan, apply, undo, conflicts, refusals (Swift API against the sandbox)",
       .timeLimit(.minutes(5)), .tags(.integration, .heavy))
struct EditEngineTests {
    /// The access log's calls of `method` (with the photo id when it names one).
    static func logged(_ log: URL, _ method: String? = nil) -> [(method: String, photo: String?)] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let m = o["method"] as? String, method == nil || m == method else { return nil }
            return (m, o["photo_id"] as? String)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS` moved by whole hours (Foundation's calendar, UTC).
    static func shifted(_ taken: String, hours: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.date(from: taken).map { f.string(from: $0.addingTimeInterval(Double(hours) * 3600)) } ?? "?"
    }

    /// The photo as an edit reads it, with its sets.
    static func read(_ id: String, _ client: FlickrClient) async throws -> PhotoMetadata {
        let info = try await client.call("flickr.photos.getInfo", ["photo_id": id])
        let contexts = try await client.call("flickr.photos.getAllContexts", ["photo_id": id])
        return try #require(PhotoMetadata(getInfo: info, sets: (contexts["set"]?.array ?? []).compactMap { $0["id"]?.string }))
    }

    @Test("A mixed edit (title template, privacy, licence by name, shifted date, location, a set joined and one created, a tag) is planned without a write, applied at one call per group, and undone exactly; a second undo changes nothing")
    func mixed() async throws {
        let world = LibraryWorld(count: 60, seed: "edit-mixed")
        try await world.serve { server, alice, env, log in
            let store = try JobStore(path: env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite")
            let selected = world.photos
            let set = try #require(world.sets.last)
            var spec = EditSpec()
            spec.title = try EditTemplate("{date_taken:%Y-%m-%d} {title}", option: "--title")
            spec.privacy = try Privacy.parse("friends,family")
            spec.license = try EditSpec.license("by-sa", among: try await EditPlanner.licenses(client: alice))
            spec.shiftTaken = try TakenDate.shift("+3h")
            spec.geo = try GeoPoint.parse("64.1466,-21.9426,11")
            let sets = try await EditPlanner.sets(client: alice)
            spec.addToSets = [try EditPlanner.resolveSet(set.title, among: sets, create: false, option: "--add-to-set"),
                              try EditPlanner.resolveSet("Iceland 2026", among: sets, create: true, option: "--add-to-set")]
            spec.tagRules = [.add("iceland")]
            try spec.check()
            let before = Dictionary(uniqueKeysWithValues: try await selected.asyncMap { ($0.id, try await Self.read($0.id, alice)) })
            let writesBefore = Self.logged(log).count
            let planner = EditPlanner(client: alice, store: store)
            let plan = try await planner.plan(spec, query: [:], find: nil, rules: ["--title", "…"])
            let planCalls = Self.logged(log).dropFirst(writesBefore).map(\.method)
            #expect(!planCalls.contains { $0.contains(".set") || $0.contains(".add") || $0.contains(".remove") || $0.hasSuffix(".create") },
                    "plan wrote: \(planCalls)")
            let mine = try plan.changes(store).filter { c in selected.contains { $0.id == c.pre.photoID } }
            #expect(mine.count == selected.count)
            let expectedCalls = mine.reduce(0) { $0 + $1.calls }
            let logBefore = Self.logged(log).count
            let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(try outcome.job.state == "done" && outcome.job.done == plan.changes(store).count, "\(outcome.job)")
            let applyCalls = Self.logged(log).dropFirst(logBefore).map(\.method)
            let writes = applyCalls.filter { $0 != "flickr.photos.recentlyUpdated" && $0 != "flickr.photos.getInfo" && $0 != "flickr.photos.getAllContexts" }
            // One call per group per photo; the new set's create stands for its first photo's addPhoto.
            #expect(writes.count == expectedCalls, "\(writes.count) writes for \(expectedCalls) planned")
            #expect(writes.filter { $0 == "flickr.photosets.create" }.count == 1)
            let created = try #require(try await EditPlanner.sets(client: alice).first { $0.title == "Iceland 2026" })
            for photo in selected {
                let now = try await Self.read(photo.id, alice)
                let pre = try #require(before[photo.id])
                // +3h moves a date to the second; one known only to the month or year stays in it. The
                // title's {date_taken} is the date the photo now has.
                let taken = pre.takenGranularity == 0 ? Self.shifted(pre.dateTaken, hours: 3) : pre.dateTaken
                #expect(now.title == String(taken.prefix(10)) + " " + pre.title, "\(now.title)")
                // by-sa against today's list: CC BY-SA in its newest version, 4.0 (id 12).
                #expect(now.privacy.description == "friends,family" && now.license == 12)
                #expect(now.dateTaken == taken && now.takenGranularity == pre.takenGranularity, "\(now.dateTaken) from \(pre.dateTaken)")
                #expect(now.geo.map { abs($0.latitude - 64.1466) < 1e-6 && $0.accuracy == 11 } == true)
                #expect(Set(now.sets ?? []) == Set(pre.sets ?? []).union([set.id, created.id]))
                #expect(now.ownerTags.contains("iceland"))
            }
            // Undo: every group back to its pre-image, the sets joined left (the created set stays, empty of them).
            let undo = try await planner.planUndo(of: plan.job)
            #expect(undo.conflicts == 0)
            let undone = try await EditRunner(client: alice, store: store).run(undo.job)
            #expect(undone.job.state == "done", "\(undone.job)")
            #expect(try store.job(plan.job).state == "undone")
            for photo in selected {
                let now = try await Self.read(photo.id, alice)
                var pre = try #require(before[photo.id])
                pre.lastUpdate = now.lastUpdate
                #expect(now.title == pre.title && now.privacy == pre.privacy && now.license == pre.license && now.dateTaken == pre.dateTaken)
                #expect(now.geo == pre.geo || (now.geo != nil && pre.geo != nil && now.value(.geo).matches(pre.value(.geo))), "\(String(describing: now.geo)) vs \(String(describing: pre.geo))")
                #expect(Set(now.sets ?? []) == Set(pre.sets ?? []) && Set(now.ownerTags) == Set(pre.ownerTags))
            }
            let again = try await planner.planUndo(of: plan.job)
            #expect(again.changed == 0, "a second undo changes nothing: \((try? again.changes(store))?.map(\.fields) ?? [])")
        }
    }

    @Test("Undo puts photos taken out of a set back where they were: the set's order and its primary photo as before the job, a photo added since keeping its place after them; a second undo changes nothing")
    func setOrderRestored() async throws {
        let world = LibraryWorld(count: 40, seed: "edit-set-order")
        try await world.serve { server, alice, env, log in
            let store = try JobStore(path: env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite")
            let set = try #require(world.sets.first { $0.photos.count >= 6 && $0.photos.count < world.photos.count })
            func members() async throws -> (photos: [String], primary: String?) {
                let rsp = try await alice.call("flickr.photosets.getPhotos", ["photoset_id": set.id, "per_page": "500"])
                return ((rsp["photoset"]?["photo"]?.array ?? []).compactMap { $0["id"]?.string }, rsp["photoset"]?["primary"]?.string)
            }
            // An order of the user's own (reversed) and a primary photo that the job will take out.
            let reversed = Array(set.photos.reversed())
            _ = try await alice.call("flickr.photosets.reorderPhotos", ["photoset_id": set.id, "photo_ids": reversed.joined(separator: ",")])
            let leaving = [reversed[1], reversed[3], reversed[4]]
            _ = try await alice.call("flickr.photosets.setPrimaryPhoto", ["photoset_id": set.id, "photo_id": leaving[1]])
            for id in leaving { _ = try await alice.call("flickr.photos.addTags", ["photo_id": id, "tags": "leaveset"]) }
            let before = try await members()
            #expect(before.photos == reversed && before.primary == leaving[1])

            var spec = EditSpec()
            spec.removeFromSets = [set.id]
            try spec.check()
            let planner = EditPlanner(client: alice, store: store)
            let plan = try await planner.plan(spec, query: ["tags": "leaveset"], find: nil, rules: ["--remove-from-set", set.id])
            #expect(Set(try plan.changes(store).map(\.pre.photoID)) == Set(leaving))
            let applied = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(applied.job.state == "done", "\(applied.job)")
            let after = try await members()
            #expect(after.photos == reversed.filter { !leaving.contains($0) } && after.primary != leaving[1])

            // A photo of the user's joins the set after the job: it stays, after the job's photos.
            let newcomer = try #require(world.photos.map(\.id).first { !set.photos.contains($0) })
            _ = try await alice.call("flickr.photosets.addPhoto", ["photoset_id": set.id, "photo_id": newcomer])

            let logBefore = Self.logged(log).count
            let undo = try await planner.planUndo(of: plan.job)
            let undone = try await EditRunner(client: alice, store: store).run(undo.job)
            #expect(undone.job.state == "done", "\(undone.job)")
            let restored = try await members()
            #expect(restored.photos == reversed + [newcomer], "\(restored.photos) != \(reversed + [newcomer])")
            #expect(restored.primary == leaving[1])
            let undoCalls = Self.logged(log).dropFirst(logBefore).map(\.method)
            #expect(undoCalls.filter { $0 == "flickr.photosets.reorderPhotos" }.count == 1)
            #expect(undoCalls.filter { $0 == "flickr.photosets.addPhoto" }.count == leaving.count)

            // A second undo plans nothing and, applied, writes nothing (the order already holds).
            let again = try await planner.planUndo(of: plan.job)
            #expect(again.changed == 0)
            let logAgain = Self.logged(log).count
            _ = try await EditRunner(client: alice, store: store).run(again.job)
            let writes = Self.logged(log).dropFirst(logAgain).map(\.method).filter { $0.contains(".set") || $0.contains(".reorder") || $0.contains(".add") || $0.contains(".remove") }
            #expect(writes.isEmpty, "\(writes)")
            #expect(try await members().photos == reversed + [newcomer])
        }
    }

    @Test("A photo retitled on Flickr after the plan: its title is a conflict, left as it is, while its other groups are written; a shift before 1900 is refused at plan time and never sent")
    func conflictsAndRefusals() async throws {
        let world = LibraryWorld(count: 20, seed: "edit-conflict")
        try await world.serve { server, alice, env, log in
            let store = try JobStore(path: env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite")
            let target = world.photos[2].id, old = world.photos[3].id
            _ = try await alice.call("flickr.photos.setDates", ["photo_id": old, "date_taken": "1900-01-01 10:00:00", "date_taken_granularity": "0"])
            var spec = EditSpec()
            spec.title = try EditTemplate("Trip: {title}", option: "--title")
            spec.license = 4
            spec.shiftTaken = try TakenDate.shift("-1d")
            let plan = try await EditPlanner(client: alice, store: store).plan(spec, query: [:], find: nil, rules: ["--title"])
            #expect(try plan.refusals(store).map(\.photo) == [old] && plan.refusals(store).first?.refusal.field == .dates)
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": target, "title": "Retitled by hand", "description": ""])
            // Flickr's lastupdate counts whole seconds: the plan's time must be behind the edit's.
            let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(outcome.job.conflicts == 1 && outcome.job.refused == 1 && outcome.job.failed == 0, "\(outcome.job)")
            let now = try await Self.read(target, alice)
            #expect(now.title == "Retitled by hand" && now.license == 4, "the other groups still written")
            let sent = Self.logged(log).filter { $0.photo == old && ($0.method.contains(".set") || $0.method.contains("License")) }
            #expect(sent.map(\.method) == ["flickr.photos.setDates"], "only the test's own setDates reached the refused photo: \(sent)")
            let detail = try store.editPhotos(of: plan.job).first { $0.change.pre.photoID == target }?.detail ?? ""
            #expect(detail.contains("meta changed since the plan"), "\(detail)")
        }
    }

    @Test("A custom rule's values are checked as the options' are: a date taken before 1900 or in the future, a latitude out of range, an unknown licence, too many tags, a refusal it throws — each refuses that photo only, with the reason, recorded and never sent; the other photos are planned and written")
    func customRefusals() async throws {
        let world = LibraryWorld(count: 12, seed: "edit-custom")
        try await world.serve { server, alice, env, log in
            let store = try JobStore(path: env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite")
            let ids = world.photos.map(\.id)
            let asked: [String: [EditValue]] = [
                ids[0]: [.meta(title: "old", description: ""), .dates(taken: "1850-06-01 12:00:00", granularity: 0)],
                ids[1]: [.dates(taken: "2999-01-01 00:00:00", granularity: 0)],
                ids[2]: [.geo(GeoPoint(latitude: 95, longitude: 10))],
                ids[3]: [.geo(GeoPoint(latitude: 10, longitude: -181.5))],
                ids[4]: [.license(99)],
                ids[5]: [.tags((1...80).map { "tag\($0)" })],
                ids[6]: [.dates(taken: "2019-07-02 14:03:00", granularity: 3)],
                ids[7]: [.safety(4)],
            ]
            let thrown = ids[8]
            var planner = EditPlanner(client: alice, store: store)
            planner.licenses = Set(try await EditPlanner.licenses(client: alice).map(\.id))
            // Read, planned and stored 5 photos at a time: refused and planned photos in every
            // batch, and the diff and the JSON read them back in plan order all the same.
            planner.batch = 5
            let custom: EditPlanner.Custom = { pre, _ in
                if pre.photoID == thrown { throw EditRefusal(field: .sets, reason: "you have no set titled \"Nowhere\"") }
                return asked[pre.photoID] ?? [.meta(title: "ok: " + pre.title, description: pre.description)]
            }
            var spec = EditSpec()
            spec.privacy = try Privacy.parse("friends")
            let plan = try await planner.plan(spec, query: [:], find: nil, rules: ["--privacy friends", "--lua rule.lua"], custom: custom)
            let reasons = Dictionary(uniqueKeysWithValues: try plan.refusals(store).map { ($0.photo, $0.refusal.description) })
            let expected: [String: String] = [
                ids[0]: "dates: date taken 1850-06-01 12:00:00 is before 1900",
                ids[1]: "dates: date taken 2999-01-01 00:00:00 is in the future",
                ids[2]: "geo: latitude 95 is outside -90..90",
                ids[3]: "geo: longitude -181.5 is outside -180..180",
                ids[4]: "license: there is no licence 99",
                ids[5]: "tags: would carry 8",                      // 80 and the others' tags; Flickr allows 75
                ids[6]: "dates: granularity 3 is not one of 0, 4, 6, 8",
                ids[7]: "safety: safety level 4 is not 1 (safe), 2 (moderate) or 3 (restricted)",
                thrown: "sets: you have no set titled \"Nowhere\"",
            ]
            #expect(Set(reasons.keys) == Set(expected.keys), "refused: \(reasons)")
            for (id, reason) in expected { #expect(reasons[id]?.hasPrefix(reason) == true, "\(id): \(reasons[id] ?? "not refused")") }
            // The refused photos are not planned at all (not even the options' privacy); the others are.
            let planned = Set(try plan.changes(store).map(\.pre.photoID))
            #expect(planned == Set(ids[9...]), "\(planned)")
            for change in try plan.changes(store) {
                #expect(change.targets.contains { if case .meta(let t, _) = $0 { t.hasPrefix("ok: ") } else { false } }, "\(change.targets)")
            }
            // The report says so, as flickr edit plan prints it.
            let text = try plan.diff(store)
            #expect(text.contains("photo \(ids[2]): not changed: geo: latitude 95 is outside -90..90"), "\(text)")
            #expect(text.contains("; \(expected.count) refused"), "\(text)")
            let document = try plan.document(store)
            let refusedJSON = (JSONText.parsed(document) as? [String: Any])?["refused"] as? [[String: Any]] ?? []
            #expect(refusedJSON.contains { $0["reason"] as? String == "date taken 1850-06-01 12:00:00 is before 1900" && $0["field"] as? String == "dates" },
                    "\(document)")
            // Applied: the refused photos are recorded as refused (not failed) and never sent a
            // write; alone they do not fail the job.
            let from = Self.logged(log).count
            let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(try outcome.job.refused == expected.count && outcome.job.failed == 0 && outcome.job.done == plan.changes(store).count
                    && outcome.job.photos == plan.changes(store).count && outcome.job.state == "done", "\(outcome.job)")
            let writes = Self.logged(log).dropFirst(from).filter { $0.method.contains(".set") || $0.method.contains(".geo.") }
            #expect(!writes.contains { expected[$0.photo ?? ""] != nil }, "a refused photo was written: \(writes)")
            #expect(try writes.count == plan.changes(store).reduce(0) { $0 + $1.calls })
            let details = try store.editPhotos(of: plan.job).filter { expected[$0.change.pre.photoID] != nil }.map { $0.detail ?? "" }
            #expect(details.count == expected.count && details.allSatisfy { $0.hasPrefix("refused at plan time, never sent: ") }, "\(details)")
            // A custom value Flickr takes is not refused, however it came: a date in range, a location, a known licence.
            let fine: EditPlanner.Custom = { _, _ in [.dates(taken: "1900-01-01 00:00:00", granularity: 6), .geo(GeoPoint(latitude: -90, longitude: 180, accuracy: 1)), .license(4)] }
            let ok = try await planner.plan(EditSpec(), query: ["max_upload_date": String(world.photos[1].posted)], find: nil, rules: ["--lua"], custom: fine)
            #expect(ok.refused == 0 && ok.changed > 0, "\((try? ok.refusals(store))?.map(\.photo) ?? [])")
        }
    }
}

extension EditEngineTests {
    /// Each change kind alone: its spec (over a world's photos) and the group it writes.
    static func kinds(sets: [(id: String, title: String, size: Int)], member: String) throws -> [(String, EditSpec)] {
        func spec(_ body: (inout EditSpec) throws -> Void) rethrows -> EditSpec {
            var s = EditSpec()
            try body(&s)
            return s
        }
        return [
            ("title", try spec { $0.title = try EditTemplate("{title} ({date_taken:%Y})", option: "--title") }),
            ("description", try spec { $0.description = try EditTemplate("Taken {date_taken:%B %Y}", option: "--description") }),
            ("privacy", try spec { $0.privacy = try Privacy.parse("family") }),
            ("license", spec { $0.license = 6 }),
            ("safety", spec { $0.safety = 3 }),
            ("content type", spec { $0.contentType = 2 }),
            ("shift taken", try spec { $0.shiftTaken = try TakenDate.shift("-1d2h") }),
            ("set taken", try spec { let d = try TakenDate.parse("2016-05"); ($0.setTaken, $0.setTakenGranularity) = (d.taken, d.granularity) }),
            ("geo", try spec { $0.geo = try GeoPoint.parse("38.7139,-9.1334,14") }),
            ("clear geo", spec { $0.clearGeo = true }),
            ("add to set", spec { $0.addToSets = [member] }),
            ("remove from set", spec { $0.removeFromSets = [member] }),
            ("rename tag", try spec { $0.tagRules = [try RetagRule.renaming("tram", to: "streetcar")] }),
            ("add and remove tags", spec { $0.tagRules = [.add("holiday"), .remove("night")] }),
        ]
    }

    @Test("Every change kind alone: planned, applied (the group's calls and only those), read back as planned, undone exactly")
    func everyKind() async throws {
        let world = LibraryWorld(count: 24, seed: "edit-kinds")
        try await world.serve { server, alice, env, log in
            let store = try JobStore(path: env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite")
            let sets = try await EditPlanner.sets(client: alice)
            // The first 12 uploads (the world's photos are posted in order): the second set keeps
            // members outside them.
            let query = ["max_upload_date": String(world.photos[11].posted)]
            let member = try #require(world.sets.dropFirst().first?.id)
            var othersTaggedPhotos = 0
            for (name, spec) in try Self.kinds(sets: sets, member: member) {
                let ids = Array(world.photos.map(\.id).prefix(12))
                let before = Dictionary(uniqueKeysWithValues: try await ids.asyncMap { ($0, try await Self.read($0, alice)) })
                let plan = try await EditPlanner(client: alice, store: store).plan(spec, query: query, find: nil, rules: [name])
                #expect(Set(try plan.changes(store).map(\.pre.photoID)).isSubset(of: ids), "\(name): the query selects the first 12")
                try #require(try !plan.changes(store).isEmpty, "\(name): nothing planned")
                let fields = Set(try plan.changes(store).flatMap(\.fields))
                #expect(fields.count == 1, "\(name): \(fields)")
                let from = Self.logged(log).count
                let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
                #expect(outcome.job.state == "done", "\(name): \(outcome.job)")
                let sent = Self.logged(log).dropFirst(from).filter {
                    !["flickr.photos.recentlyUpdated", "flickr.photos.getInfo", "flickr.photos.getAllContexts", "flickr.people.getPhotos", "flickr.photosets.getPhotos"].contains($0.method)
                }
                let writes = sent.map(\.method)
                #expect(try writes.count == plan.changes(store).reduce(0) { $0 + $1.calls }, "\(name): \(writes.count) writes")
                if fields == [.tags] {
                    // The one tag writer: setTags only on a photo no other member tagged, else
                    // removeTag by id and addTags, which never touch another's tag.
                    let othersTagged = Set(try plan.changes(store).filter { c in c.pre.tags.contains { $0.author != c.pre.owner } }.map(\.pre.photoID))
                    othersTaggedPhotos += othersTagged.count
                    #expect(!sent.contains { $0.method == "flickr.photos.setTags" && othersTagged.contains($0.photo ?? "") }, "\(name): setTags on a photo with others' tags")
                    #expect(Set(writes).isSubset(of: ["flickr.photos.setTags", "flickr.photos.removeTag", "flickr.photos.addTags"]), "\(name): \(Set(writes))")
                } else {
                    #expect(Set(writes).count == 1 || name.contains("set"), "\(name): \(Set(writes))")
                }
                if spec.contentType != nil {
                    // getInfo has no content type; the account's photos listed by type do.
                    let screenshots = try await alice.call("flickr.people.getPhotos", ["user_id": "me", "content_types": "2", "per_page": "500"])
                    let listed = Set((screenshots["photos"]?["photo"]?.array ?? []).compactMap { $0["id"]?.string })
                    #expect(Set(try plan.changes(store).map(\.pre.photoID)).isSubset(of: listed), "content type not written")
                }
                for change in try plan.changes(store) {
                    let now = try await Self.read(change.pre.photoID, alice)
                    for target in change.targets where target.field != .contentType {
                        #expect(now.value(target.field).matches(target), "\(name): photo \(change.pre.photoID) holds \(now.value(target.field)), not \(target)")
                    }
                }
                let undo = try await EditPlanner(client: alice, store: store).planUndo(of: plan.job)
                let undone = try await EditRunner(client: alice, store: store).run(undo.job)
                #expect(undone.job.state == "done", "\(name) undo: \(undone.job)")
                for id in ids {
                    let now = try await Self.read(id, alice), pre = try #require(before[id])
                    for field in EditField.allCases where field != .contentType {
                        #expect(now.value(field).matches(pre.value(field)), "\(name) undo: photo \(id) \(field): \(now.value(field)) vs \(pre.value(field))")
                    }
                }
            }
            #expect(othersTaggedPhotos > 0, "the tag kinds met a photo another member tagged")
        }
    }

    @Test("A conflict per group: each photo changed on Flickr after the plan in one group keeps that group as changed and gets the others written")
    func conflictPerGroup() async throws {
        let world = LibraryWorld(count: 12, seed: "edit-groups")
        try await world.serve { server, alice, env, log in
            let store = try JobStore(path: env["XDG_STATE_HOME"]! + "/flickr/jobs.sqlite")
            let sets = try await EditPlanner.sets(client: alice)
            let join = try #require(sets.last?.id)
            var spec = EditSpec()
            spec.title = try EditTemplate("Edited {id}", option: "--title")
            spec.shiftTaken = try TakenDate.shift("+1h")
            spec.privacy = try Privacy.parse("friends")
            spec.license = 5
            spec.geo = try GeoPoint.parse("10,20,12")
            spec.addToSets = [join]
            spec.tagRules = [.add("edited")]
            let plan = try await EditPlanner(client: alice, store: store).plan(spec, query: [:], find: nil, rules: ["mixed"])
            let ids = try plan.changes(store).filter { !($0.pre.sets ?? []).contains(join) }.map(\.pre.photoID)
            try #require(ids.count >= 7)
            // One group changed by hand on each of seven photos, after the plan.
            let byID = Dictionary(uniqueKeysWithValues: try plan.changes(store).map { ($0.pre.photoID, $0.pre) })
            let other = try #require(sets.first { $0.id != join && !(byID[ids[5]]?.sets ?? []).contains($0.id) }?.id)
            let hand: [(EditField, String, [String: String])] = [
                (.meta, "flickr.photos.setMeta", ["title": "By hand", "description": ""]),
                (.dates, "flickr.photos.setDates", ["date_taken": "2001-02-03 04:05:06", "date_taken_granularity": "0"]),
                (.perms, "flickr.photos.setPerms", ["is_public": "0", "is_friend": "0", "is_family": "1"]),
                (.license, "flickr.photos.licenses.setLicense", ["license_id": "1"]),
                (.geo, "flickr.photos.geo.setLocation", ["lat": "1", "lon": "2", "accuracy": "3"]),
                (.sets, "flickr.photosets.addPhoto", ["photoset_id": other]),
                (.tags, "flickr.photos.addTags", ["tags": "byhand"]),
            ]
            for (i, (_, method, arguments)) in hand.enumerated() {
                var a = arguments
                a["photo_id"] = ids[i]
                _ = try await alice.call(method, a)
            }
            let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(outcome.job.conflicts == 7, "\(outcome.job)")
            let journal = Dictionary(uniqueKeysWithValues: try store.editPhotos(of: plan.job).map { ($0.change.pre.photoID, $0) })
            for (i, (field, _, _)) in hand.enumerated() {
                let photo = try #require(journal[ids[i]])
                let now = try await Self.read(ids[i], alice)
                #expect(photo.status == .conflict && (photo.detail ?? "").contains("\(field.rawValue) changed since the plan"), "\(field): \(photo.detail ?? "")")
                for target in photo.change.targets {
                    if target.field == field {
                        #expect(!now.value(field).matches(target), "\(field) was overwritten")
                    } else if !(field == .sets && target.field == .sets) {
                        #expect(now.value(target.field).matches(target), "\(field) conflict: \(target.field) not written: \(now.value(target.field))")
                    }
                }
            }
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
