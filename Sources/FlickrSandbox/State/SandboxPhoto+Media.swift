/// What Flickr answers about a photo's original file, and the update stamp every edit sets.
///
/// A video's record keeps the container of its file in `originalFormat` (`mp4`, `mov`, … from
/// the upload's magic bytes or the seed's `original_format`): that is what the play URL serves.
/// Flickr itself answers a JPEG still for a video's original — `originalformat="jpg"` in
/// `getInfo` and in the `original_format` extras, `url_o` and getSizes' "Original" a `.jpg`
/// (the live answer `Tests/Fixtures/real/flickr-foundation-cassettes/TestGetSinglePhoto.test_it_can_get_a_video__0.flickr.photos.getInfo.200.xml`)
/// — and the video file only through getSizes' "Video Original" (its owner only).
extension SandboxPhoto {
    /// The containers a video's file may have (what ``ImageProbe`` recognises as video).
    static let videoContainers: Set<String> = ["mp4", "mov", "avi", "mpg", "m4v", "3gp", "mts", "wmv", "ogv", "webm"]

    var isVideo: Bool { self.media == "video" }

    /// The format Flickr gives for the original (`originalformat`, `url_o`, "Original"): a
    /// video's is its JPEG still.
    var answeredOriginalFormat: String { isVideo ? "jpg" : self.originalFormat }

    /// The container the play URL serves a video in: the recorded one, or `mp4` when the record
    /// names none (a seed that left `original_format` at its default).
    var videoContainer: String { Self.videoContainers.contains(self.originalFormat) ? self.originalFormat : "mp4" }

    /// Stamps `dates.lastupdate` with the time of the call that changed the photo (never moving
    /// it back: a seed may hold a later one). Every edit goes through here.
    mutating func stampUpdate(_ now: Int) {
        self.lastUpdate = max(now, self.lastUpdate)
    }
}
