import FlickrMedia
import FlickrProtocol
import Foundation
import Logging

/// Everything behind the HTTP layer: the state store, the runtime controls and the protocol
/// logic. Transport-free, so each piece is a plain function from a request to a reply.
final class SandboxEngine: Sendable {
    let store: SandboxStore
    let controls: SandboxControls
    let logger: Logger
    /// What a photo's own bytes say (EXIF, IPTC, XMP), read at upload as Flickr does.
    let embedded = ExifTool()
    /// The default user's built-in write token.
    let defaultToken: SandboxToken
    /// The registered app (fixed for the life of the server).
    let credentialsApp: SandboxApp

    init(store: SandboxStore, controls: SandboxControls, logger: Logger) {
        self.store = store
        self.controls = controls
        self.logger = logger
        // The default user always holds a write token; reuse a persisted one if there is one.
        let (app, token) = store.write { state -> (SandboxApp, SandboxToken) in
            if let existing = state.tokens.values.filter({
                $0.kind == .access && $0.user == state.defaultUser && $0.perms == .write && $0.callback == "builtin"
            }).min(by: { $0.token < $1.token }) {
                return (state.app, existing)
            }
            let token = SandboxToken(token: SandboxIDs.token(), secret: SandboxIDs.hex(16), kind: .access,
                                     user: state.defaultUser, perms: .write, callback: "builtin", verifier: nil)
            state.tokens[token.token] = token
            return (state.app, token)
        }
        credentialsApp = app
        defaultToken = token
    }

    /// Seconds since 1970, as OAuth timestamps count.
    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// Issues an access token for a user (the default user when `username` is nil).
    func issueToken(username: String?, perms: FlickrPermission) throws -> SandboxToken {
        try store.update { (state: inout SandboxState) throws(SandboxError) -> SandboxToken in
            let nsid: String
            if let username {
                guard let user = state.resolveUser(username) else { throw SandboxError("no such user: \(username)") }
                nsid = user.nsid
            } else {
                nsid = state.defaultUser
            }
            let token = SandboxToken(token: SandboxIDs.token(), secret: SandboxIDs.hex(16), kind: .access, user: nsid,
                                     perms: perms, callback: nil, verifier: nil)
            state.tokens[token.token] = token
            return token
        }
    }
}
