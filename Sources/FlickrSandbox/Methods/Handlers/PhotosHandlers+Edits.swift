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
                guard let v = PhotosHandlers.takenDate(t) else { throw APIFailure(.invalidDateTakenFormat, "Invalid Date Taken Format") }
                // "It may be in the future or way in the past": before 1900 (a guess at "way"), or
                // later than a day from now (a taken date is the owner's wall-clock time, up to
                // 14 hours ahead of UTC).
                guard v >= PhotosHandlers.earliestTaken, v <= call.now + 86_400 else {
                    throw APIFailure(FlickrErrorCode(rawValue: 6), "Invalid Date Taken")
                }
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
        // Today's list, in the order Flickr answers it (the recorded answer in
        // Tests/Fixtures/real/flickr-foundation-cassettes), not the documented example of 2008.
        "flickr.photos.licenses.getInfo": { _, _ in
            let order = [0, 4, 6, 3, 2, 1, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
            let licenses = order.compactMap { id in FlickrLicense.all.first { $0.id == id } }.map { l in
                XMLNode("license", [("id", .string(String(l.id))), ("name", .string(l.name)), ("url", .string(l.url))])
            }
            return .nodes([XMLNode("licenses", children: licenses, lists: ["license"])])
        },
        "flickr.photos.licenses.setLicense": { store, call in
            guard let license = call.int("license_id"), PhotosHandlers.listedLicenses.contains(license) else {
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

    /// The licence ids `flickr.photos.licenses.getInfo` lists: exactly those are taken by
    /// setLicense, any other is "License not found".
    static let listedLicenses: Set<Int> = Set(FlickrLicense.all.map(\.id))

    /// 1900-01-01 00:00:00 as Unix time: the earliest date taken setDates takes.
    static let earliestTaken = -2_208_988_800

    /// A `date_taken` in MySQL datetime form, as much of it as given (`2004-04` is
    /// `2004-04-01 00:00:00`, `2004` is `2004-01-01 00:00:00`: "you can leave off as much of the
    /// date as you want"), as Unix time; nil when it is not that form (a bare Unix time too).
    static func takenDate(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let date = t.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        let fields = date.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), fields[0].count == 4, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            return nil
        }
        guard fields.count == 3 || t == date else { return nil }
        let padded = date + String(repeating: "-01", count: 3 - fields.count) + t.dropFirst(date.count)
        return SandboxDates.parse(padded)
    }
}
