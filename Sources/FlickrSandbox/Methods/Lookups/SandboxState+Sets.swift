import FlickrProtocol
import Foundation

extension SandboxState {
    /// Takes a photo out of every set, moving each such set's `date_update` to `now` (its
    /// membership changed); a set left empty is deleted, as Flickr does, with its comments.
    mutating func removeFromSets(_ photoID: String, now: Int) {
        for i in photosets.indices.reversed() where photosets[i].photos.contains(photoID) {
            photosets[i].photos.removeAll { $0 == photoID }
            photosets[i].dateUpdate = max(now, photosets[i].dateUpdate)
            if photosets[i].photos.isEmpty {
                community.setComments[photosets[i].id] = nil
                photosets.remove(at: i)
            } else if photosets[i].primary == photoID {
                photosets[i].primary = photosets[i].photos[0]
            }
        }
    }
}
