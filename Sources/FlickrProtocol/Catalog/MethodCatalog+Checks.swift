/// Why a call was refused before any request: the method or an argument name is not in the
/// catalog, or a required argument is missing. `message` is written for a person and names
/// what to change.
public struct CallCheckFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The method as given or, once resolved, as the catalog spells it.
    public var method: String
    /// What is wrong, without advice (`unknown argument photoid (did you mean photo_id?)`).
    public var reason: String
    /// How a person at the command line or in Lua gets past it (starts with its separator).
    public var commandLineAdvice: String
    /// How a Swift caller gets past it (starts with its separator).
    public var swiftAdvice: String

    /// A refusal of `method` for `reason`; each advice starts with its separator (`: `, `; `).
    public init(method: String, reason: String, commandLineAdvice: String = "", swiftAdvice: String = "") {
        (self.method, self.reason, self.commandLineAdvice, self.swiftAdvice) = (method, reason, commandLineAdvice, swiftAdvice)
    }

    /// The reason with the command line's advice: what `flickr call` and Lua say.
    public var message: String { reason + commandLineAdvice }
    /// The form `description` shows: `method: message`.
    public var description: String { method + ": " + message }
}

extension FlickrMethod {
    /// The required arguments Flickr insists on: the catalog's, less those its reference marks
    /// required by mistake (``MethodCatalog/optionalInPractice``).
    public var requiredInPractice: [String] {
        requiredArguments.filter { !MethodCatalog.optionalInPractice.contains(name + " " + $0) }
    }
}

extension MethodCatalog {
    /// Arguments the catalog marks required that Flickr does not insist on ("method argument").
    public static let optionalInPractice: Set<String> = [
        "flickr.photosets.getPhotos user_id",
        "flickr.photosets.getInfo user_id",
        // Paging and response-shape switches the reference marks required by mistake.
        "flickr.galleries.getList continuation",
        "flickr.galleries.getList short_limit",
        "flickr.galleries.removePhoto full_response",
        "flickr.groups.discuss.replies.getList per_page",
    ]

    /// Arguments every method takes beyond its own: the response format switches.
    public static let formatArguments: Set<String> = ["format", "nojsoncallback", "jsoncallback"]

    /// Methods that take any argument (`flickr.test.echo` answers with what it was given).
    public static let openMethods: Set<String> = ["flickr.test.echo"]

    /// How a refusal says the check can be skipped, in both places a person makes calls.
    static let strictHint = "strict = false (Lua) or --no-strict (flickr call) sends it anyway"

    /// The method `name` names: exactly, with the `flickr.` prefix implied, or else ignoring
    /// case (`flickr.photos.getinfo` is `flickr.photos.getInfo`).
    public func resolve(_ name: String) -> FlickrMethod? {
        if let m = method(name) { return m }
        let lower = (name.hasPrefix("flickr.") || name.lowercased().hasPrefix("flickr.") ? name : "flickr." + name).lowercased()
        return methods.first { $0.name.lowercased() == lower }
    }

    /// Method names close to `name`, for "did you mean" (full names, nearest first).
    public func suggestions(forMethod name: String, limit: Int = 3) -> [String] {
        let full = name.lowercased().hasPrefix("flickr.") ? name : "flickr." + name
        return Suggestions.closest(to: full, among: names, limit: limit)
    }

    /// Checks a call before it is sent and returns the method name to send (the catalog's
    /// spelling). With `strict`, a method the catalog lacks, an argument name the method does not
    /// take, or a missing required argument (an empty value counts as given, as on Flickr) is a
    /// ``CallCheckFailure``; without, only the spelling of a known method is corrected.
    public func check(_ name: String, argumentNames: some Sequence<String>, strict: Bool = true) throws(CallCheckFailure) -> String {
        guard let method = resolve(name) else {
            let full = name.hasPrefix("flickr.") ? name : "flickr." + name
            guard strict else { return full }
            throw CallCheckFailure(method: full, reason: "no such method" + Suggestions.phrase(suggestions(forMethod: name)),
                                   commandLineAdvice: " — `flickr help` lists them; " + Self.strictHint,
                                   swiftAdvice: " — MethodCatalog.shared.names lists them; `strict: false` sends it anyway")
        }
        guard strict, !Self.openMethods.contains(method.name) else { return method.name }
        let accepted = Set(method.arguments.map(\.name)).union(Self.formatArguments)
        var given = Set<String>()
        for argument in argumentNames {
            given.insert(argument)
            guard !accepted.contains(argument) else { continue }
            let near = Suggestions.closest(to: argument, among: method.arguments.map(\.name))
            let takes = method.arguments.isEmpty ? "it takes no arguments"
                : "it takes " + method.arguments.map(\.name).joined(separator: ", ")
            throw CallCheckFailure(method: method.name, reason: "unknown argument \(argument)" + Suggestions.phrase(near) + " — \(takes)",
                                   commandLineAdvice: "; " + Self.strictHint, swiftAdvice: "; `strict: false` sends it anyway")
        }
        let missing = method.requiredInPractice.filter { !given.contains($0) }
        if !missing.isEmpty {
            throw CallCheckFailure(method: method.name, reason: "missing required argument\(missing.count > 1 ? "s" : "") "
                                   + missing.joined(separator: ", "))
        }
        return method.name
    }
}
