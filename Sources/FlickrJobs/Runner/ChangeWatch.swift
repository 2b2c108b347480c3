import Foundation

/// Which photos changed on Flickr since a job's plan (`photo id → lastupdate`), kept current
/// during a run without re-reading what it already read: the first look asks
/// `photos.recentlyUpdated` since the plan, each later one only since the previous look began
/// (whole seconds, so that a change in that second is not lost), and the answers are merged.
/// The job's own writes are in the answers too: a look every ``interval`` photos finds about
/// that many of them, two pages of 500 — where asking since the plan each time grew with the
/// square of the job (1 + 2 + … pages).
struct ChangeWatch {
    /// Photos between two looks.
    static let interval = 960

    private(set) var stamps: [String: Int] = [:]
    private var from: Int

    init(planTime: Int) {
        from = planTime
    }

    /// The last `lastupdate` seen for `id`, if it changed since the plan.
    subscript(_ id: String) -> Int? { stamps[id] }

    /// Looks again (through retag's paged reader of `recentlyUpdated`).
    mutating func look(using runner: RetagRunner, link: RunLink, calls: inout Int) async throws {
        let started = Int(Date().timeIntervalSince1970)
        let found = try await runner.recentlyUpdated(since: from, link: link, calls: &calls)
        stamps.merge(found) { _, new in new }
        from = max(from, started)
    }
}
