import CFlickrXML
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives the events of one document from ``FlickrXMLParser`` (raw structure, no mapping).
public protocol FlickrXMLEventHandler: AnyObject {
    /// An element opens. `name` is interned by the parser: within one parse the same name
    /// arrives as the same pointer, so it can key a cache. Valid only during the call.
    func startElement(_ name: UnsafePointer<CChar>, attributes: FlickrXMLAttributes)
    /// A piece of text of the open element (an element's text may come in several pieces).
    func characters(_ text: UnsafeRawBufferPointer)
    /// The open element closes.
    func endElement()
}

/// The attributes of an element, valid during ``FlickrXMLEventHandler/startElement(_:attributes:)``.
public struct FlickrXMLAttributes {
    @usableFromInline let base: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    /// How many there are.
    public let count: Int

    init(base: UnsafeMutablePointer<UnsafePointer<CChar>?>?, count: Int) {
        self.base = base
        self.count = count
    }

    /// The interned name of attribute `i`.
    @inlinable
    public func name(at i: Int) -> UnsafePointer<CChar>? { base?[i * 3] }

    /// The value of attribute `i`, entity references already decoded. (With entity
    /// substitution off, libxml2 reports `&amp;` in an attribute value as the five bytes
    /// `&#38;`; they are turned back into `&` here — no other source of that text is possible.)
    @inlinable
    public func withValue<R>(at i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let base, let start = base[i * 3 + 1], let end = base[i * 3 + 2] else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let raw = UnsafeRawBufferPointer(start: start, count: end - start)
        guard memchr(start, Int32(UInt8(ascii: "&")), raw.count) != nil else { return try body(raw) }
        return try Self.decodingAmpersands(raw).withUnsafeBytes(body)
    }

    /// `&#38;` → `&` (rare: only values that held `&amp;`), through the package's one
    /// replace-all helper.
    @usableFromInline
    static func decodingAmpersands(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        Array(String(decoding: raw, as: UTF8.self).replacingAll("&#38;", with: "&").utf8)
    }
}

/// libxml2's SAX2 push parser under fixed safety settings (CFlickrXML): a document with a DTD
/// (`<!DOCTYPE …>`) is refused before any entity is declared, so external entities are never
/// resolved and entity-expansion bombs fail at once; entity substitution stays off, network
/// access is off, CDATA arrives as text. The one XML reader of the package: the Flickr mapping
/// (``FlickrXMLMapper``) and the sandbox's reader of documented examples both sit on it.
public enum FlickrXMLParser {
    /// Parses `bytes`, reporting every event to `handler`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, handler: any FlickrXMLEventHandler) throws(FlickrParseError) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { throw FlickrParseError(message: "empty document") }
        var handlers = fx_handlers(start_element: saxStartElement, end_element: saxEndElement, characters: saxCharacters)
        var message = [CChar](repeating: 0, count: 256)
        var line: Int32 = 0
        let box = HandlerBox(handler)
        let rc = withExtendedLifetime(box) {
            fx_parse(start.assumingMemoryBound(to: CChar.self), bytes.count, &handlers,
                     Unmanaged.passUnretained(box).toOpaque(), &message, message.count, &line)
        }
        if rc != 0 {
            throw failure(message: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, line: Int(line))
        }
    }

    /// The error of a failed parse from what `fx_parse` reported: its message, and its line when
    /// known (0: unknown).
    static func failure(message: String, line: Int) -> FlickrParseError {
        FlickrParseError(message: message.isEmpty ? "malformed XML" : message, line: line > 0 ? line : nil)
    }
}

extension FlickrXMLParser {
    /// Parses the bytes of `text`; see ``parse(_:handler:)-(UnsafeRawBufferPointer,_)``.
    public static func parse(_ text: String, handler: any FlickrXMLEventHandler) throws(FlickrParseError) {
        let bytes = Array(text.utf8)
        let result: Result<Void, FlickrParseError> = bytes.withUnsafeBytes { raw in
            do throws(FlickrParseError) { return .success(try parse(raw, handler: handler)) } catch { return .failure(error) }
        }
        try result.get()
    }
}

/// The handler as the C callbacks reach it (an existential cannot travel as a raw pointer).
private final class HandlerBox {
    let handler: any FlickrXMLEventHandler
    init(_ handler: any FlickrXMLEventHandler) { self.handler = handler }
}

@inline(__always)
private func handler(_ ctx: UnsafeMutableRawPointer?) -> any FlickrXMLEventHandler {
    Unmanaged<HandlerBox>.fromOpaque(ctx!).takeUnretainedValue().handler
}

private let saxStartElement: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32,
                                             UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Void = { ctx, name, n, attrs in
    guard let name else { return }
    handler(ctx).startElement(name, attributes: FlickrXMLAttributes(base: attrs, count: Int(n)))
}

private let saxEndElement: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
    handler(ctx).endElement()
}

private let saxCharacters: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32) -> Void = { ctx, text, n in
    guard let text, n > 0 else { return }
    handler(ctx).characters(UnsafeRawBufferPointer(start: text, count: Int(n)))
}
