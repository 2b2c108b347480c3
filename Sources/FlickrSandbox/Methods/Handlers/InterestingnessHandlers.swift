import FlickrProtocol
import Foundation

/// `flickr.interestingness.*`.
struct InterestingnessHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.interestingness.getList": { store, call in
            var day: Int?
            if let date = call.string("date") {
                guard date.count == 10, let t = SandboxDates.parse(date) else { throw APIFailure(.notAValidDateString, "Not a valid date string.") }
                day = t
            }
            return store.read { s in
                // The most viewed public photos (of one posting day when `date` is given).
                let photos = s.photos.values.filter { p in
                    p.isPublic && p.hidden != 2 && (day.map { p.datePosted >= $0 && p.datePosted < $0 + 86_400 } ?? true)
                }.sorted { ($0.views, $0.id) > ($1.views, $1.id) }
                return .nodes([PhotoElements.photoList(Array(photos.prefix(500)), call: call, state: s)])
            }
        },
    ]
}
