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
       .timeLimit(.minutes(5)), .tags(.integration), .kind("integration"))
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
            let mine = plan.changes.filter { c in selected.contains { $0.id == c.pre.photoID } }
            #expect(mine.count == selected.count)
            let expectedCalls = mine.reduce(0) { $0 + $1.calls }
            let logBefore = Self.logged(log).count
            let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(outcome.job.state == "done" && outcome.job.done == plan.changes.count, "\(outcome.job)")
            let applyCalls = Self.logged(log).dropFirst(logBefore).map(\.method)
            let writes = applyCalls.filter { $0 != "flickr.photos.recentlyUpdated" && $0 != "flickr.photos.getInfo" && $0 != "flickr.photos.getAllContexts" }
            // One call per group per photo; the new set's create stands for its first photo's addPhoto.
            #expect(writes.count == expectedCalls, "\(writes.count) writes for \(expectedCalls) planned")
            #expect(writes.filter { $0 == "flickr.photosets.create" }.count == 1)
            let created = try #require(try await EditPlanner.sets(client: alice).first { $0.title == "Iceland 2026" })
            for photo in selected {
                let now = try await Self.read(photo.id, alice)
                let pre = try #require(before[photo.id])
                #expect(now.title == String(pre.dateTaken.prefix(10)) + " " + pre.title, "\(now.title)")
                #expect(now.privacy.description == "friends,family" && now.license == 5)
                #expect(now.dateTaken == Self.shifted(pre.dateTaken, hours: 3) && now.takenGranularity == pre.takenGranularity)
                #expect(now.geo.map { abs($0.latitude - 64.1466) < 1e-6 && $0.accuracy == 11 } == true)
                #expect(Set(now.sets ?? []) == Set(pre.sets ?? []).union([set.id, created.id]))
                #expect(now.ownerTags.contains("iceland"))
            }
            // Undo: every group back to its pre-image, the sets joined left (the created set stays, empty of them).
            let undo = try await planner.planUndo(of: plan.job)
            #expect(undo.conflicts.isEmpty)
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
            #expect(again.changes.isEmpty, "a second undo changes nothing: \(again.changes.map(\.fields))")
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
            #expect(plan.refused.map(\.photo) == [old] && plan.refused.first?.refusal.field == .dates)
            _ = try await alice.call("flickr.photos.setMeta", ["photo_id": target, "title": "Retitled by hand", "description": ""])
            // Flickr's lastupdate counts whole seconds: the plan's time must be behind the edit's.
            let outcome = try await EditRunner(client: alice, store: store).run(plan.job)
            #expect(outcome.job.conflicts == 1 && outcome.job.failed == 1, "\(outcome.job)")
            let now = try await Self.read(target, alice)
            #expect(now.title == "Retitled by hand" && now.license == 4, "the other groups still written")
            let sent = Self.logged(log).filter { $0.photo == old && ($0.method.contains(".set") || $0.method.contains("License")) }
            #expect(sent.map(\.method) == ["flickr.photos.setDates"], "only the test's own setDates reached the refused photo: \(sent)")
            let detail = try store.editPhotos(of: plan.job).first { $0.change.pre.photoID == target }?.detail ?? ""
            #expect(detail.contains("meta changed since the plan"), "\(detail)")
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
