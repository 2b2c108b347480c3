import FlickrProtocol
import Foundation

extension FlickrClient {
    /// The image URL of `photo` (a photo from `photos.search`, `photos.getInfo`, …) at `size`,
    /// on this client's image host — Flickr's, or the sandbox's when the client talks to one.
    ///
    /// ```swift
    /// let url = try client.photoURL(for: photo, size: .medium640)
    /// ```
    /// Throws a `usage` error naming the extra to ask for when the photo lacks what the size
    /// needs (see ``PhotoURL/source(_:size:images:)``).
    public func photoURL(for photo: FlickrNode, size: PhotoSize) throws(FlickrError) -> URL {
        try Self.url(PhotoURL.source(photo, size: size, images: context.endpoints.images))
    }

    /// The web page of `photo` on this client's site: `…/photos/{path alias or owner}/{id}/`.
    public func pageURL(for photo: FlickrNode) throws(FlickrError) -> URL {
        try Self.url(PhotoURL.page(photo, web: context.endpoints.web))
    }

    private static func url(_ text: String) throws(FlickrError) -> URL {
        guard let url = URL(string: text) else { throw FlickrError.usage("not a URL: \(text)") }
        return url
    }
}
