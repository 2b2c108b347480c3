import FlickrProtocol
import Foundation

extension PhotosHandlers {
    /// The edits of the namespace.
    static let editsMethods: [String: MethodHandler] = [
        "flickr.photos.setDates": { store, call in
            let posted = call.string("date_posted")
            let taken = call.string("date_taken")
            let granularity = call.string("date_taken_granularity")
            guard posted != nil || taken != nil || granularity != nil else { throw APIFailure(.notEnoughArguments, "Not enough arguments") }
            if let g = granularity, ![0, 4, 6, 8].contains(Int(g) ?? -1) { throw APIFailure(.invalidGranularity, "Invalid granularity") }
            let postedTime: Int? = try posted.map { (p: String) throws(APIFailure) -> Int in
                guard let t = Int(p), t > 0, t <= call.now else { throw APIFailure(.invalidDatePosted, "Invalid date_posted") }
                return t
            }
            let takenTime: Int? = try taken.map { (t: String) throws(APIFailure) -> Int in
                guard t.contains("-"), let v = SandboxDates.parse(t) else { throw APIFailure(.invalidDateTakenFormat, "Invalid Date Taken Format") }
                return v
            }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                if let postedTime { photo.datePosted = postedTime }
                if let takenTime { photo.dateTaken = SandboxDates.format(takenTime) }
                if let g = granularity.flatMap({ Int($0) }) { photo.takenGranularity = g }
            }
            return .empty
        },
        "flickr.photos.setSafetyLevel": { store, call in
            let level = call.string("safety_level")
            let hidden = call.string("hidden")
            guard level != nil || hidden != nil else { throw APIFailure(.invalidOrMissingArguments, "Invalid or missing arguments") }
            if let level, ![1, 2, 3].contains(Int(level) ?? 0) { throw APIFailure(.invalidOrMissingArguments, "Invalid or missing arguments") }
            if let hidden, !["0", "1"].contains(hidden) { throw APIFailure(.invalidOrMissingArguments, "Invalid or missing arguments") }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                if let level = level.flatMap({ Int($0) }) { photo.safetyLevel = level }
                if let hidden { photo.hidden = hidden == "1" ? 2 : 1 }
            }
            return .empty
        },
        "flickr.photos.setContentType": { store, call in
            guard let type = call.int("content_type"), (1...3).contains(type) else {
                throw APIFailure(.requiredArgumentsMissingCode2, "Required arguments missing")
            }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in photo.contentType = type }
            return .empty
        },
        "flickr.photos.licenses.setLicense": { store, call in
            guard let license = call.int("license_id"), SandboxLimits.licenses.contains(license) else {
                throw APIFailure(.licenseNotFound, "License not found")
            }
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in photo.license = license }
            return .empty
        },
        "flickr.photos.transform.rotate": { store, call in
            guard let degrees = call.int("degrees"), [90, 180, 270].contains(degrees) else {
                throw APIFailure(.invalidRotation, "Invalid rotation")
            }
            var rotated: SandboxPhoto?
            try store.editOwnedPhoto(call) { (photo, _) throws(APIFailure) in
                photo.rotation = (photo.rotation + degrees) % 360
                if degrees != 180 { (photo.width, photo.height) = (photo.height, photo.width) }
                rotated = photo
            }
            guard let photo = rotated else { throw APIFailure(.temporaryFailure, "Temporary failure") }
            return .nodes([XMLNode("photoid", [("secret", .string(photo.secret)), ("originalsecret", .string(photo.originalSecret))],
                                   text: photo.id)])
        },
    ]
}
