import FlickrProtocol
import Foundation

/// `flickr.photos.notes.*`: notes drawn on a photo.
struct PhotosNotesHandlers: MethodGroup {
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
    ]
}
