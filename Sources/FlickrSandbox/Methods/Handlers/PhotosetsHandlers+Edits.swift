import FlickrProtocol
import Foundation

extension PhotosetsHandlers {
    /// The edits of the namespace.
    static let editsMethods: [String: MethodHandler] = [
        "flickr.photosets.editPhotos": { store, call in
            let user = try call.requireUser()
            let ids = call.list("photo_ids")
            guard !ids.isEmpty else { throw APIFailure(.emptyPhotosList, "Empty photos list") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                for id in ids where s.photos[id]?.owner != user { throw APIFailure(.photoNotFoundCode2, "Photo not found") }
                guard let primary = call.string("primary_photo_id"), s.photos[primary]?.owner == user else {
                    throw APIFailure(.primaryPhotoNotFound, "Primary photo not found")
                }
                guard ids.contains(primary) else { throw APIFailure(.primaryPhotoNotInListCode4, "Primary photo not in list") }
                var unique: [String] = []
                for id in ids where !unique.contains(id) { unique.append(id) }
                let changed = Set(s.photosets[i].photos).symmetricDifference(unique)
                s.photosets[i].photos = unique
                s.photosets[i].primary = primary
                s.photosets[i].dateUpdate = call.now
                s.touch(changed, now: call.now)
            }
            return .empty
        },
        "flickr.photosets.removePhotos": { store, call in
            let user = try call.requireUser()
            let ids = call.list("photo_ids")
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                for id in ids where !s.photosets[i].photos.contains(id) { throw APIFailure(.photoNotFoundCode2, "Photo not found") }
                let setID = s.photosets[i].id
                s.photosets[i].photos.removeAll { ids.contains($0) }
                s.photosets[i].dateUpdate = call.now
                s.touch(ids, now: call.now)
                if s.photosets[i].photos.isEmpty {
                    s.photosets.remove(at: i)
                    s.community.setComments[setID] = nil
                } else if ids.contains(s.photosets[i].primary) {
                    s.photosets[i].primary = s.photosets[i].photos[0]
                }
            }
            return .empty
        },
        "flickr.photosets.reorderPhotos": { store, call in
            let user = try call.requireUser()
            let ids = call.list("photo_ids")
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                let members = s.photosets[i].photos
                for id in ids where !members.contains(id) { throw APIFailure(.photoNotFoundCode2, "Photo not found") }
                // The listed photos first, in that order; the others keep their order after them.
                var order: [String] = []
                for id in ids where !order.contains(id) { order.append(id) }
                s.photosets[i].photos = order + members.filter { !order.contains($0) }
                s.photosets[i].dateUpdate = call.now
            }
            return .empty
        },
        "flickr.photosets.setPrimaryPhoto": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                guard let id = call.string("photo_id"), s.photosets[i].photos.contains(id) else { throw APIFailure(.photoNotFoundCode2, "Photo not found") }
                s.photosets[i].primary = id
                s.photosets[i].dateUpdate = call.now
            }
            return .empty
        },
        "flickr.photosets.orderSets": { store, call in
            let user = try call.requireUser()
            let ids = call.list("photoset_ids")
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                for id in ids where !s.photosets.contains(where: { $0.id == id && $0.owner == user }) {
                    throw APIFailure(.setNotFound, "Set not found")
                }
                // The caller's sets take the listed order (unlisted ones follow, in their order);
                // other users' sets keep their places.
                let mine = s.photosets.filter { $0.owner == user }
                var ordered = ids.compactMap { id in mine.first { $0.id == id } }
                var seen = Set<String>()
                ordered = ordered.filter { seen.insert($0.id).inserted }
                ordered += mine.filter { !seen.contains($0.id) }
                var next = ordered.makeIterator()
                for i in s.photosets.indices where s.photosets[i].owner == user { s.photosets[i] = next.next()! }
            }
            return .empty
        },
    ]
}
