import FlickrAPI
import FlickrJobs
import FlickrProtocol
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
                self.client.pacer = budget.map { SharedBudget(budget: $0, path: JobStore.defaultPath(environment: self.environment)) }
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

    /// Reads the table of `configure` (every key known; `false` clears a setting).
    private static func read(_ call: LuaCall, into settings: inout FlickrSettings, budget: inout CallBudget??) throws {
        let table = try LuaOptions(state: call.state, index: 1, function: "flickr.configure", known: configurationKeys,
                                   noun: "setting")
        /// nil: not given; .some(nil): cleared with false; else the text.
        func text(_ key: String) throws -> String?? {
            table.isFalse(key) ? .some(nil) : try table.string(key).map { .some($0) }
        }
        func number(_ key: String) throws -> Double? { try table.number(key, minimum: 0) }
        if let v = try text("api_key") { settings.apiKey = v }
        if let v = try text("secret") { settings.secret = v }
        if let v = try text("token") {
            settings.token = v
            settings.user = nil  // whoever it was is not known for another token
        }
        if let v = try text("token_secret") { settings.tokenSecret = v }
        if let v = try text("auth_token") { settings.authToken = v }
        if let v = try text("endpoint") { settings.endpoint = v }
        if let v = try text("profile") { settings.profile = v }
        if table.isFalse("format") {
            settings.format = nil
        } else if let f = try table.choice("format", ["xml": FlickrContext.Format.xml, "json": .json]) {
            settings.format = f
        }
        if let v = try number("timeout") { settings.timeout = v }
        if let v = try number("upload_timeout") { settings.uploadTimeout = v }
        if let v = try number("retries") { settings.retries = Int(v) }
        if let v = try number("burst") { settings.burst = max(1, Int(v)) }
        if table.isFalse("rate") || (try? table.choice("rate", ["unlimited": true])) == true {
            settings.rate = .some(nil)
        } else if let r = try table.number("rate", minimum: 0, expected: "calls per second (a non-negative number) or \"unlimited\"") {
            settings.rate = .some(r == 0 ? nil : r)
        }
        if table.isFalse("budget") {
            budget = .some(nil)
        } else if let text = try table.string("budget", expected: "\"N/SECONDS\" or false") {
            do { budget = .some(try CallBudget.parse(text)) } catch {
                throw table.bad("budget", expected: "\"N/SECONDS\" or false", got: "'\(text)': \(error)")
            }
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
