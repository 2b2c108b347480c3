import FlickrAPI
import FlickrProtocol
import LuaKit

/// URL helpers, `flickr.help`, `flickr.methods`.
extension FlickrModule {
    func installHelpers(_ state: LuaState, _ flickr: Int32) {
        // flickr.photo_url(photo, size): from the shared secret for s…b, from url_* /
        // originalsecret extras for larger sizes, else one flickr.photos.getSizes call.
        define(state, flickr, "photo_url") { call in
            try call.table(1)
            let suffix = try call.optionalString(2) ?? ""
            guard let size = PhotoSize(suffix: suffix) else {
                throw call.argumentError(2, "unknown size '\(suffix)' (s q t m n w \"\" z c b h k 3k 4k f 5k 6k o)")
            }
            guard let photo = ResponseMapping.node(at: 1, in: call.state) else { throw call.typeError(1, expected: "photo table") }
            let images = self.client.context.endpoints.images
            do {
                call.state.push(try PhotoURL.source(photo, size: size, images: images))
                return .results(1)
            } catch let error as FlickrError where !size.usesSharedSecret && error.kind == .usage && photo["id"] != nil {
                return self.photoURLFromSizes(photo: photo, size: size)
            }
        }
        define(state, flickr, "photo_page_url") { call in
            try call.table(1)
            guard let photo = ResponseMapping.node(at: 1, in: call.state) else { throw call.typeError(1, expected: "photo table") }
            call.state.push(try PhotoURL.page(photo, web: self.client.context.endpoints.web))
            return .results(1)
        }
        define(state, flickr, "short_url") { call in
            call.state.push(try PhotoURL.short(photoID: try call.string(1)))
            return .results(1)
        }
        define(state, flickr, "photo_id_from_short_url") { call in
            call.state.push(try PhotoURL.photoID(fromShortURL: try call.string(1)))
            return .results(1)
        }
        // flickr.parse_xml(text) → tables, by the rules of every response (a saved answer, a fixture).
        define(state, flickr, "parse_xml") { call in
            guard call.type(1) == .string else { throw call.typeError(1, expected: "string") }
            try call.state.push(flickrXMLAt: 1)
            return .results(1)
        }
        define(state, flickr, "methods") { call in
            // A group is the names under a dotted path (`flickr.photos` is not `flickr.photosets`),
            // as `flickr help photos` lists them.
            let names = try call.optionalString(1).map { group in MethodCatalog.shared.methods(inGroup: group).map(\.name).sorted() }
                ?? MethodCatalog.shared.names.sorted()
            call.state.newTable(array: Int32(names.count))
            for (i, n) in names.enumerated() {
                call.state.push(n)
                call.state.rawSet(index: Int64(i + 1), in: -2)
            }
            return .results(1)
        }
        define(state, flickr, "help") { call in
            try Self.pushHelp(call)
            return .results(1)
        }
    }

    /// One getSizes call; the size whose source URL ends in `_<suffix>.` (or whose label fits).
    private func photoURLFromSizes(photo: FlickrNode, size: PhotoSize) -> LuaReturn {
        let client = self.client
        let id = photo["id"]?.string ?? photo["id"]?.text ?? ""
        return asyncReturn("flickr.photo_url", { () async throws -> String in
            let rsp = try await client.call("flickr.photos.getSizes", ["photo_id": id])
            let sizes = rsp["sizes.size"]?.array ?? []
            let labels: [PhotoSize: [String]] = [
                .large1600: ["Large 1600"], .large2048: ["Large 2048"], .xLarge3K: ["X-Large 3K"],
                .xLarge4K: ["X-Large 4K"], .xLarge4KF: ["X-Large 4K"], .xLarge5K: ["X-Large 5K"],
                .xLarge6K: ["X-Large 6K"], .original: ["Original"],
            ]
            for s in sizes {
                guard let source = s["source"]?.string else { continue }
                let file = source.split(separator: "/").last.map(String.init) ?? source
                if file.contains("_" + size.rawValue + ".") { return source }
                if let label = s["label"]?.string, labels[size]?.contains(label) == true { return source }
            }
            throw FlickrError.usage("photo \(id) has no size '\(size.rawValue)'", method: "flickr.photo_url")
        }, deliver: { state, url in
            state.push(url)
            return 1
        })
    }

    /// flickr.help(name) → a table describing the method or group (its `text` is what it prints:
    /// the catalog's one help renderer, as `flickr help` and `:doc`); flickr.help() → an overview
    /// of the module.
    static func pushHelp(_ call: LuaCall) throws {
        let s = call.state
        guard let name = try call.optionalString(1) else {
            s.newTable()
            s.push("""
                flickr — the Flickr API from Lua
                  flickr.photos.search{ tags = "cat" }      any of the \(MethodCatalog.shared.methods.count) catalog methods
                  flickr.call(method, args, { verb =, timeout =, strict = })
                  flickr.walk(method, args, { max_pages =, windows =, snapshot = })   iterate every page
                  flickr.help(method or group), flickr.methods([prefix])
                  flickr.photo_url(photo, size), flickr.photo_page_url(photo), flickr.short_url(id)
                  flickr.upload{ file =, title =, tags =, progress = }, flickr.replace{ file =, photo_id = }
                  flickr.wait_tickets{ ticket }, flickr.check_tickets{ ticket }
                  flickr.oauth.request_token{}, .access_token(req, verifier), .login{}, .check()
                  flickr.legacy.login_url{ frob =, perms = }, .exchange(auth_token)
                  flickr.map(list, fn, { concurrency = 8, on_error = "raise"|"collect" }), flickr.parallel(f1, f2, ...)
                  flickr.configure{ ... }, flickr.config(), flickr.text(node), flickr.Error
                """)
            s.rawSet(field: "text", in: -2)
            s.pushMetatable(named: helpMetatableName)
            s.setMetatable(of: -2)
            return
        }
        let topic: MethodCatalog.HelpTopic
        do {
            topic = try MethodCatalog.shared.helpTopic(name)
        } catch {
            throw FlickrError.usage(error.message + " — flickr.methods() lists them", method: error.method)
        }
        s.newTable(record: 9)
        func set(_ key: String, _ value: String) {
            s.push(value)
            s.rawSet(field: key, in: -2)
        }
        set("text", topic.text)
        guard case .method(let method) = topic else {
            // A group: its name, its methods, and the listing as text.
            if case .group(let group, let methods) = topic {
                set("group", group)
                s.newTable(array: Int32(methods.count))
                for (i, m) in methods.enumerated() {
                    s.push(m.name)
                    s.rawSet(index: Int64(i + 1), in: -2)
                }
                s.rawSet(field: "methods", in: -2)
            }
            s.pushMetatable(named: helpMetatableName)
            s.setMetatable(of: -2)
            return
        }
        set("name", method.name)
        set("description", method.description)
        set("perms", method.perms.rawValue)
        set("verb", method.verb)
        s.push(method.needsLogin)
        s.rawSet(field: "needs_login", in: -2)
        s.newTable(array: Int32(method.arguments.count))
        for (i, a) in method.arguments.enumerated() {
            s.newTable(record: 3)
            set("name", a.name)
            set("description", a.description)
            s.push(a.optional)
            s.rawSet(field: "optional", in: -2)
            s.rawSet(index: Int64(i + 1), in: -2)
        }
        s.rawSet(field: "arguments", in: -2)
        s.newTable(array: Int32(method.errors.count))
        for (i, e) in method.errors.enumerated() {
            s.newTable(record: 3)
            s.push(Int64(e.code))
            s.rawSet(field: "code", in: -2)
            set("message", e.message)
            set("description", e.description)
            s.rawSet(index: Int64(i + 1), in: -2)
        }
        s.rawSet(field: "errors", in: -2)
        s.pushMetatable(named: helpMetatableName)
        s.setMetatable(of: -2)
    }
}
