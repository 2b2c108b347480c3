import FlickrProtocol

/// The documented examples read into elements once, for their JSON form. An example that
/// cannot be read keeps its error (a test checks that every one reads).
enum ExampleCache {
    static let parsed: [String: Result<[XMLNode], FlickrParseError>] = {
        var out: [String: Result<[XMLNode], FlickrParseError>] = [:]
        for (name, xml) in MethodCatalog.examples {
            do throws(FlickrParseError) { out[name] = .success(try XMLNode.read(xml)) } catch { out[name] = .failure(error) }
        }
        return out
    }()

    static func nodes(for method: String) -> Result<[XMLNode], FlickrParseError> { parsed[method] ?? .success([]) }

    /// The payload of an example: a few doc examples carry the XML declaration and the `<rsp>`
    /// envelope themselves (some with `stat='ok'`); those are unwrapped so that every answer
    /// has the same envelope.
    static func innerPayload(_ xml: String) -> String {
        guard let open = xml.range(of: "<rsp") else { return xml }
        guard let openEnd = xml[open.upperBound...].firstIndex(of: ">") else { return xml }
        var inner = xml[xml.index(after: openEnd)...]
        if let close = inner.range(of: "</rsp>", options: .backwards) { inner = inner[..<close.lowerBound] }
        while let f = inner.first, f == "\n" || f == "\r" { inner = inner.dropFirst() }
        while let l = inner.last, l.isWhitespace { inner = inner.dropLast() }
        return String(inner)
    }
}
