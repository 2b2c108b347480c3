import FlickrMedia

/// What a file says about itself, as a push carries it to Flickr: title, description, tags (its
/// keywords), date taken and position — read from the file (EXIF, IPTC, XMP) and from an XMP
/// sidecar beside it, the sidecar winning field by field.
public struct PushMeta: Sendable, Hashable, Codable {
    public var title: String?
    public var description: String?
    /// The keywords as tags (raw forms): a hierarchical keyword `a|b|c` as its last part,
    /// unless `--keywords full` keeps it whole.
    public var tags: [String]
    /// `yyyy-MM-dd HH:mm:ss`, as Flickr writes dates.
    public var dateTaken: String?
    public var latitude: Double?
    public var longitude: Double?

    public init(title: String? = nil, description: String? = nil, tags: [String] = [], dateTaken: String? = nil,
                latitude: Double? = nil, longitude: Double? = nil) {
        (self.title, self.description, self.tags, self.dateTaken) = (title, description, tags, dateTaken)
        (self.latitude, self.longitude) = (latitude, longitude)
    }

    /// The file's own metadata, `sidecar`'s in place of each field it has.
    static func merged(file: EmbeddedMetadata, sidecar: EmbeddedMetadata?, fullKeywords: Bool) -> PushMeta {
        var m = file
        if let s = sidecar {
            if s.title != nil { m.title = s.title }
            if s.description != nil { m.description = s.description }
            if !s.keywords.isEmpty { m.keywords = s.keywords }
            if s.dateTaken != nil { m.dateTaken = s.dateTaken }
            if let lat = s.latitude, let lon = s.longitude { (m.latitude, m.longitude) = (lat, lon) }
        }
        return PushMeta(embedded: m, fullKeywords: fullKeywords)
    }

    /// What Flickr reads from the bytes alone (its own upload reads keywords whole).
    init(embedded m: EmbeddedMetadata, fullKeywords: Bool) {
        var tags: [String] = []
        for keyword in m.keywords {
            let tag = Self.tag(keyword: keyword, full: fullKeywords)
            if !tag.isEmpty, !tags.contains(tag) { tags.append(tag) }
        }
        self.init(title: m.title, description: m.description, tags: tags, dateTaken: m.dateTaken,
                  latitude: m.latitude, longitude: m.longitude)
    }

    /// A keyword as a tag: a hierarchical one (`Places|Iceland|Reykjavík`, as Lightroom and
    /// digiKam write them) as its last part, or whole with `full`.
    static func tag(keyword: String, full: Bool) -> String {
        let trimmed = keyword.trimmingCharacters(in: .whitespaces)
        guard !full, let last = trimmed.split(separator: "|").last else { return trimmed }
        return last.trimmingCharacters(in: .whitespaces)
    }

    /// The position, when the file gives one.
    var geo: [Double]? {
        guard let latitude, let longitude else { return nil }
        return [latitude, longitude]
    }
}
