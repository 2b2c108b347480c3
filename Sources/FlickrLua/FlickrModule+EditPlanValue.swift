import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// An edit plan and an edit job's photos as Lua sees them.
extension FlickrModule {
    /// One group's change, field by field as people name them: (field, from, to) in Lua form.
    static func entries(_ from: EditValue, _ to: EditValue) -> [(field: String, from: LuaValue, to: LuaValue)] {
        func s(_ text: String) -> LuaValue { .string(LuaString(text)) }
        func list(_ l: [String]) -> LuaValue { .array(l.map(s)) }
        func geo(_ g: GeoPoint?) -> LuaValue {
            g.map { .map(["lat": .number($0.latitude), "lon": .number($0.longitude), "accuracy": .integer(Int64($0.accuracy))]) } ?? .nil
        }
        switch (from, to) {
        case let (.meta(t0, d0), .meta(t1, d1)):
            return (t0 == t1 ? [] : [("title", s(t0), s(t1))]) + (d0 == d1 ? [] : [("description", s(d0), s(d1))])
        case let (.dates(a, g0), .dates(b, g1)):
            return [("date_taken", s(a), s(b))] + (g0 == g1 ? [] : [("date_taken_granularity", .integer(Int64(g0)), .integer(Int64(g1)))])
        case let (.perms(a), .perms(b)): return [("privacy", s(a.description), s(b.description))]
        case let (.license(a), .license(b)): return [("license", .integer(Int64(a)), .integer(Int64(b)))]
        case (.safety, .safety): return [("safety", s(from.description), s(to.description))]
        case let (.contentType(a), .contentType(b)): return [("content_type", a == nil ? .nil : s(from.description), b == nil ? .nil : s(to.description))]
        case let (.geo(a), .geo(b)): return [("geo", geo(a), geo(b))]
        case let (.sets(a), .sets(b)): return [("sets", list(a.sorted()), list(b.sorted()))]
        case let (.tags(a), .tags(b)): return [("tags", list(a), list(b))]
        default: return [(to.field.rawValue, s(from.description), s(to.description))]
        }
    }

    /// The plan table: `{ job, enumerated, calls, apply_calls, summary, fields = { meta = n, … },
    /// photos = { { id, lastupdate, changes = { { field, from, to }, … }, diff = { line, … } }, … },
    /// refused = { { id, field, reason }, … } }`. The diff lines, the summary (its two lines
    /// joined by "; ") and the calls are ``EditReport``'s, as `flickr edit plan` prints them.
    static func planValue(_ r: EditPlanner.Result, names: EditReport.Names, budget: CallBudget?) -> LuaValue {
        var perField: [LuaValue: LuaValue] = [:]
        for (field, n) in EditReport.perField(r.changes) { perField[.string(LuaString(field.rawValue))] = .integer(Int64(n)) }
        let photos: [LuaValue] = r.changes.map { change in
            var changes: [LuaValue] = []
            for target in change.targets {
                for e in entries(change.pre.value(target.field), target) {
                    var m: [LuaValue: LuaValue] = ["field": .string(LuaString(e.field)), "group": .string(LuaString(target.field.rawValue))]
                    if e.from != .nil { m["from"] = e.from }
                    if e.to != .nil { m["to"] = e.to }
                    changes.append(.map(m))
                }
            }
            return .map(["id": .string(LuaString(change.pre.photoID)), "lastupdate": .integer(Int64(change.pre.lastUpdate)),
                         "changes": .array(changes), "diff": .array(EditReport.lines(change, names: names).map { .string(LuaString($0)) })])
        }
        return .map([
            "job": .string(LuaString(r.job)), "enumerated": .integer(Int64(r.enumerated)), "calls": .integer(Int64(r.calls)),
            "apply_calls": .integer(Int64(EditReport.applyCalls(r.changes))),
            "summary": .string(LuaString(EditReport.summary(r, budget: budget).joined(separator: "; "))), "fields": .map(perField),
            "photos": .array(photos),
            "refused": .array(r.refused.map { .map(["id": .string(LuaString($0.photo)), "field": .string(LuaString($0.refusal.field.rawValue)),
                                                    "reason": .string(LuaString($0.refusal.reason))]) }),
        ])
    }

    /// An edit job's photos for `flickr.jobs._photos`: `{ id, status, detail, changes = {…} }`.
    static func editPhotosValue(_ photos: [EditJobPhoto]) -> LuaValue {
        .array(photos.map { p in
            var changes: [LuaValue] = []
            for target in p.change.targets {
                for e in entries(p.change.pre.value(target.field), target) {
                    var m: [LuaValue: LuaValue] = ["field": .string(LuaString(e.field)), "group": .string(LuaString(target.field.rawValue))]
                    if e.from != .nil { m["from"] = e.from }
                    if e.to != .nil { m["to"] = e.to }
                    changes.append(.map(m))
                }
            }
            var m: [LuaValue: LuaValue] = ["id": .string(LuaString(p.change.pre.photoID)), "status": .string(LuaString(p.status.rawValue)),
                                           "changes": .array(changes)]
            if let d = p.detail { m["detail"] = .string(LuaString(d)) }
            return .map(m)
        })
    }
}
