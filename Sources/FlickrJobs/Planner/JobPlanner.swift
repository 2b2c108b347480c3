import FlickrAPI
import Foundation

/// The one path every kind of job is planned by, reading only: the owner and the selection
/// (``PlanSelection``: the library brought up to date, or Flickr), then, batch by batch, each
/// selected photo's pre-image (the library's where it holds one, else Flickr's, a few reads at a
/// time), each photo's plan by its kind (``PlanWork``), and the batch stored in the job — pre-
/// images, targets, refusals — before the next is read. Memory stays bounded by a batch, not
/// the selection; the job can be applied only once its last batch is stored
/// (``JobStore/finish(_:enumerated:calls:)``). ``RetagPlanner`` and ``EditPlanner`` are its two
/// kinds.
struct JobPlanner: Sendable {
    let client: FlickrClient
    let store: JobStore
    /// Reads in flight at once.
    var concurrency = 4
    var source: (any JobSource)?
    /// Calls made for this plan before it began (the licences' and sets' lists a front end read
    /// to check its options), counted with the plan's own.
    var lookupCalls = 0
    /// Photos read, planned and stored together.
    var batch = 1_000

    /// What a plan found (its photos are in the store: ``JobStore/eachPage(of:as:statuses:size:_:)``).
    struct Planned: Sendable {
        var job: String
        var enumerated: Int
        /// Photos it will change.
        var changed: Int
        /// Photos Flickr would refuse (stored as refused, never sent).
        var refused: Int
        var calls: Int
        var warnings: [String]
    }

    func plan<Work: PlanWork>(_ work: Work, query: [String: String], find: [String: String]?,
                              mirrorQueries: Bool) async throws -> Planned {
        let planTime = Int(Date().timeIntervalSince1970) - 1
        // Every request the plan sends is counted as sent — selection, reads, look-ups, what a
        // rule calls — not foreseen from what it meant to send.
        let sentBefore = client.requestsSent
        let selection = try await PlanSelection.select(client: client, source: source, query: query, find: find,
                                                       mirrorQueries: mirrorQueries)
        let candidates = selection.photos.filter(work.mayChange).map(\.id)
        let enumerated = selection.photos.count
        let work = try await work.prepared(client: client)
        let id = JobStore.newID(kind: Work.kind.rawValue)
        var writer = try store.beginPlan(NewJob(id: id, kind: Work.kind, undoOf: nil, owner: selection.owner,
                                                endpoint: client.context.endpoints.rest, rules: work.rules, query: work.recordedQuery,
                                                planTime: planTime, enumerated: enumerated, calls: 0, changes: []))
        var planned = Planned(job: id, enumerated: enumerated, changed: 0, refused: 0, calls: 0, warnings: [])
        do {
            var start = 0
            while start < candidates.count {
                let ids = Array(candidates[start..<min(start + max(1, batch), candidates.count)])
                start += ids.count
                let (changes, refused, warnings) = try await planBatch(ids, work: work, owner: selection.owner)
                try store.append(&writer, changes: changes, refused: refused.map { ($0.change, work.detail($0.refusal)) })
                planned.changed += changes.count
                planned.refused += refused.count
                planned.warnings += warnings
                CrashPoint.afterPlanBatch()
            }
            planned.calls = lookupCalls + client.requestsSent - sentBefore
            try store.finish(writer, enumerated: enumerated, calls: planned.calls)
        } catch {
            store.discard(writer)
            throw error
        }
        return planned
    }

    /// One batch: its pre-images (the source's, then Flickr's for the rest) and each photo's plan,
    /// in the order of `ids`. A photo gone since it was listed, or of another owner, is left out.
    private func planBatch<Work: PlanWork>(_ ids: [String], work: Work, owner: String) async throws
        -> (changes: [Work.Change], refused: [(change: Work.Change, refusal: Work.Refusal)], warnings: [String]) {
        var pres = try source.map { try work.mirrored(ids, source: $0) } ?? [:]
        let unknown = ids.filter { pres[$0] == nil }
        let read = try await readConcurrently(unknown, concurrency: concurrency) { [client] id in try await work.read(id, client: client) }
        for (id, pre) in zip(unknown, read) { pres[id] = pre }
        work.complete(&pres)

        var changes: [Work.Change] = []
        var refused: [(change: Work.Change, refusal: Work.Refusal)] = []
        var warnings: [String] = []
        for id in ids {
            guard let pre = pres[id], work.owner(of: pre) == owner else { continue }
            let (plan, said) = try await work.plan(pre)
            warnings += said
            switch plan {
            case .unchanged: continue
            case .change(let change): changes.append(change)
            case .refused(let change, let refusal): refused.append((change, refusal))
            }
        }
        return (changes, refused, warnings)
    }
}
