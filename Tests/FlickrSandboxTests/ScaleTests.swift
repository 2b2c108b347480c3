import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// What a batch job over a large account meets first: the 4,000-result search cap, date windows
/// around it, the per-key hourly budget, and lastupdate.
@Suite("Flickr at scale: search cap, date windows, budget, lastupdate", .timeLimit(.minutes(2)), .tags(.integration))
struct ScaleTests {
    static let firstPosted = 1_500_000_000

    /// A seed of `count` photos of one member, all tagged `cap`, one posted every hour and
    /// taken a day before.
    static func seed(count: Int) throws -> URL {
        var photos: [[String: Any]] = []
        for i in 0..<count {
            let posted = firstPosted + i * 3600
            photos.append(["id": String(6_000_000_000 + i), "owner": "alice", "title": "p\(i)", "tags": "cap",
                           "date_posted": posted, "date_taken": SandboxDatesForTests.format(posted - 86_400)])
        }
        let seed: [String: Any] = ["users": [["username": "alice"]], "photos": photos]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scale-seed-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: seed).write(to: url)
        return url
    }

    static func page(_ me: SandboxClient, _ params: [(String, String)], page: Int) async throws -> (ids: [String], total: Int, pages: Int) {
        let xml = try await me.ok("flickr.photos.search", params + [("per_page", "500"), ("page", String(page))], verb: "GET")
        return (XMLProbe.attributes("id", of: "photo", in: xml), Int(XMLProbe.attributes("total", of: "photos", in: xml).first ?? "") ?? -1,
                Int(XMLProbe.attributes("pages", of: "photos", in: xml).first ?? "") ?? -1)
    }

    @Test("6,000 matches: total stays true, pages 9–12 repeat page 8; date windows return every photo exactly once")
    func searchCap() async throws {
        let seed = try Self.seed(count: 6_000)
        defer { try? FileManager.default.removeItem(at: seed) }
        try await withSandbox(SandboxConfiguration(dataFile: seed.path)) { server in
            let me = SandboxClient.writer(server)
            let query = [("tags", "cap"), ("sort", "date-posted-asc")]
            var seen: [String] = []
            var pages: [[String]] = []
            for n in 1...12 {
                let (ids, total, count) = try await Self.page(me, query, page: n)
                #expect(total == 6_000 && count == 12)
                pages.append(ids)
                if n <= 8 { seen += ids }
            }
            #expect(Set(seen).count == 4_000)
            for n in 9...12 { #expect(pages[n - 1] == pages[7], "page \(n) repeats page 8") }
            // people.getPhotos is not capped.
            let listed = try await me.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "500"), ("page", "12")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: listed).count == 500)

            // Two upload-date windows of 3,000 (bounds inclusive, unix or MySQL datetime).
            let middle = Self.firstPosted + 2_999 * 3600
            let windows: [[(String, String)]] = [
                [("min_upload_date", String(Self.firstPosted)), ("max_upload_date", String(middle))],
                [("min_upload_date", SandboxDatesForTests.format(middle + 3600)), ("max_upload_date", String(Self.firstPosted + 5_999 * 3600))],
            ]
            var all: [String] = []
            for window in windows {
                let first = try await Self.page(me, query + window, page: 1)
                #expect(first.total == 3_000)
                all += first.ids
                for n in 2...first.pages { all += try await Self.page(me, query + window, page: n).ids }
            }
            #expect(all.count == 6_000 && Set(all).count == 6_000)
            // Taken dates as MySQL datetimes, both bounds inclusive: exactly the two photos at the bounds.
            let taken = try await Self.page(me, query + [
                ("min_taken_date", SandboxDatesForTests.format(Self.firstPosted - 86_400)),
                ("max_taken_date", SandboxDatesForTests.format(Self.firstPosted - 86_400 + 3600)),
            ], page: 1)
            #expect(taken.ids == ["6000000000", "6000000001"])
        }
    }

    @Test("--budget: past N calls per key in the window, REST and upload answer 429 with Retry-After; waiting as told gets through")
    func budget() async throws {
        var configuration = SandboxConfiguration()
        configuration.budget = try CallBudget.parse("3/60")
        try await withSandbox(configuration) { server in
            let me = SandboxClient.writer(server)
            for _ in 0..<3 { _ = try await me.ok("flickr.test.null") }
            let refused = try await me.call("flickr.test.null")
            #expect(refused.status == 429)
            #expect(refused.body.contains("Too Many Requests"))
            let wait = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect((1...60).contains(wait))
            let jpeg = UploadTests.jpegHead(width: 4, height: 3) + [0xFF, 0xD9]
            let upload = try await UploadTests.upload(server, fields: [("title", "x")], photoLength: jpeg.count, photoChunks: UploadTests.small(jpeg))
            #expect(upload.status == 429 && upload.header("Retry-After") != nil)
            // A short window: the client is told how long to wait, and waiting that long is enough.
            // Ten seconds, not two: a loaded CI machine once stalled longer than 2 s between the
            // two calls, so the second fell into a new window and was answered.
            await server.setBudget(try CallBudget.parse("1/10"))
            _ = try await me.ok("flickr.test.null")
            let again = try await me.call("flickr.test.null")
            #expect(again.status == 429)
            let told = try #require(again.header("Retry-After").flatMap { Int($0) })
            #expect((1...10).contains(told))
            try await Task.sleep(for: .seconds(told))
            _ = try await me.ok("flickr.test.null")
            // Switched off at run time.
            await server.setBudget(nil)
            for _ in 0..<10 { _ = try await me.ok("flickr.test.null") }
        }
        #expect(throws: CallBudgetError.self) { try CallBudget.parse("3") }
        #expect(throws: CallBudgetError.self) { try CallBudget.parse("0/10") }
        #expect(throws: CallBudgetError.self) { try CallBudget.parse("10/-1") }
    }

    @Test("extras=last_update and getInfo's lastupdate move on an edit; recentlyUpdated lists exactly the edited photos")
    func lastUpdate() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let before = Int(Date().timeIntervalSince1970)
            let list = try await me.ok("flickr.people.getPhotos", [("user_id", "me"), ("extras", "last_update"), ("per_page", "3")], verb: "GET")
            let ids = XMLProbe.attributes("id", of: "photo", in: list)
            let stamps = XMLProbe.attributes("lastupdate", of: "photo", in: list).compactMap { Int($0) }
            #expect(ids.count == 3 && stamps.count == 3 && stamps.allSatisfy { $0 < before })
            let none = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", String(before))], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: none).isEmpty)
            _ = try await me.ok("flickr.photos.addTags", [("photo_id", ids[0]), ("tags", "edited")])
            _ = try await me.ok("flickr.photos.comments.addComment", [("photo_id", ids[2]), ("comment_text", "edited too")])
            let recent = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", String(before))], verb: "GET")
            #expect(Set(XMLProbe.attributes("id", of: "photo", in: recent)) == [ids[0], ids[2]])
            let info = try await me.ok("flickr.photos.getInfo", [("photo_id", ids[0])], verb: "GET")
            #expect(XMLProbe.attributes("lastupdate", of: "dates", in: info).compactMap { Int($0) }.allSatisfy { $0 >= before })
            // English text, as the documentation allows ("yesterday", "May 1 2019", "2 hours ago"); a
            // text no one reads as a date is 2 "Not a valid date".
            for text in ["yesterday", "2 hours ago", "today"] {
                let since = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", text)], verb: "GET")
                #expect(Set(XMLProbe.attributes("id", of: "photo", in: since)) == [ids[0], ids[2]], "\(text)")
            }
            let tomorrow = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", "tomorrow")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: tomorrow).isEmpty)
            let long = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", "May 1, 1990 10:00")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: long).count >= 3)
            for text in ["not a date", "February 30 2019", "May 1"] {
                #expect(XMLProbe.errorCode(try await me.call("flickr.photos.recentlyUpdated", [("min_date", text)]).body) == 2, "\(text)")
            }
        }
    }
}

/// The sandbox's date forms, for building seeds (UTC `YYYY-MM-DD HH:MM:SS`).
enum SandboxDatesForTests {
    static func format(_ t: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(t)))
    }
}
