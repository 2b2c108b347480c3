import FlickrProtocol
import Foundation

/// `flickr.photos.people.*`: people tagged in a photo.
struct PhotosPeopleHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
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
    ]
}
