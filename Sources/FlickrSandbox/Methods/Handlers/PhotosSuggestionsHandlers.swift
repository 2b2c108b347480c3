import FlickrProtocol
import Foundation

/// `flickr.photos.suggestions.*`: location suggestions for a photo.
struct PhotosSuggestionsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.photos.suggestions.suggestLocation": { store, call in
            let user = try call.requireUser()
            let lat = try call.double("lat", or: APIFailure(.notAValidLatitude, "Not a valid latitude."))
            let lon = try call.double("lon", or: APIFailure(.notAValidLongitude, "Not a valid longitude."))
            guard (-90...90).contains(lat), (-180...180).contains(lon) else { throw APIFailure(.notAValidLatitude, "Not a valid latitude.") }
            let id = try store.update { (s: inout SandboxState) throws(APIFailure) -> String in
                let photo = try s.annotatablePhoto(call.string("photo_id"), caller: user)
                guard photo.owner != user else { throw APIFailure(.youCannotSuggestALocationForYourOwnPhoto, "You cannot suggest a location for your own photo") }
                let id = s.community.newNumber()
                s.photos[photo.id]!.suggestions.append(SandboxSuggestion(
                    id: id, photo: photo.id, suggestedBy: user, latitude: lat, longitude: lon,
                    accuracy: min(max(call.int("accuracy") ?? 16, 1), 16), note: call.params["note"] ?? "",
                    dateSuggested: call.now, status: 0))
                return id
            }
            return .nodes([XMLNode("suggestion", [("id", .string(id))])])
        },
        "flickr.photos.suggestions.approveSuggestion": { store, call in
            try PhotosSuggestionsHandlers.decideSuggestion(store, call, status: 1)
        },
        "flickr.photos.suggestions.rejectSuggestion": { store, call in
            try PhotosSuggestionsHandlers.decideSuggestion(store, call, status: 2)
        },
        "flickr.photos.suggestions.removeSuggestion": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photoID, i) = try s.suggestion(call.string("suggestion_id"))
                guard s.photos[photoID]!.suggestions[i].suggestedBy == user else { throw APIFailure(.suggestionNotFound, "Suggestion not found") }
                s.photos[photoID]!.suggestions.remove(at: i)
            }
            return .empty
        },
        "flickr.photos.suggestions.getList": { store, call in
            let user = try call.requireUser()
            return store.read { s in
                let status = call.int("status_id")
                let photoID = call.string("photo_id")
                let items = s.photos.values.filter { $0.owner == user && (photoID == nil || $0.id == photoID) }
                    .flatMap(\.suggestions).filter { status == nil || $0.status == status }
                    .sorted { ($0.dateSuggested, $0.id) < ($1.dateSuggested, $1.id) }
                return .nodes([XMLNode("suggestions", [("total", .number(items.count))], children: items.map { x in
                    XMLNode("suggestion", [
                        ("id", .string(x.id)), ("photo_id", .string(x.photo)), ("date_suggested", .string(String(x.dateSuggested))),
                        ("status", .number(x.status)),
                    ], children: [
                        XMLNode("suggested_by", [("nsid", .string(x.suggestedBy)),
                                                 ("username", .string(s.user(nsid: x.suggestedBy)?.username ?? ""))]),
                        XMLNode("location", [("latitude", .string(PhotosGeoHandlers.degrees(x.latitude))),
                                             ("longitude", .string(PhotosGeoHandlers.degrees(x.longitude))),
                                             ("accuracy", .number(x.accuracy))]),
                        .text("note", x.note),
                    ])
                }, lists: ["suggestion"])])
            }
        },
    ]

    /// Approves (status 1: the photo takes the suggested location) or rejects (2) a suggestion
    /// on one of the caller's photos.
    static func decideSuggestion(_ store: SandboxStore, _ call: MethodCall, status: Int) throws(APIFailure) -> MethodPayload {
        let user = try call.requireUser()
        try store.update { (s: inout SandboxState) throws(APIFailure) in
            let (photoID, i) = try s.suggestion(call.string("suggestion_id"))
            guard s.photos[photoID]!.owner == user else { throw APIFailure(.suggestionNotFound, "Suggestion not found") }
            s.photos[photoID]!.suggestions[i].status = status
            if status == 1 {
                let x = s.photos[photoID]!.suggestions[i]
                var geo = s.photos[photoID]!.geo ?? SandboxGeo(latitude: x.latitude, longitude: x.longitude, accuracy: x.accuracy)
                (geo.latitude, geo.longitude, geo.accuracy) = (x.latitude, x.longitude, x.accuracy)
                s.photos[photoID]!.geo = geo
                s.touch([photoID], now: call.now)
            }
        }
        return .empty
    }
}
