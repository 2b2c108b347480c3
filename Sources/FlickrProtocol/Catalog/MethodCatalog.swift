import CFlickrCatalog
import Foundation

/// Permission levels, ordered: a higher level implies the lower ones.
public enum FlickrPermission: String, Sendable, Codable, Comparable, CaseIterable {
    /// No permission: public data only, or no login at all.
    case none
    /// Read the user's private photos and data.
    case read
    /// Add, edit and delete photo metadata: tags, titles, comments, sets (`read` implied).
    case write
    /// Delete photos (`write` and `read` implied).
    case delete

    private var rank: Int {
        switch self {
        case .none: 0
        case .read: 1
        case .write: 2
        case .delete: 3
        }
    }

    /// Whether `a` grants less than `b` (`none` < `read` < `write` < `delete`).
    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// One Flickr API method as the bundled catalog describes it.
public struct FlickrMethod: Sendable, Codable, Hashable {
    /// One argument of a method, as Flickr's reference describes it.
    public struct Argument: Sendable, Codable, Hashable {
        /// The argument's name (`photo_id`).
        public var name: String
        /// Whether the reference marks it optional.
        public var optional: Bool
        /// The reference's description (HTML).
        public var description: String
    }

    /// An error code a method can answer, as Flickr's reference lists it.
    public struct ErrorInfo: Sendable, Codable, Hashable {
        /// The code (method-specific below 95, global from 95).
        public var code: Int
        /// Flickr's short message (`Photo not found`).
        public var message: String
        /// The reference's longer explanation.
        public var description: String
    }

    /// The method's full name (`flickr.photos.search`).
    public var name: String
    /// What it does, in Flickr's words (HTML).
    public var description: String
    /// Flickr's further notes (HTML), or empty.
    public var explanation: String
    /// Permission the calling token needs.
    public var perms: FlickrPermission
    /// `POST` for write and delete methods, else `GET`.
    public var verb: String
    /// Whether a call needs a logged-in user's token.
    public var needsLogin: Bool
    /// Whether a call must be signed.
    public var needsSigning: Bool
    /// Arguments other than `api_key`.
    public var arguments: [Argument]
    /// Method-specific errors (codes below 95).
    public var errors: [ErrorInfo]
    /// Global codes this method can answer (details in ``MethodCatalog/globalErrors``).
    public var globalErrors: [Int]

    /// The names of the arguments the catalog marks required, in its order.
    public var requiredArguments: [String] { arguments.filter { !$0.optional }.map(\.name) }
    /// The names of the optional arguments, in the catalog's order.
    public var optionalArguments: [String] { arguments.filter(\.optional).map(\.name) }
}

/// The method catalog bundled with the package: 223 methods built from Tests/Fixtures by
/// `scripts/build-catalog.py`. It decides the HTTP verb, feeds help and completion, and teaches
/// the XML mapper which elements repeat.
public struct MethodCatalog: Sendable {
    /// The methods, in the order given (sorted by name in ``shared``).
    public let methods: [FlickrMethod]
    /// The error codes any method can answer (95 and up: signatures, keys, the service).
    public let globalErrors: [FlickrMethod.ErrorInfo]
    private let byName: [String: Int]

    private struct File: Decodable {
        var methods: [FlickrMethod]
        var globalErrors: [FlickrMethod.ErrorInfo]
    }

    /// A catalog of `methods` (a test's, or one read elsewhere).
    public init(methods: [FlickrMethod], globalErrors: [FlickrMethod.ErrorInfo] = []) {
        self.methods = methods
        self.globalErrors = globalErrors
        var index: [String: Int] = [:]
        for (i, m) in methods.enumerated() { index[m.name] = i }
        byName = index
    }

    /// Decodes a catalog file in the format of `Resources/catalog.json`.
    public init(data: Data) throws {
        let file = try JSONDecoder().decode(File.self, from: data)
        self.init(methods: file.methods, globalErrors: file.globalErrors)
    }

    /// The catalog compiled into the binary (CFlickrCatalog), decoded once.
    public static let shared: MethodCatalog = {
        var length = 0
        let bytes = flickr_catalog_json(&length)
        guard let bytes, let catalog = try? MethodCatalog(data: Data(bytes: bytes, count: length)) else {
            fatalError("FlickrProtocol: the compiled-in catalog.json is corrupt; rerun scripts/build-catalog.py")
        }
        return catalog
    }()

    /// The names of the compiled-in catalog's methods, in its order, read without decoding it
    /// (a list compiled in beside it): what start-up needs, while ``shared`` is decoded at the
    /// first call that checks against it.
    package static let methodNames: [String] = {
        var length = 0
        guard let bytes = flickr_method_names(&length) else { return shared.names }
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }()

    /// The method named `name`; a missing `flickr.` prefix is implied.
    public func method(_ name: String) -> FlickrMethod? {
        if let i = byName[name] { return methods[i] }
        if !name.hasPrefix("flickr."), let i = byName["flickr." + name] { return methods[i] }
        return nil
    }

    /// All method names, sorted.
    public var names: [String] { methods.map(\.name) }

    /// Flickr's documented example response of a method (inner XML), if it has one.
    public func example(for name: String) -> String? {
        method(name).flatMap { Self.examples[$0.name] }
    }

    /// Flickr's documented example payloads (inner XML, no `<rsp>`), by method name.
    public static let examples: [String: String] = {
        var length = 0
        guard let bytes = flickr_examples_json(&length),
              let examples = try? JSONDecoder().decode([String: String].self, from: Data(bytes: bytes, count: length)) else {
            fatalError("FlickrProtocol: the compiled-in examples.json is corrupt; rerun scripts/build-catalog.py")
        }
        return examples
    }()

    /// The list rule learned from every example response (see ``ListRule``), computed once.
    public static let listRule: ListRule = {
        var rule = ListRule.pluralOnly
        for (_, example) in examples.sorted(by: { $0.key < $1.key }) {
            // Two doc examples carry the whole envelope themselves.
            let wrapped = example.contains("<rsp") ? example : "<rsp stat=\"ok\">\n" + example + "\n</rsp>"
            if let tree = try? FlickrXML.parse(wrapped, rule: .pluralOnly) {
                rule.learn(from: tree, name: "rsp")
            }
        }
        return rule
    }()
}

extension FlickrXML {
    /// Maps `bytes` with the catalog's learned list rule.
    public static func parse<C: ContiguousBytes>(_ bytes: C) throws(FlickrParseError) -> FlickrNode {
        try parse(bytes, rule: MethodCatalog.listRule)
    }
}

extension FlickrXML {
    /// Maps a string with the catalog's learned list rule.
    public static func parse(_ string: String) throws(FlickrParseError) -> FlickrNode {
        try parse(Array(string.utf8), rule: MethodCatalog.listRule)
    }
}
