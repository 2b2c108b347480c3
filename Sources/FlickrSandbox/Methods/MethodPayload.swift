import FlickrProtocol

/// What a method answers: elements built by the sandbox, or a documented example verbatim.
enum MethodPayload: Sendable {
    case nodes([XMLNode])
    case example(method: String, xml: String)

    static let empty = MethodPayload.nodes([])
}
