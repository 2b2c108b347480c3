import Foundation

/// Saved credentials: one JSON file per profile under `$XDG_CONFIG_HOME/flickr/profiles/`
/// (default `~/.config/flickr/profiles/`), written atomically with mode 0600.
///
/// ```json
/// {"api_key": "…", "api_secret": "…", "oauth_token": "…", "oauth_token_secret": "…",
///  "user_nsid": "…", "username": "…", "fullname": "…", "perms": "write", "endpoint": "…"}
/// ```
public struct FlickrProfileStore: Sendable {
    /// The directory holding the profile files.
    public var directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The store the environment points at (`XDG_CONFIG_HOME`, else `HOME/.config`).
    public init(environment env: [String: String]) {
        let base: String
        if let xdg = env["XDG_CONFIG_HOME"], !xdg.isEmpty {
            base = xdg
        } else {
            base = (env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config"
        }
        directory = base + "/flickr/profiles"
    }

    /// The file of profile `name`.
    public func path(for name: String) -> String { directory + "/" + name + ".json" }

    /// The fields of profile `name`, or nil when it does not exist.
    public func load(_ name: String) throws -> [String: String]? {
        let url = URL(fileURLWithPath: path(for: name))
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return object.compactMapValues { $0 as? String }
    }

    /// The settings of profile `name` (empty when it does not exist).
    public func settings(_ name: String) throws -> FlickrSettings {
        guard let p = try load(name) else { return FlickrSettings() }
        return FlickrSettings(apiKey: p["api_key"], secret: p["api_secret"], token: p["oauth_token"],
                              tokenSecret: p["oauth_token_secret"], endpoint: p["endpoint"])
    }

    /// Writes profile `name` atomically (temporary file with mode 0600, then rename).
    public func save(_ name: String, fields: [String: String]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.prettyPrinted, .sortedKeys])
        let final = path(for: name)
        let temporary = final + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
        if rename(temporary, final) != 0 {
            let code = errno
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}
