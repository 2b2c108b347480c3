import FlickrProtocol

extension SandboxGallery {
    /// The part of the id after the owner's number (used in the gallery's URL).
    var number: String { id.split(separator: "-").last.map(String.init) ?? id }
}
