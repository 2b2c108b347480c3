import FlickrProtocol
import Foundation

extension SandboxState {
    /// Takes a photo out of every set (a set left empty is deleted, as Flickr does).
    mutating func removeFromSets(_ photoID: String) {
        for i in photosets.indices.reversed() where photosets[i].photos.contains(photoID) {
            photosets[i].photos.removeAll { $0 == photoID }
            if photosets[i].photos.isEmpty {
                photosets.remove(at: i)
            } else if photosets[i].primary == photoID {
                photosets[i].primary = photosets[i].photos[0]
            }
        }
    }
}
