import FlickrAPI
import Foundation

/// The one path every kind of job is planned by, reading only: the owner and the selection
/// (``PlanSelection``: the library brought up to date, or Flickr), each selected photo's
/// pre-image (the library's where it holds one, else Flickr's, a few reads at a time), each
/// photo's plan by its kind (``PlanWork``), and the job — pre-images, targets, refusals — stored
/// before anything is written. ``RetagPlanner`` and ``EditPlanner`` are its two kinds.
struct JobPlanner: Sendable {
    let client: FlickrClient
    let store: JobStore
    /// Reads in flight at once.
    var concurrency = 4
    var source: (any JobSource)?
    /// Calls made for this plan before it began (the licences' and sets' lists a front end read
    /// to check its options), counted with the plan's own.
    var lookupCalls = 0

    /// What a plan found.
    struct Planned<Work: PlanWork>: Sendable {
        var job: String
        var enumerated: Int
        var changes: [Work.Change]
        var refused: [(change: Work.Change, refusal: Work.Refusal)]
        var calls: Int
        var warnings: [String]
    }

    func plan<Work: PlanWork>(_ work: Work, query: [String: String], find: [String: String]?,
                              mirrorQueries: Bool) async throws -> Planned<Work> {
        let planTime = Int(Date().timeIntervalSince1970) - 1
        // Every request the plan sends is counted as sent — selection, reads, look-ups, what a
        // rule calls — not foreseen from what it meant to send.
        let sentBefore = client.requestsSent
        let selection = try await PlanSelection.select(client: client, source: source, query: query, find: find,
                                                       mirrorQueries: mirrorQueries)
        let candidates = selection.photos.filter(work.mayChange).map(\.id)
        var pres = try source.map { try work.mirrored(candidates, source: $0) } ?? [:]
        let unknown = candidates.filter { pres[$0] == nil }
        let read = try await readConcurrently(unknown, concurrency: concurrency) { [client] id in try await work.read(id, client: client) }
        for (id, pre) in zip(unknown, read) { pres[id] = pre }
        try await work.complete(&pres, client: client)

        var changes: [Work.Change] = []
        var refused: [(change: Work.Change, refusal: Work.Refusal)] = []
        var warnings: [String] = []
        for id in candidates {
            guard let pre = pres[id], work.owner(of: pre) == selection.owner else { continue }
            let (plan, said) = try await work.plan(pre)
            warnings += said
            switch plan {
            case .unchanged: continue
            case .change(let change): changes.append(change)
            case .refused(let change, let refusal): refused.append((change, refusal))
            }
        }
        let calls = lookupCalls + client.requestsSent - sentBefore
        let id = JobStore.newID(kind: Work.kind.rawValue)
        try store.create(NewJob(id: id, kind: Work.kind, undoOf: nil, owner: selection.owner, endpoint: client.context.endpoints.rest,
                                rules: work.rules, query: work.recordedQuery, planTime: planTime, enumerated: selection.photos.count,
                                calls: calls, changes: []),
                         changes: changes + refused.map(\.change))
        for (change, refusal) in refused {
            try store.record(job: id, photo: change.photoID, .refused, detail: work.detail(refusal))
        }
        return Planned(job: id, enumerated: selection.photos.count, changes: changes, refused: refused, calls: calls, warnings: warnings)
    }
}
