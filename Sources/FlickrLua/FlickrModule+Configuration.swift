import FlickrAPI
import FlickrJobs
import LuaKit

/// `flickr.configure{}` and `flickr.config()`.
extension FlickrModule {
    func installConfiguration(_ state: LuaState, _ flickr: Int32) {
        define(state, flickr, "configure") { call in
            try call.table(1)
            var settings = self.explicit
            var budget: CallBudget??
            try Self.read(call, into: &settings, budget: &budget)
            // `budget = "N/SECONDS"` (false: none): the per-key budget every flickr process shares.
            if let budget {
                self.client.pacer = try budget.map { try SharedBudget(budget: $0, store: self.jobStore()) }
            }
            let previous = self.explicit
            self.explicit = settings
            do {
                try self.apply(on: call.state)
            } catch {
                self.explicit = previous
                throw FlickrError.usage("cannot apply the configuration: \(error)", method: "flickr.configure")
            }
            return .none
        }
        define(state, flickr, "config") { call in
            self.pushConfig(call.state)
            return .results(1)
        }
    }

    /// The keys `configure` accepts; anything else is a usage error.
    static let configurationKeys: Set<String> = [
        "api_key", "secret", "token", "token_secret", "auth_token", "endpoint", "profile", "format", "timeout",
        "upload_timeout", "retries", "rate", "burst", "budget",
    ]

    private static func read(_ call: LuaCall, into settings: inout FlickrSettings, budget: inout CallBudget??) throws {
        let s = call.state
        try s.forEachRawEntry(inTableAt: 1) { e in
            let k = e.keyIndex
            s.pushCopy(of: e.valueIndex)  // the value on top, where the readers below look
            guard s.type(at: k) == .string, let key = s.bytes(at: k).map({ String(decoding: $0, as: UTF8.self) }),
                  configurationKeys.contains(key) else {
                let shown = s.type(at: k) == .string ? s.bytes(at: k).map { String(decoding: $0, as: UTF8.self) } ?? "?" : s.typeName(at: k)
                throw FlickrError.usage("unknown setting '\(shown)' (known: \(configurationKeys.sorted().joined(separator: ", ")))",
                                        method: "flickr.configure")
            }
            let clear = s.type(at: -1) == .boolean && !s.boolean(at: -1)
            func text() throws -> String? {
                if clear { return nil }
                guard s.type(at: -1) == .string, let v = s.string(at: -1) else {
                    throw FlickrError.usage("bad setting '\(key)': string expected, got \(s.typeName(at: -1))", method: "flickr.configure")
                }
                return v
            }
            func number() throws -> Double {
                guard s.type(at: -1) == .number, let v = s.number(at: -1), v >= 0 else {
                    throw FlickrError.usage("bad setting '\(key)': a non-negative number expected", method: "flickr.configure")
                }
                return v
            }
            switch key {
            case "api_key": settings.apiKey = try text()
            case "secret": settings.secret = try text()
            case "token":
                settings.token = try text()
                settings.user = nil  // whoever it was is not known for another token
            case "token_secret": settings.tokenSecret = try text()
            case "auth_token": settings.authToken = try text()
            case "endpoint": settings.endpoint = try text()
            case "profile": settings.profile = try text()
            case "format":
                guard let f = try text().map({ FlickrContext.Format(rawValue: $0) }) else {
                    settings.format = nil
                    break
                }
                guard let f else { throw FlickrError.usage("bad setting 'format': \"xml\" or \"json\" expected", method: "flickr.configure") }
                settings.format = f
            case "timeout": settings.timeout = try number()
            case "upload_timeout": settings.uploadTimeout = try number()
            case "retries": settings.retries = Int(try number())
            case "burst": settings.burst = max(1, Int(try number()))
            case "rate":
                if clear || (s.type(at: -1) == .string && s.string(at: -1) == "unlimited") {
                    settings.rate = .some(nil)
                } else {
                    let r = try number()
                    settings.rate = .some(r == 0 ? nil : r)
                }
            case "budget":
                if clear {
                    budget = .some(nil)
                } else {
                    guard let text = try text() else { break }
                    do { budget = .some(try CallBudget.parse(text)) } catch {
                        throw FlickrError.usage("bad setting 'budget': \(error)", method: "flickr.configure")
                    }
                }
            default: break
            }
            return true
        }
    }

    /// The settings in force, secrets masked.
    private func pushConfig(_ state: LuaState) {
        let ctx = client.context
        let e = effective
        state.newTable(record: 16)
        func set(_ key: String, _ value: String?) {
            guard let value else { return }
            state.push(value)
            state.rawSet(field: key, in: -2)
        }
        func set(_ key: String, _ value: Double) {
            if value == value.rounded() && abs(value) < 1e15 { state.push(Int64(value)) } else { state.push(value) }
            state.rawSet(field: key, in: -2)
        }
        set("api_key", ctx.apiKey.isEmpty ? nil : ctx.apiKey)
        set("secret", ctx.sharedSecret.isEmpty ? nil : Redaction.mask(ctx.sharedSecret))
        set("token", ctx.oauthToken.map(Redaction.mask))
        set("token_secret", ctx.oauthTokenSecret.map(Redaction.mask))
        set("auth_token", ctx.authToken.map(Redaction.mask))
        set("endpoint", e.endpoint)
        set("rest", ctx.endpoints.rest)
        set("profile", e.profile)
        set("user", e.user)
        set("format", ctx.format.rawValue)
        set("timeout", ctx.requestTimeout)
        set("upload_timeout", ctx.uploadTimeout)
        set("retries", Double(ctx.retryPolicy.maxAttempts - 1))
        if let r = ctx.ratePolicy.callsPerSecond { set("rate", r) } else { set("rate", "unlimited") }
        set("burst", Double(ctx.ratePolicy.burst))
        set("budget", (client.pacer as? SharedBudget)?.budget.description ?? "none")
        set("signed_in", ctx.hasOAuthToken ? "oauth" : (ctx.authToken != nil ? "legacy" : nil))
    }
}
