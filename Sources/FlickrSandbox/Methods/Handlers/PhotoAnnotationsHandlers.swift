import FlickrProtocol

/// `flickr.photos.notes.*`, `flickr.photos.people.*` and `flickr.photos.suggestions.*`: notes, people in photos and location suggestions.
///
/// Notes, people in photos and location suggestions: things others add to a photo.
struct PhotoAnnotationsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.photos.notes.add": { store, call in
            let user = try call.requireUser()
            let box = try call.box(["note_x", "note_y", "note_w", "note_h"], or: APIFailure(.missingRequiredArguments, "Missing required arguments"))
            guard let text = call.string("note_text") else { throw APIFailure(.missingRequiredArguments, "Missing required arguments") }
            let id = try store.update { (s: inout SandboxState) throws(APIFailure) -> String in
                let photo = try s.annotatablePhoto(call.string("photo_id"), caller: user)
                guard photo.owner == user || photo.permAddMeta > 0 else { throw APIFailure(.userCannotAddNotes, "User cannot add notes") }
                guard photo.notes.count < SandboxLimits.notesPerPhoto else { throw APIFailure(.maximumNumberOfNotesReached, "Maximum number of notes reached") }
                let id = s.community.newNumber()
                s.photos[photo.id]!.notes.append(SandboxNote(id: id, author: user, x: box[0], y: box[1], w: box[2], h: box[3], text: text))
                s.touch([photo.id], now: call.now)
                return id
            }
            return .nodes([XMLNode("note", [("id", .string(id))])])
        },
        "flickr.photos.notes.edit": { store, call in
            let user = try call.requireUser()
            let box = try call.box(["note_x", "note_y", "note_w", "note_h"], or: APIFailure(.missingRequiredArguments, "Missing required arguments"))
            guard let text = call.string("note_text") else { throw APIFailure(.missingRequiredArguments, "Missing required arguments") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photoID, i) = try s.note(call.string("note_id"))
                guard s.photos[photoID]!.notes[i].author == user else { throw APIFailure(.userCannotEditNote, "User cannot edit note") }
                s.photos[photoID]!.notes[i] = SandboxNote(id: s.photos[photoID]!.notes[i].id, author: user,
                                                          x: box[0], y: box[1], w: box[2], h: box[3], text: text)
                s.touch([photoID], now: call.now)
            }
            return .empty
        },
        "flickr.photos.notes.delete": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photoID, i) = try s.note(call.string("note_id"))
                let photo = s.photos[photoID]!
                guard photo.notes[i].author == user || photo.owner == user else { throw APIFailure(.userCannotDeleteNote, "User cannot delete note") }
                s.photos[photoID]!.notes.remove(at: i)
                s.touch([photoID], now: call.now)
            }
            return .empty
        },
        "flickr.photos.people.add": { store, call in
            let user = try call.requireUser()
            let coords = ["person_x", "person_y", "person_w", "person_h"]
            let given = coords.filter { call.string($0) != nil }.count
            guard given == 0 || given == 4 else { throw APIFailure(.someCoOrdinateParamtersWereBlank, "Some co-ordinate paramters were blank") }
            let box = given == 4 ? try call.box(coords, or: APIFailure(.someCoOrdinateParamtersWereBlank, "Some co-ordinate paramters were blank")) : nil
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                guard let person = s.resolveUser(call.string("user_id") ?? "") else { throw APIFailure(.personNotFound, "Person not found") }
                let photo = try s.annotatablePhoto(call.string("photo_id"), caller: user, code: .photoNotFoundCode2)
                guard photo.owner == user || person.nsid == user else { throw APIFailure(.userCannotAddPeopleToThatPhoto, "User cannot add people to that photo") }
                guard photo.isPublic || photo.owner == user else { throw APIFailure(.cantAddThatPersonToANonPublicPhoto, "Can't add that person to a non-public photo") }
                if let i = photo.people.firstIndex(where: { $0.user == person.nsid }) {
                    if let box { s.photos[photo.id]!.people[i].box = box }
                } else {
                    s.photos[photo.id]!.people.append(SandboxPersonTag(user: person.nsid, addedBy: user, box: box))
                }
                s.touch([photo.id], now: call.now)
            }
            return .empty
        },
        "flickr.photos.people.delete": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photo, i) = try s.personTag(call, caller: user)
                let tag = photo.people[i]
                guard photo.owner == user || tag.user == user || tag.addedBy == user else {
                    throw APIFailure(.userCannotRemoveThatPerson, "User cannot remove that person")
                }
                s.photos[photo.id]!.people.remove(at: i)
                s.touch([photo.id], now: call.now)
            }
            return .empty
        },
        "flickr.photos.people.editCoords": { store, call in
            let user = try call.requireUser()
            let coords = ["person_x", "person_y", "person_w", "person_h"]
            guard coords.contains(where: { call.string($0) != nil }) else { throw APIFailure(.noCoOrdinatesGiven, "No co-ordinates given") }
            let box = try call.box(coords, or: APIFailure(.someCoOrdinateParamtersWereBlankCode4, "Some co-ordinate paramters were blank"))
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photo, i) = try s.personTag(call, caller: user)
                guard photo.owner == user || photo.people[i].addedBy == user else {
                    throw APIFailure(.userCannotEditThatPersonInThatPhoto, "User cannot edit that person in that photo")
                }
                s.photos[photo.id]!.people[i].box = box
                s.touch([photo.id], now: call.now)
            }
            return .empty
        },
        "flickr.photos.people.deleteCoords": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photo, i) = try s.personTag(call, caller: user)
                guard photo.owner == user || photo.people[i].addedBy == user || photo.people[i].user == user else {
                    throw APIFailure(.userCannotEditThatPersonInThatPhoto, "User cannot edit that person in that photo")
                }
                s.photos[photo.id]!.people[i].box = nil
                s.touch([photo.id], now: call.now)
            }
            return .empty
        },
        "flickr.photos.people.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let people = photo.people.map { tag in
                    var attributes: [(String, XMLNode.Value)] = [
                        ("nsid", .string(tag.user)), ("username", .string(s.user(nsid: tag.user)?.username ?? "")),
                        ("iconserver", .string("65535")), ("iconfarm", .number(66)),
                        ("realname", .string(s.user(nsid: tag.user)?.realname ?? "")), ("added_by", .string(tag.addedBy)),
                    ]
                    if let b = tag.box { attributes += [("x", .number(b[0])), ("y", .number(b[1])), ("w", .number(b[2])), ("h", .number(b[3]))] }
                    return XMLNode("person", attributes)
                }
                return .nodes([XMLNode("people", [("total", .number(people.count))], children: people, lists: ["person"])])
            }
        },
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
            try PhotoAnnotationsHandlers.decideSuggestion(store, call, status: 1)
        },
        "flickr.photos.suggestions.rejectSuggestion": { store, call in
            try PhotoAnnotationsHandlers.decideSuggestion(store, call, status: 2)
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
                        XMLNode("location", [("latitude", .string(PhotoGeoHandlers.degrees(x.latitude))),
                                             ("longitude", .string(PhotoGeoHandlers.degrees(x.longitude))),
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
