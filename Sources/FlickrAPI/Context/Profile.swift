import Foundation

/// Stored credentials: what `flickr login` writes and every later run reads.
public struct FlickrProfile: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The app's API key (`api_key`).
    public var apiKey: String?
    /// The app's shared secret, which signs requests.
    public var apiSecret: String?
    /// The user's OAuth access token, when logged in.
    public var oauthToken: String?
    /// The access token's secret.
    public var oauthTokenSecret: String?
    /// The logged-in user's NSID (`12345678@N00`).
    public var userNSID: String?
    /// The logged-in user's screen name.
    public var username: String?
    /// The permission the token grants: `read`, `write` or `delete` (`FlickrPermission`'s raw values).
    public var perms: String?
    /// The logged-in user's full name, as Flickr gave it at login.
    public var fullname: String?
    /// A base URL other than Flickr's (`--endpoint`), if the token belongs to one.
    public var endpoint: String?

    /// A profile with the given fields; nil leaves one unset.
    public init(apiKey: String? = nil, apiSecret: String? = nil, oauthToken: String? = nil,
                oauthTokenSecret: String? = nil, userNSID: String? = nil, username: String? = nil,
                perms: String? = nil, fullname: String? = nil, endpoint: String? = nil) {
        self.fullname = fullname
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.oauthToken = oauthToken
        self.oauthTokenSecret = oauthTokenSecret
        self.userNSID = userNSID
        self.username = username
        self.perms = perms
        self.endpoint = endpoint
    }

    enum CodingKeys: String, CodingKey {
        case apiKey = "api_key", apiSecret = "api_secret", oauthToken = "oauth_token"
        case oauthTokenSecret = "oauth_token_secret", userNSID = "user_nsid", username, perms, fullname, endpoint
    }

    /// Fields of `other` fill the ones missing here (`self` wins).
    public func filled(from other: FlickrProfile) -> FlickrProfile {
        FlickrProfile(apiKey: apiKey ?? other.apiKey, apiSecret: apiSecret ?? other.apiSecret,
                      oauthToken: oauthToken ?? other.oauthToken, oauthTokenSecret: oauthTokenSecret ?? other.oauthTokenSecret,
                      userNSID: userNSID ?? other.userNSID, username: username ?? other.username,
                      perms: perms ?? other.perms, fullname: fullname ?? other.fullname,
                      endpoint: endpoint ?? other.endpoint)
    }

    /// The credentials from `FLICKR_API_KEY`, `FLICKR_API_SECRET`, `FLICKR_OAUTH_TOKEN`,
    /// `FLICKR_OAUTH_TOKEN_SECRET`, `FLICKR_ENDPOINT`.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> FlickrProfile {
        func value(_ k: String) -> String? { env[k].flatMap { $0.isEmpty ? nil : $0 } }
        return FlickrProfile(apiKey: value("FLICKR_API_KEY"), apiSecret: value("FLICKR_API_SECRET"),
                             oauthToken: value("FLICKR_OAUTH_TOKEN"), oauthTokenSecret: value("FLICKR_OAUTH_TOKEN_SECRET"),
                             endpoint: value("FLICKR_ENDPOINT"))
    }

    /// The form `description` shows: the fields, with the secret and the tokens masked.
    public var description: String {
        "FlickrProfile(apiKey: \(apiKey ?? "nil"), apiSecret: \(apiSecret.map(Redaction.mask) ?? "nil"), "
            + "oauthToken: \(oauthToken.map(Redaction.mask) ?? "nil"), oauthTokenSecret: \(oauthTokenSecret.map(Redaction.mask) ?? "nil"), "
            + "user: \(userNSID ?? "nil") \(username ?? ""), endpoint: \(endpoint ?? "Flickr"))"
    }
}

/// Profiles on disk: `$XDG_CONFIG_HOME/flickr/profiles/NAME.json` (default
/// `~/.config/flickr/profiles/`), written atomically with mode 0600.
public struct ProfileStore: Sendable {
    /// The folder holding one `NAME.json` per profile.
    public let directory: URL

    /// The store in `directory` (created when a profile is first saved).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The store under `$XDG_CONFIG_HOME/flickr/profiles` or `~/.config/flickr/profiles`.
    public init(environment env: [String: String] = ProcessInfo.processInfo.environment) {
        if let xdg = env["XDG_CONFIG_HOME"], !xdg.isEmpty {
            directory = URL(fileURLWithPath: xdg).appendingPathComponent("flickr/profiles")
        } else {
            let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            directory = URL(fileURLWithPath: home).appendingPathComponent(".config/flickr/profiles")
        }
    }

    /// `NAME` from `--profile`, `FLICKR_PROFILE`, else "default".
    public static func profileName(explicit: String?, environment env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        explicit ?? env["FLICKR_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    }

    /// The file of the profile `name`.
    /// - Throws: A `usage` ``FlickrError`` for a name that is empty, starts with `.`, or has a
    ///   character other than letters, digits, `-`, `_` and `.`.
    public func url(for name: String) throws(FlickrError) -> URL {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }), !name.hasPrefix(".") else {
            throw FlickrError.usage("bad profile name \"\(name)\": use letters, digits, - _ .")
        }
        return directory.appendingPathComponent(name + ".json")
    }

    /// The names of the stored profiles, sorted (none when the directory does not exist).
    public func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The profile, or nil when none is stored under `name`.
    public func load(_ name: String) throws(FlickrError) -> FlickrProfile? {
        let file = try url(for: name)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw FlickrError.usage("cannot read profile \(file.path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(FlickrProfile.self, from: data)
        } catch {
            throw FlickrError.usage("cannot read profile \(file.path): \(Self.problem(error, in: data))",
                                    remedy: .init(commandLine: "; fix it, or delete it and run `flickr login` again",
                                                  swift: "; fix it, or delete it and save the profile again"))
        }
    }

    /// A warning when profile `name`'s file (it holds secrets) can be read by others than its
    /// owner, naming the fix; nil when it cannot, or does not exist.
    public func exposure(of name: String) -> String? {
        guard let file = try? url(for: name), let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 else { return nil }
        return "profile \(file.path) holds secrets and can be read by others (mode \(String(mode, radix: 8))): run chmod 600 \(file.path)"
    }

    /// What the JSON reader found wrong in a profile, where it can say so by line: `unexpected
    /// end of data at line 5`, `invalid value at line 2, column 9`, `api_key: expected text`.
    static func problem(_ error: any Error, in data: Data) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return (c.codingPath.map(\.stringValue).joined(separator: ".") + ": " + c.debugDescription).trimmingCharacters(in: .whitespaces)
        default:
            break
        }
        let text = String(decoding: data, as: UTF8.self)
        func position(_ offset: Int) -> String {
            let before = text.utf8.prefix(offset)
            let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
            return "line \(line), column \(column)"
        }
        do {
            _ = try JSONSerialization.jsonObject(with: data)
        } catch {
            let said = (error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)"
            if said.localizedCaseInsensitiveContains("end of file") {
                return "unexpected end of data at line \(text.split(separator: "\n", omittingEmptySubsequences: false).count)"
            }
            if let match = said.firstMatch(of: /around (?:line \d+, column \d+, |)character (\d+)/), let n = Int(match.1) {
                return "invalid JSON at \(position(n))"
            }
            return said
        }
        return "not a profile (an object of text values such as api_key, oauth_token) — \(error.localizedDescription)"
    }

    /// Writes the profile atomically: a 0600 temporary file in the same folder, then rename.
    public func save(_ profile: FlickrProfile, as name: String) throws(FlickrError) {
        let file = try url(for: name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(profile)
            let temp = directory.appendingPathComponent(".\(name).json.\(getpid()).tmp")
            let fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0o600)
            guard fd >= 0 else { throw POSIXFailure(call: "open", errno: errno) }
            var ok = data.withUnsafeBytes { raw in write(fd, raw.baseAddress, raw.count) == raw.count }
            ok = ok && fsync(fd) == 0
            close(fd)
            guard ok, rename(temp.path, file.path) == 0 else {
                let failure = POSIXFailure(call: "write/rename", errno: errno)
                unlink(temp.path)
                throw failure
            }
        } catch let error as FlickrError {
            throw error
        } catch {
            throw FlickrError.usage("cannot write profile \(file.path): \(error)")
        }
    }

    /// Removes a stored profile; true if there was one.
    @discardableResult
    public func delete(_ name: String) throws(FlickrError) -> Bool {
        let file = try url(for: name)
        guard FileManager.default.fileExists(atPath: file.path) else { return false }
        guard unlink(file.path) == 0 else { throw FlickrError.usage("cannot remove \(file.path): \(String(cString: strerror(errno)))") }
        return true
    }

    struct POSIXFailure: Error, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }
}
