import Foundation

/// Which account's library a query reads, without a call: a sync remembers the account it
/// synced for its endpoint (`accounts.json` beside the databases: endpoint → NSID, no secret),
/// so that `flickr find` and `flickr.library.photos` work from `FLICKR_*` variables alone.
extension LibraryStore {
    static func accountsFile(_ directory: String) -> String { directory + "/accounts.json" }

    /// Records that `endpoint` belongs to `nsid` (atomically: a temporary file renamed).
    public static func remember(_ nsid: String, endpoint: String, environment: [String: String]) {
        let dir = directory(environment: environment)
        var map = accounts(in: dir)
        guard map[endpoint] != nsid else { return }
        map[endpoint] = nsid
        guard let data = try? JSONSerialization.data(withJSONObject: map, options: [.sortedKeys, .prettyPrinted]) else { return }
        let file = accountsFile(dir)
        let temporary = file + ".\(getpid()).tmp"
        if FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) {
            _ = rename(temporary, file)
        }
    }

    static func accounts(in directory: String) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: accountsFile(directory)),
              let map = try? JSONSerialization.jsonObject(with: data) as? [String: String] else { return [:] }
        return map
    }

    /// The library a query of `endpoint` reads: the account a sync of that endpoint
    /// remembered, else the only library there is. Throws with what to do when there is none.
    public static func existing(endpoint: String, environment: [String: String]) throws(LibraryError) -> LibraryStore {
        let dir = directory(environment: environment)
        let present = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".sqlite") }
            .map { String($0.dropLast(".sqlite".count)) }.sorted()
        let nsid: String
        if let remembered = accounts(in: dir)[endpoint], present.contains(remembered.replacingOccurrences(of: "/", with: "_")) {
            nsid = remembered
        } else if present.count == 1 {
            nsid = present[0]
        } else if present.isEmpty {
            throw LibraryError("no library yet: run `flickr sync` first (it lists your photos once, about one call per 500; "
                               + "later syncs read only what changed), then queries cost no call")
        } else {
            throw LibraryError("no library synced from \(endpoint); the libraries here are \(present.joined(separator: ", ")): "
                               + "run `flickr sync` with this endpoint's credentials first")
        }
        return try LibraryStore(path: path(for: nsid, in: dir), account: nsid)
    }
}
