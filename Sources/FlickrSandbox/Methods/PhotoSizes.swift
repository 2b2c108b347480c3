/// Flickr's size ladder (misc.urls.html): label, URL suffix, extras key, longest edge.
struct PhotoSize: Sendable {
    var label: String
    /// `_s` etc.; empty for Medium (no suffix).
    var suffix: String
    /// The `url_X` key of `extras`.
    var extrasKey: String
    /// The path component of the `sizes/…/` page URL.
    var pageKey: String
    /// Longest edge in pixels (0 = original); squares are cropped to `edge × edge`.
    var edge: Int
    var square: Bool

    static let ladder: [PhotoSize] = [
        PhotoSize(label: "Square", suffix: "s", extrasKey: "sq", pageKey: "sq", edge: 75, square: true),
        PhotoSize(label: "Large Square", suffix: "q", extrasKey: "q", pageKey: "q", edge: 150, square: true),
        PhotoSize(label: "Thumbnail", suffix: "t", extrasKey: "t", pageKey: "t", edge: 100, square: false),
        PhotoSize(label: "Small", suffix: "m", extrasKey: "s", pageKey: "s", edge: 240, square: false),
        PhotoSize(label: "Small 320", suffix: "n", extrasKey: "n", pageKey: "n", edge: 320, square: false),
        PhotoSize(label: "Small 400", suffix: "w", extrasKey: "w", pageKey: "w", edge: 400, square: false),
        PhotoSize(label: "Medium", suffix: "", extrasKey: "m", pageKey: "m", edge: 500, square: false),
        PhotoSize(label: "Medium 640", suffix: "z", extrasKey: "z", pageKey: "z", edge: 640, square: false),
        PhotoSize(label: "Medium 800", suffix: "c", extrasKey: "c", pageKey: "c", edge: 800, square: false),
        PhotoSize(label: "Large", suffix: "b", extrasKey: "l", pageKey: "l", edge: 1024, square: false),
        PhotoSize(label: "Large 1600", suffix: "h", extrasKey: "h", pageKey: "h", edge: 1600, square: false),
        PhotoSize(label: "Large 2048", suffix: "k", extrasKey: "k", pageKey: "k", edge: 2048, square: false),
        PhotoSize(label: "Original", suffix: "o", extrasKey: "o", pageKey: "o", edge: 0, square: false),
    ]

    /// The dimensions of this size for an original of `width × height`; nil when the original
    /// is too small to offer it.
    func dimensions(width: Int, height: Int) -> (width: Int, height: Int)? {
        let w = max(1, width), h = max(1, height)
        if edge == 0 { return (w, h) }
        if square { return min(w, h) >= edge ? (edge, edge) : nil }
        let longest = max(w, h)
        if longest <= edge { return edge <= 500 ? (w, h) : nil }
        let scale = Double(edge) / Double(longest)
        return (max(1, Int((Double(w) * scale).rounded())), max(1, Int((Double(h) * scale).rounded())))
    }

    /// `BASE/static/SERVER/ID_SECRET[_SUFFIX].EXT`.
    func source(for photo: SandboxPhoto, base: String) -> String {
        if suffix == "o" {
            return "\(base)/static/\(photo.server)/\(photo.id)_\(photo.originalSecret)_o.\(photo.answeredOriginalFormat)"
        }
        return "\(base)/static/\(photo.server)/\(photo.id)_\(photo.secret)\(suffix.isEmpty ? "" : "_" + suffix).jpg"
    }
}
