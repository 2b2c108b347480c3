import Foundation

/// An XMP sidecar (`ORIGINAL.xmp`) with what photo managers read from one: title
/// (`dc:title`), description (`dc:description`), keywords (`dc:subject`; the tags, machine
/// tags too), the date taken (`exif:DateTimeOriginal`, `xmp:CreateDate`,
/// `photoshop:DateCreated`) and the location (`exif:GPSLatitude`/`GPSLongitude` in XMP's
/// `DDD,MM.mmmmN` form). digiKam and darktable pick it up beside the file under this name.
enum XMPSidecar {
    /// The sidecar of `record`.
    static func text(_ record: LibraryRecord) -> String {
        let p = record.photo
        var fields: [String] = []
        if !p.title.isEmpty { fields.append(alternative("dc:title", p.title)) }
        if !p.description.isEmpty { fields.append(alternative("dc:description", p.description)) }
        let keywords = record.tags + record.machineTags
        if !keywords.isEmpty {
            fields.append("   <dc:subject>\n    <rdf:Bag>\n"
                          + keywords.map { "     <rdf:li>\(escape($0))</rdf:li>\n" }.joined()
                          + "    </rdf:Bag>\n   </dc:subject>")
        }
        if let taken = p.date_taken, let date = isoDate(taken, granularity: p.date_taken_granularity) {
            fields.append("   <exif:DateTimeOriginal>\(date)</exif:DateTimeOriginal>")
            fields.append("   <xmp:CreateDate>\(date)</xmp:CreateDate>")
            fields.append("   <photoshop:DateCreated>\(date)</photoshop:DateCreated>")
        }
        if let lat = p.latitude, let lon = p.longitude {
            fields.append("   <exif:GPSLatitude>\(coordinate(lat, positive: "N", negative: "S"))</exif:GPSLatitude>")
            fields.append("   <exif:GPSLongitude>\(coordinate(lon, positive: "E", negative: "W"))</exif:GPSLongitude>")
            fields.append("   <exif:GPSVersionID>2.2.0.0</exif:GPSVersionID>")
        }
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="SwiftFlickr backup">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:dc="http://purl.org/dc/elements/1.1/"
                xmlns:xmp="http://ns.adobe.com/xap/1.0/"
                xmlns:exif="http://ns.adobe.com/exif/1.0/"
                xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">
            \(fields.joined(separator: "\n"))
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>

            """
    }

    /// A language alternative (`x-default`), as XMP wants titles and descriptions.
    static func alternative(_ name: String, _ value: String) -> String {
        "   <\(name)>\n    <rdf:Alt>\n     <rdf:li xml:lang=\"x-default\">\(escape(value))</rdf:li>\n    </rdf:Alt>\n   </\(name)>"
    }

    /// `2019-07-02 14:03:00` → `2019-07-02T14:03:00` (Flickr's date taken has no zone), with
    /// the precision Flickr knows it to (`datetakengranularity`): 4 the month (`2011-01`), 6 the
    /// year (`2011`), 8 circa a year (`2011`, XMP having no "circa"); 0 or none, the second.
    static func isoDate(_ taken: String, granularity: Int? = nil) -> String? {
        guard taken.count >= 10, !taken.hasPrefix("0000") else { return nil }
        switch granularity {
        case 4: return String(taken.prefix(7))
        case 6, 8: return String(taken.prefix(4))
        default: return taken.replacingOccurrences(of: " ", with: "T")
        }
    }

    /// XMP's GPS coordinate: degrees, minutes with a fraction, and the hemisphere (`64,8.5800N`).
    static func coordinate(_ value: Double, positive: String, negative: String) -> String {
        let magnitude = abs(value)
        let degrees = Int(magnitude)
        let minutes = (magnitude - Double(degrees)) * 60
        return "\(degrees)," + String(format: "%.6f", minutes) + (value < 0 ? negative : positive)
    }

    /// Text escaped for XML (and control characters XML 1.0 cannot hold dropped).
    static func escape(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
