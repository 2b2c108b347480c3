import FlickrProtocol

/// A successful answer of ``FlickrClient/callBody(_:arguments:verb:timeout:strict:mapXML:)``:
/// an XML answer as the caller's mapping built it, or the mapped tree of a JSON answer.
package enum FlickrResponseBody<Mapped: Sendable>: Sendable {
    case xml(Mapped)
    case tree(FlickrNode)
}
