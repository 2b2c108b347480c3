import FlickrAPI
import FlickrProtocol

/// A photo as a listing reports it: enough to decide whether a rule may touch it.
public struct ListedPhoto: Sendable, Hashable {
    public var id: String
    public var cleanTags: Set<String>
    public var lastUpdate: Int

    public init(id: String, cleanTags: Set<String>, lastUpdate: Int) {
        self.id = id
        self.cleanTags = cleanTags
        self.lastUpdate = lastUpdate
    }
}

/// Lists every photo of the caller that a selection names, complete past the 4,000-result cap
/// of `flickr.photos.search`: all photos come from `people.getPhotos` and a set from
/// `photosets.getPhotos` (neither is capped); a search whose total passes the cap is split into
/// upload-date windows until each holds at most 4,000. Each photo is listed once.
public struct PhotoEnumerator: Sendable {
    public let client: FlickrClient
    /// The search cap (Flickr documents 4,000).
    public var cap = 4_000
    static let extras = "tags,machine_tags,last_update,date_upload"

    public init(client: FlickrClient) { self.client = client }

    /// The photos, and the calls it took.
    public func photos(query: [String: String]) async throws(FlickrError) -> (photos: [ListedPhoto], calls: Int) {
        var calls = 0
        var seen = Set<String>()
        var out: [ListedPhoto] = []
        func take(_ page: [ListedPhoto]) { for p in page where seen.insert(p.id).inserted { out.append(p) } }
        if let set = query["photoset_id"] {
            try await pages("flickr.photosets.getPhotos", ["photoset_id": set], list: "photoset", calls: &calls, take)
        } else if query.keys.allSatisfy({ $0 == "user_id" }) {
            try await pages("flickr.people.getPhotos", ["user_id": "me"], list: "photos", calls: &calls, take)
        } else {
            var arguments = query
            arguments["user_id"] = "me"
            arguments["sort"] = "date-posted-asc"
            let lo = query["min_upload_date"].flatMap { Int($0) } ?? 0
            let hi = query["max_upload_date"].flatMap { Int($0) } ?? Int(Date.now.timeIntervalSince1970) + 86_400
            try await window(arguments, lo, hi, calls: &calls, take)
        }
        return (out, calls)
    }

    /// All pages of an uncapped listing.
    private func pages(_ method: String, _ arguments: [String: String], list: String, calls: inout Int,
                       _ take: ([ListedPhoto]) -> Void) async throws(FlickrError) {
        var page = 1
        while true {
            var args = arguments
            args["per_page"] = "500"
            args["page"] = String(page)
            args["extras"] = Self.extras
            let rsp = try await client.call(method, args)
            calls += 1
            let node = rsp[list]
            take(Self.listed(node))
            let pages = node?["pages"]?.int ?? 1
            if page >= pages || (node?["photo"]?.array.isEmpty ?? true) { break }
            page += 1
        }
    }

    /// A search over upload dates `lo...hi` (both inclusive), split while past the cap.
    private func window(_ arguments: [String: String], _ lo: Int, _ hi: Int, calls: inout Int,
                        _ take: ([ListedPhoto]) -> Void) async throws(FlickrError) {
        var args = arguments
        args["min_upload_date"] = String(lo)
        args["max_upload_date"] = String(hi)
        args["per_page"] = "500"
        args["extras"] = Self.extras
        args["page"] = "1"
        let first = try await client.call("flickr.photos.search", args)
        calls += 1
        let total = first["photos"]?["total"]?.int ?? 0
        if total > cap, hi > lo {
            let mid = lo + (hi - lo) / 2
            try await window(arguments, lo, mid, calls: &calls, take)
            try await window(arguments, mid + 1, hi, calls: &calls, take)
            return
        }
        take(Self.listed(first["photos"]))
        let pages = first["photos"]?["pages"]?.int ?? 1
        var page = 2
        while page <= pages, (page - 1) * 500 < cap {
            args["page"] = String(page)
            let rsp = try await client.call("flickr.photos.search", args)
            calls += 1
            take(Self.listed(rsp["photos"]))
            page += 1
        }
    }

    static func listed(_ node: FlickrNode?) -> [ListedPhoto] {
        (node?["photo"]?.array ?? []).compactMap { p in
            guard let id = p["id"]?.string else { return nil }
            let words = ((p["tags"]?.string ?? "") + " " + (p["machine_tags"]?.string ?? "")).split(separator: " ").map(String.init)
            return ListedPhoto(id: id, cleanTags: Set(words), lastUpdate: p["lastupdate"]?.int ?? 0)
        }
    }
}

import Foundation
