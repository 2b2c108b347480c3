import FlickrProtocol
import Foundation

extension SandboxState {
    /// Whether `caller` may see a photo's location (its geo perms; the owner always).
    func canSeeLocation(of photo: SandboxPhoto, caller: String?) -> Bool {
        guard let g = photo.geo else { return false }
        if g.isPublic || caller == photo.owner { return true }
        // Every sandbox user is everyone's contact, friend and family member (as for photos).
        return caller != nil && (g.isContact || g.isFriend || g.isFamily)
    }
}
