import FlickrProtocol
import Foundation

/// `flickr.photos.geo.*`: locations, their permissions and the photos near a place.
struct PhotosGeoHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.photos.geo.photosForLocation": { store, call in
            let user = try call.requireUser()
            let lat = try call.double("lat", or: APIFailure(.requiredArgumentsMissing, "Required arguments missing"))
            let lon = try call.double("lon", or: APIFailure(.requiredArgumentsMissing, "Required arguments missing"))
            let accuracy = call.int("accuracy") ?? 16
            return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photos = s.photos.values.filter { p in
                    guard p.owner == user, let g = p.geo else { return false }
                    return g.accuracy == accuracy && abs(g.latitude - lat) < 1e-6 && abs(g.longitude - lon) < 1e-6
                }.sorted { ($0.datePosted, $0.id) > ($1.datePosted, $1.id) }
                guard !photos.isEmpty else { throw APIFailure(.noPhotosFound, "No photos found") }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s)])
            }
        },
        "flickr.photos.geo.setLocation": { store, call in
            let lat = try call.double("lat", or: APIFailure(.notAValidLatitude, "Not a valid latitude."))
            let lon = try call.double("lon", or: APIFailure(.notAValidLongitude, "Not a valid longitude."))
            guard (-90...90).contains(lat) else { throw APIFailure(.notAValidLatitude, "Not a valid latitude.") }
            guard (-180...180).contains(lon) else { throw APIFailure(.notAValidLongitude, "Not a valid longitude.") }
            let accuracy = call.int("accuracy") ?? 16
            guard (1...16).contains(accuracy) else { throw APIFailure(.notAValidAccuracyCode5, "Not a valid accuracy.") }
            let context = call.int("context") ?? 0
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                var geo = photo.geo ?? SandboxGeo(latitude: lat, longitude: lon, accuracy: accuracy)
                (geo.latitude, geo.longitude, geo.accuracy, geo.context) = (lat, lon, accuracy, (0...2).contains(context) ? context : 0)
                geo.foursquareID = nil
                photo.geo = geo
            }
            return .empty
        },
        "flickr.photos.geo.removeLocation": { store, call in
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                guard photo.geo != nil else { throw APIFailure(.photoHasNoLocationInformation, "Photo has no location information") }
                photo.geo = nil
            }
            return .empty
        },
        "flickr.photos.geo.setContext": { store, call in
            guard let context = call.int("context"), (0...2).contains(context) else { throw APIFailure(.notAValidContext, "Not a valid context") }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                guard photo.geo != nil else { throw APIFailure(.photoHasNoLocationInformation, "Photo has no location information") }
                photo.geo!.context = context
            }
            return .empty
        },
        "flickr.photos.geo.setPerms": { store, call in
            let flags = try ["is_public", "is_contact", "is_friend", "is_family"].map { (name: String) throws(APIFailure) -> Bool in
                guard let v = call.string(name), v == "0" || v == "1" else { throw APIFailure(.requiredArgumentsMissingCode3, "Required arguments missing.") }
                return v == "1"
            }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                guard photo.geo != nil else { throw APIFailure(.photoHasNoLocationInformation, "Photo has no location information") }
                (photo.geo!.isPublic, photo.geo!.isContact, photo.geo!.isFriend, photo.geo!.isFamily) = (flags[0], flags[1], flags[2], flags[3])
            }
            return .empty
        },
        "flickr.photos.geo.correctLocation": { store, call in
            guard let venue = call.string("foursquare_id") ?? call.string("place_id") ?? call.string("woe_id") else {
                throw APIFailure(.missingPlaceID, "Missing place ID")
            }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                guard photo.geo != nil else { throw APIFailure(.notAValidPlaceID, "Not a valid place ID") }
                photo.geo!.foursquareID = venue
            }
            return .empty
        },
        "flickr.photos.geo.batchCorrectLocation": { store, call in
            let user = try call.requireUser()
            let lat = try call.double("lat", or: APIFailure(.notAValidLatitudeCode2, "Not a valid latitude"))
            let lon = try call.double("lon", or: APIFailure(.notAValidLongitudeCode3, "Not a valid longitude"))
            guard let accuracy = call.int("accuracy"), (1...16).contains(accuracy) else { throw APIFailure(.notAValidAccuracy, "Not a valid accuracy") }
            guard let place = call.string("place_id") ?? call.string("woe_id") else { throw APIFailure(.notAValidPlacesID, "Not a valid Places ID") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                // Every photo of the caller's geotagged at that point, at that accuracy.
                let hits = s.photos.values.filter { p in
                    guard p.owner == user, let g = p.geo else { return false }
                    return g.accuracy == accuracy && abs(g.latitude - lat) < 1e-6 && abs(g.longitude - lon) < 1e-6
                }.map(\.id)
                guard !hits.isEmpty else { throw APIFailure(.noPhotosGeotaggedAtThatLocation, "No photos geotagged at that location") }
                for id in hits { s.photos[id]!.geo!.foursquareID = place }
                s.touch(hits, now: call.now)
            }
            return .empty
        },
        "flickr.photos.geo.getLocation": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found.")
                guard let geo = photo.geo, s.canSeeLocation(of: photo, caller: call.caller.user) else {
                    throw APIFailure(.photoHasNoLocationInformation, "Photo has no location information.")
                }
                return .nodes([XMLNode("photo", [("id", .string(photo.id))], children: [PhotosGeoHandlers.locationElement(geo)])])
            }
        },
        "flickr.photos.geo.getPerms": { store, call in
            let user = try call.requireUser()
            return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user)
                guard let g = photo.geo else { throw APIFailure(.photoHasNoLocationInformation, "Photo has no location information") }
                return .nodes([XMLNode("perms", [
                    ("id", .string(photo.id)), ("ispublic", .number(g.isPublic ? 1 : 0)), ("iscontact", .number(g.isContact ? 1 : 0)),
                    ("isfriend", .number(g.isFriend ? 1 : 0)), ("isfamily", .number(g.isFamily ? 1 : 0)),
                ])])
            }
        },
    ]

    /// `<location latitude longitude accuracy context/>`.
    static func locationElement(_ geo: SandboxGeo) -> XMLNode {
        XMLNode("location", [
            ("latitude", .string(PhotosGeoHandlers.degrees(geo.latitude))), ("longitude", .string(PhotosGeoHandlers.degrees(geo.longitude))),
            ("accuracy", .number(geo.accuracy)), ("context", .number(geo.context)),
        ])
    }

    /// Degrees as Flickr prints them: up to six decimals, no trailing zeros.
    static func degrees(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
