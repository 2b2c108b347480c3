/// The groups of a photo's metadata an edit job changes, each written by its own call (or, for
/// sets, one call per set joined or left). A job writes the groups in this order.
public enum EditField: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Title and description together: `flickr.photos.setMeta`.
    case meta
    /// Date taken and its granularity: `flickr.photos.setDates`.
    case dates
    /// Who may see it: `flickr.photos.setPerms`.
    case perms
    /// `flickr.photos.licenses.setLicense`.
    case license
    /// `flickr.photos.setSafetyLevel`.
    case safety
    /// `flickr.photos.setContentType`.
    case contentType = "content_type"
    /// `flickr.photos.geo.setLocation` or `flickr.photos.geo.removeLocation`.
    case geo
    /// `flickr.photosets.addPhoto` / `removePhoto`, one call per set.
    case sets
    /// `flickr.photos.setTags`.
    case tags

    public static func < (a: EditField, b: EditField) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
