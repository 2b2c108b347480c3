import FlickrProtocol
import Foundation

/// The arguments of a typed call (``FlickrMethods``), encoded as Flickr wants them, in the order
/// added; a nil value is not sent.
struct TypedArguments: Sendable {
    /// How a list of strings is sent.
    enum ListJoin: Sendable {
        /// `a,b,c` (extras, search's tags, photo ids).
        case commas
        /// A tag string: tags separated by spaces, a tag holding a space quoted (`TagString/join(_:)`).
        case tagString
    }

    private(set) var pairs: [(String, String)] = []

    mutating func add(_ name: String, _ value: String?) {
        if let value { pairs.append((name, value)) }
    }

    mutating func add(_ name: String, _ value: Int?) {
        if let value { pairs.append((name, String(value))) }
    }

    /// A number in its shortest form that reads back the same (`35.5`, `-2`).
    mutating func add(_ name: String, _ value: Double?) {
        guard let value else { return }
        pairs.append((name, value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)))
    }

    /// A flag: `1` or `0`.
    mutating func add(_ name: String, _ value: Bool?) {
        if let value { pairs.append((name, value ? "1" : "0")) }
    }

    mutating func add(_ name: String, _ value: Date?, as format: FlickrDateFormat) {
        if let value { pairs.append((name, format.string(from: value))) }
    }

    /// Dates, comma-separated (`flickr.photos.getCounts`).
    mutating func add(_ name: String, _ value: [Date]?, as format: FlickrDateFormat) {
        if let value { pairs.append((name, value.map(format.string(from:)).joined(separator: ","))) }
    }

    mutating func add(_ name: String, _ value: [String]?, joined: ListJoin) {
        guard let value else { return }
        switch joined {
        case .commas: pairs.append((name, value.joined(separator: ",")))
        case .tagString: pairs.append((name, TagString.join(value)))
        }
    }

    /// Arguments given by name (an open method's), sorted by name.
    mutating func add(_ extra: [String: String]) {
        pairs += extra.sorted { $0.key < $1.key }
    }
}
