import Foundation

/// A title or description made from the photo's fields: `"{date_taken:%Y-%m-%d} {title}"`.
/// `{field}` is the field's value, `{field:FORMAT}` a date field formatted with `%Y %y %m %d %H
/// %M %S %j %b %B %%`; `{{` and `}}` are braces. The field names are `flickr find`'s; an unknown
/// one is refused when the template is read, before anything is planned.
public struct EditTemplate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The fields a template may read.
    public static let fields = ["id", "title", "description", "tags", "machine_tags", "date_taken", "date_upload", "last_update",
                                "ispublic", "isfriend", "isfamily", "license", "media", "latitude", "longitude", "accuracy",
                                "views", "owner", "original_format"]
    /// The fields that are dates (a format applies to them).
    static let dates: Set<String> = ["date_taken", "date_upload", "last_update"]

    enum Piece: Sendable, Hashable, Codable {
        case text(String)
        case field(String, format: String?)
    }

    let pieces: [Piece]
    public let description: String

    /// Reads `text`; `option` names it in errors (`--title`).
    public init(_ text: String, option: String) throws(EditSpecError) {
        description = text
        var pieces: [Piece] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if (c == "{" || c == "}"), next < text.endIndex, text[next] == c {
                literal.append(c)
                i = text.index(after: next)
                continue
            }
            if c == "}" { throw EditSpecError("\(option): a '}' without its '{' in \"\(text)\" (write }} for a brace)") }
            guard c == "{" else {
                literal.append(c)
                i = next
                continue
            }
            guard let close = text[next...].firstIndex(of: "}") else {
                throw EditSpecError("\(option): a '{' without its '}' in \"\(text)\" (write {{ for a brace)")
            }
            let inner = text[next..<close]
            let name = String(inner.prefix { $0 != ":" })
            let format = inner.contains(":") ? String(inner.drop { $0 != ":" }.dropFirst()) : nil
            guard Self.fields.contains(name) else {
                throw EditSpecError("\(option): {\(name)} is not a field of a photo; the fields are \(Self.fields.joined(separator: ", "))")
            }
            if format != nil && !Self.dates.contains(name) {
                throw EditSpecError("\(option): {\(name):…} — only dates take a format (\(Self.dates.sorted().joined(separator: ", ")))")
            }
            if let format, let unknown = Self.unknownDirective(in: format) {
                throw EditSpecError("\(option): {\(name):\(format)}: \(unknown) is not a date directive; the directives are "
                                    + Self.directives.map { "%" + String($0) }.joined(separator: " "))
            }
            if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
            pieces.append(.field(name, format: format))
            i = text.index(after: close)
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        self.pieces = pieces
    }

    /// The template filled with `values` (field → text; a date field's text is Flickr's form:
    /// `YYYY-MM-DD HH:MM:SS` for `date_taken`, Unix seconds for the others). A missing field is "".
    public func render(_ values: [String: String]) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let t): out += t
            case .field(let name, let format):
                let value = values[name] ?? ""
                if let format, let seconds = name == "date_taken" ? TakenDate.seconds(value) : Int(value) {
                    out += Self.format(seconds, format)
                } else {
                    out += value
                }
            }
        }
        return out
    }

    /// The letters a date format takes after `%`.
    static let directives: [Character] = ["Y", "y", "m", "d", "H", "M", "S", "j", "b", "B", "%"]

    /// The first `%` directive of `format` that ``format(_:_:)`` does not know (`%A`, or a lone
    /// `%` at the end), or nil.
    static func unknownDirective(in format: String) -> String? {
        var percent = false
        for ch in format {
            if percent {
                if !directives.contains(ch) { return "%" + String(ch) }
                percent = false
            } else if ch == "%" {
                percent = true
            }
        }
        return percent ? "a '%' at the end" : nil
    }

    /// `strftime`'s common letters, in UTC (Flickr's dates have no zone).
    static func format(_ seconds: Int, _ format: String) -> String {
        let c = TakenDate.calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        var out = ""
        var percent = false
        for ch in format {
            guard percent else {
                if ch == "%" { percent = true } else { out.append(ch) }
                continue
            }
            percent = false
            switch ch {
            case "Y": out += String(format: "%04d", c.year!)
            case "y": out += String(format: "%02d", c.year! % 100)
            case "m": out += String(format: "%02d", c.month!)
            case "d": out += String(format: "%02d", c.day!)
            case "H": out += String(format: "%02d", c.hour!)
            case "M": out += String(format: "%02d", c.minute!)
            case "S": out += String(format: "%02d", c.second!)
            case "j": out += String(format: "%03d", TakenDate.calendar.ordinality(of: .day, in: .year, for: Date(timeIntervalSince1970: Double(seconds))) ?? 0)
            case "b": out += String(months[c.month! - 1].prefix(3))
            case "B": out += months[c.month! - 1]
            case "%": out += "%"
            default: out += "%" + String(ch)
            }
        }
        if percent { out += "%" }
        return out
    }
}
