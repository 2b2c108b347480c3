import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// An edit plan and an edit job's photos as Lua sees them.
extension FlickrModule {
    /// One field's change as Lua sees it: `{ field, group, from, to }` (from/to absent for none).
    static func changeValue(_ c: EditFieldChange) -> LuaValue {
        func lua(_ v: EditFieldChange.Value) -> LuaValue {
            switch v {
            case .text(let s): .string(LuaString(s))
            case .integer(let n): .integer(Int64(n))
            case .list(let l): .array(l.map { .string(LuaString($0)) })
            case let .geo(lat, lon, accuracy): .map(["lat": .number(lat), "lon": .number(lon), "accuracy": .integer(Int64(accuracy))])
            }
        }
        var m: [LuaValue: LuaValue] = ["field": .string(LuaString(c.field)), "group": .string(LuaString(c.group.rawValue))]
        if let from = c.from { m["from"] = lua(from) }
        if let to = c.to { m["to"] = lua(to) }
        return .map(m)
    }

    /// The plan table: `{ job, enumerated, calls, apply_calls, summary, fields = { meta = n, … },
    /// photos = { { id, lastupdate, changes = { { field, from, to }, … }, diff = { line, … } }, … },
    /// refused = { { id, field, reason }, … } }`. The diff lines, the summary (its two lines
    /// joined by "; ") and the calls are ``EditReport``'s, as `flickr edit plan` prints them.
    static func planValue(_ r: EditPlanner.Result, store: JobStore, names: EditReport.Names, budget: CallBudget?) throws -> LuaValue {
        var tally = EditReport.Tally()
        var photos: [LuaValue] = []
        try store.eachPage(of: r.job, as: EditChange.self, statuses: [.planned]) { page in
            for change in page.map(\.change) {
                tally.add(change)
                let changes = EditFieldChange.changes(of: change).map(changeValue)
                photos.append(.map(["id": .string(LuaString(change.pre.photoID)), "lastupdate": .integer(Int64(change.pre.lastUpdate)),
                                    "changes": .array(changes), "diff": .array(EditReport.lines(change, names: names).map { .string(LuaString($0)) })]))
            }
        }
        var refused: [LuaValue] = []
        try store.eachPage(of: r.job, as: EditChange.self, statuses: [.refused]) { page in
            for photo in page {
                let refusal = photo.detail.flatMap(EditRefusal.init(journalDetail:))
                refused.append(.map(["id": .string(LuaString(photo.change.pre.photoID)), "field": .string(LuaString(refusal?.field.rawValue ?? "")),
                                     "reason": .string(LuaString(refusal?.reason ?? photo.detail ?? ""))]))
            }
        }
        var perField: [LuaValue: LuaValue] = [:]
        for (field, n) in tally.perField { perField[.string(LuaString(field.rawValue))] = .integer(Int64(n)) }
        return .map([
            "job": .string(LuaString(r.job)), "enumerated": .integer(Int64(r.enumerated)), "calls": .integer(Int64(r.calls)),
            "apply_calls": .integer(Int64(tally.applyCalls)),
            "summary": .string(LuaString(EditReport.summary(r, tally: tally, budget: budget).joined(separator: "; "))), "fields": .map(perField),
            "photos": .array(photos), "refused": .array(refused),
        ])
    }

    /// An edit job's photos for `flickr.jobs._photos`: `{ id, status, detail, changes = {…} }`.
    static func editPhotosValue(_ photos: [EditJobPhoto]) -> LuaValue {
        .array(photos.map { p in
            let changes = EditFieldChange.changes(of: p.change).map(changeValue)
            var m: [LuaValue: LuaValue] = ["id": .string(LuaString(p.change.pre.photoID)), "status": .string(LuaString(p.status.rawValue)),
                                           "changes": .array(changes)]
            if let d = p.detail { m["detail"] = .string(LuaString(d)) }
            return .map(m)
        })
    }
}
