/// What a photo file says about itself in its EXIF, IPTC and XMP: the fields Flickr reads at
/// upload (date taken from EXIF DateTimeOriginal; title, description and keywords from XMP and
/// IPTC; the GPS position). Read by ``ExifTool``; nil or empty where the file has none.
public struct EmbeddedMetadata: Sendable, Hashable {
    /// XMP dc:title, else IPTC ObjectName.
    public var title: String?
    /// XMP dc:description, else IPTC Caption-Abstract, else EXIF ImageDescription.
    public var description: String?
    /// XMP dc:subject, else IPTC Keywords, in the file's order, each once.
    public var keywords: [String]
    /// EXIF DateTimeOriginal as Flickr writes dates, `yyyy-MM-dd HH:mm:ss`.
    public var dateTaken: String?
    /// The GPS position in signed decimal degrees (south and west negative).
    public var latitude: Double?
    public var longitude: Double?

    public init(title: String? = nil, description: String? = nil, keywords: [String] = [], dateTaken: String? = nil,
                latitude: Double? = nil, longitude: Double? = nil) {
        (self.title, self.description, self.keywords, self.dateTaken) = (title, description, keywords, dateTaken)
        (self.latitude, self.longitude) = (latitude, longitude)
    }

    /// Nothing a photo manager wrote.
    public var isEmpty: Bool { self == EmbeddedMetadata() }

    /// EXIF's `YYYY:MM:DD HH:MM:SS` (sub-seconds and a zone, when written, are left out, as
    /// Flickr keeps neither) as `YYYY-MM-DD HH:MM:SS`; nil for anything else (a camera's
    /// `0000:00:00 00:00:00` included).
    public static func flickrDate(exif text: String) -> String? {
        let bytes = Array(text.utf8.prefix(19))
        guard bytes.count == 19 else { return nil }
        for (i, b) in bytes.enumerated() {
            switch i {
            case 4, 7: guard b == UInt8(ascii: ":") || b == UInt8(ascii: "-") else { return nil }
            case 10: guard b == UInt8(ascii: " ") || b == UInt8(ascii: "T") else { return nil }
            case 13, 16: guard b == UInt8(ascii: ":") else { return nil }
            default: guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) else { return nil }
            }
        }
        let s = String(decoding: bytes, as: UTF8.self)
        let year = String(s.prefix(4)), month = String(s.dropFirst(5).prefix(2)), day = String(s.dropFirst(8).prefix(2))
        guard (1...12).contains(Int(month) ?? 0), (1...31).contains(Int(day) ?? 0), year != "0000" else { return nil }
        let time = String(s.dropFirst(11))
        return "\(year)-\(month)-\(day) \(time)"
    }
}
