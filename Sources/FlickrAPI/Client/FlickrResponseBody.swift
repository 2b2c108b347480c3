import FlickrProtocol

/// A successful answer of ``FlickrClient/callBody(_:arguments:verb:timeout:)``: the checked XML
/// bytes of a complete `<rsp stat="ok">` document, or the mapped tree (JSON answers).
public enum FlickrResponseBody: Sendable {
    case xml([UInt8])
    case tree(FlickrNode)
}
