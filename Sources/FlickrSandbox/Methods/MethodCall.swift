import FlickrProtocol

/// One REST call that passed authentication and the catalog checks, as a handler sees it.
struct MethodCall: Sendable {
    let method: FlickrMethod
    let request: SandboxRequest
    let params: [String: String]
    let caller: SandboxCaller
    let now: Int

    /// `http://HOST` as the client addressed the sandbox (for photo and page URLs).
    var baseURL: String { request.baseURL }

    /// A parameter with surrounding spaces removed; nil when missing or empty.
    func string(_ name: String) -> String? {
        guard let v = params[name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
        return v
    }

    /// An integer parameter; nil when missing or not a number.
    func int(_ name: String) -> Int? { string(name).flatMap { Int($0) } }

    /// A 0/1 flag; nil when missing.
    func flag(_ name: String) -> Bool? { string(name).map { $0 == "1" || $0.lowercased() == "true" } }

    /// The logged-in user's NSID, or error 99 as Flickr answers.
    func requireUser() throws(APIFailure) -> String {
        guard let user = caller.user else {
            throw APIFailure(.insufficientPermissions, "Insufficient permissions. Method requires read privileges; none granted.")
        }
        return user
    }

    /// `page`/`per_page` as Flickr applies them: per_page defaults to 100 and is clamped to 500.
    func paging(defaultPerPage: Int = SandboxLimits.defaultPerPage) -> (page: Int, perPage: Int) {
        var perPage = int("per_page") ?? defaultPerPage
        if perPage < 1 { perPage = defaultPerPage }
        perPage = min(perPage, SandboxLimits.maxPerPage)
        let page = max(1, int("page") ?? 1)
        return (page, perPage)
    }

    /// The page of `items` that ``paging(defaultPerPage:)`` chooses, with the page count.
    func page<Item>(of items: [Item]) -> (items: ArraySlice<Item>, page: Int, pages: Int, perPage: Int) {
        let (page, perPage) = paging()
        let start = min(items.count, (page - 1) * perPage)
        return (items[start..<min(items.count, start + perPage)], page, max(1, (items.count + perPage - 1) / perPage), perPage)
    }
}
