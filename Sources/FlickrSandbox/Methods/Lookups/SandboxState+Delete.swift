import FlickrProtocol
import Foundation

extension SandboxState {
    /// Deletes a photo from the world and from every list that holds it (`flickr.photos.delete`):
    /// sets (``removeFromSets(_:now:)``), favourites, galleries and group pools. What lists it
    /// changed moves its `date_update` to `now`.
    mutating func deletePhoto(_ photoID: String, now: Int) {
        photos[photoID] = nil
        removeFromSets(photoID, now: now)
        favorites.removeAll { $0.photo == photoID }
        removeFromGalleries(photoID, now: now)
        for i in community.groups.indices where community.groups[i].pool.contains(where: { $0.photo == photoID }) {
            community.groups[i].pool.removeAll { $0.photo == photoID }
        }
    }

    /// Takes a photo out of every gallery (its comment there too; a new primary when it was one).
    mutating func removeFromGalleries(_ photoID: String, now: Int) {
        for i in community.galleries.indices where community.galleries[i].photos.contains(photoID) {
            community.galleries[i].photos.removeAll { $0 == photoID }
            community.galleries[i].comments[photoID] = nil
            if community.galleries[i].primary == photoID { community.galleries[i].primary = community.galleries[i].photos.first }
            community.galleries[i].dateUpdate = max(now, community.galleries[i].dateUpdate)
        }
    }
}
