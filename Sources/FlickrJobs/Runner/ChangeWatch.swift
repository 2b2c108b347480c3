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

    /// Looks again: every page of `recentlyUpdated` since the previous look.
    mutating func look(link: RunLink, calls: inout Int) async throws {
        let started = Int(Date().timeIntervalSince1970)
        var page = 1
        while true {
            let rsp = try await link.call("flickr.photos.recentlyUpdated",
                                          ["min_date": String(from), "per_page": "500", "page": String(page), "extras": "last_update"],
                                          calls: &calls)
            for p in rsp["photos"]?["photo"]?.array ?? [] {
                if let id = p["id"]?.string { stamps[id] = p["lastupdate"]?.int ?? 0 }
            }
            if page >= (rsp["photos"]?["pages"]?.int ?? 1) { break }
            page += 1
        }
        from = max(from, started)
    }
}
