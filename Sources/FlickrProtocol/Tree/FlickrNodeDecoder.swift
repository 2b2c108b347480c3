import Foundation

/// Decodes any `Decodable` from a ``FlickrNode`` — an answer of `call` or a part of one.
///
/// ```swift
/// struct Photo: Decodable { let id: String; let title: String; let ispublic: Bool; let dateupload: Date? }
/// let rsp = try await client.call("flickr.photos.search", ["user_id": "me", "extras": "date_upload"])
/// let photos = try FlickrNodeDecoder().decode([Photo].self, from: rsp["photos.photo"]!)
/// ```
///
/// The rules, the same for XML and JSON answers (both map to the same tree):
/// - **Scalars from Flickr's strings.** Every scalar of the tree is a string; `Int`, `Double`,
///   the other integer and floating-point types, `Bool` (`"1"`/`"0"`, `"true"`/`"false"`),
///   `Date` (``FlickrNode/date``: a Unix timestamp or a MySQL datetime, read as UTC) and `URL`
///   are read from it. A string that is not one throws `DecodingError.typeMismatch`.
/// - **Attributes and text alike.** A `String` is read from an attribute or from an element's
///   text (``FlickrNode/string``). In a type that also reads attributes of the element, the
///   text is the key `_content` (JSON's name) or `_text` (``FlickrNode/textKey``): both read it
///   in either format. An element with nothing but text decodes as a type with keys, too.
/// - **Lists by the mapping rules.** An array is read from a list; a single map or string (an
///   element the mapping did not make a list) is read as a list of one, as ``FlickrNode/array``.
/// - **Keys as Flickr names them** (`dateupload`, `url_q`, `ispublic`), changed by
///   ``keyDecodingStrategy``.
/// - **Missing and empty.** A missing key throws `DecodingError.keyNotFound` unless the property
///   is optional. The tree has no null (JSON's null maps to `""`): an empty value decodes as nil
///   for an optional of any type but `String`/`Substring`.
///
/// Every error is a `DecodingError` whose context's `codingPath` leads to the value.
public struct FlickrNodeDecoder: Sendable {
    /// How the decoder matches Flickr's keys to a type's coding keys.
    public enum KeyDecodingStrategy: Sendable {
        /// Keys exactly as Flickr names them: a property `url_q` reads `url_q`.
        case useDefaultKeys
        /// Flickr's snake_case to lowerCamelCase, with `ID`, `IDs`, `URL`, `URLs`, `NSID`
        /// upper-cased after the first word as the Swift API guidelines write them: `photo_id` is
        /// read by `photoID`, `url_q` by `urlQ`, `owner_nsid` by `ownerNSID`, `date_upload` by
        /// `dateUpload`. The spelling `JSONDecoder` uses (`photoId`, `ownerNsid`) is accepted
        /// too. Leading underscores stay (`_content`). A key without underscores is unchanged
        /// (`dateupload`, `ispublic`).
        case convertFromSnakeCase
        /// Your function from a Flickr key to the name a coding key has.
        case custom(@Sendable (_ flickrKey: String) -> String)
    }

    /// How keys are matched; ``KeyDecodingStrategy/useDefaultKeys`` unless set.
    public var keyDecodingStrategy: KeyDecodingStrategy

    /// Values handed to every `init(from:)` as `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// A decoder with the given key strategy.
    public init(keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys, userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.keyDecodingStrategy = keyDecodingStrategy
        self.userInfo = userInfo
    }

    /// Decodes a `T` from `node` by the rules above.
    /// - Throws: `DecodingError` with the coding path of the value that did not fit.
    public func decode<T: Decodable>(_ type: T.Type, from node: FlickrNode) throws -> T {
        try NodeDecoding(node: node, codingPath: [], options: self).decodeValue(T.self)
    }

    /// The names a Flickr key is matched under: the strategy's result, and for
    /// ``KeyDecodingStrategy/convertFromSnakeCase`` also `JSONDecoder`'s spelling.
    func swiftNames(for flickrKey: String) -> [String] {
        switch keyDecodingStrategy {
        case .useDefaultKeys: return [flickrKey]
        case .custom(let f): return [f(flickrKey)]
        case .convertFromSnakeCase:
            let guidelines = Self.camelCase(flickrKey, acronyms: true)
            let plain = Self.camelCase(flickrKey, acronyms: false)
            return guidelines == plain ? [guidelines] : [guidelines, plain]
        }
    }

    /// Words that the Swift API guidelines write upper-case after the first word.
    static let acronyms: [String: String] = ["id": "ID", "ids": "IDs", "url": "URL", "urls": "URLs", "nsid": "NSID",
                                             "nsids": "NSIDs"]

    /// `photo_id` → `photoID` (`acronyms`) or `photoId`; leading and trailing underscores kept.
    static func camelCase(_ key: String, acronyms useAcronyms: Bool) -> String {
        guard key.contains("_") else { return key }
        let leading = key.prefix { $0 == "_" }
        let rest = key.dropFirst(leading.count)
        let body = rest.reversed().drop { $0 == "_" }.reversed()
        let trailing = rest.count - body.count
        let words = String(body).split(separator: "_").map(String.init)
        guard let first = words.first else { return key }
        var out = String(leading) + first
        for word in words.dropFirst() {
            if useAcronyms, let upper = acronyms[word.lowercased()] { out += upper } else { out += word.prefix(1).uppercased() + word.dropFirst() }
        }
        return out + String(repeating: "_", count: trailing)
    }
}
