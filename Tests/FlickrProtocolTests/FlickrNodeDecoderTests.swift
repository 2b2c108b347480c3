import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrProtocol

/// Answers as Swift types: `FlickrNode`'s value accessors and `FlickrNodeDecoder` over the
/// recorded responses of Tests/Fixtures, XML and JSON.
@Suite(.timeLimit(.minutes(2)), .tags(.unit)) struct FlickrNodeDecoderTests {
    func xml(_ fixture: String) throws -> FlickrNode {
        try FlickrXML.parse(Fixtures.wrapped(try Fixtures.string(fixture)))
    }

    func json(_ fixture: String) throws -> FlickrNode {
        try FlickrJSON.parse(try Fixtures.data(fixture))
    }

    // MARK: values

    @Test func stringReadsAttributesAndElementTextInBothFormats() throws {
        let info = try xml("flickr.photos.getInfo.xml")
        #expect(info["photo.id"]?.string == "2733")                      // attribute
        #expect(info["photo.title"]?.string == "orford_castle_taster")   // element text (_text)
        #expect(info["photo.title"]?.text == "orford_castle_taster")     // .text still works
        let real = try json("real/flickr.photos.getInfo.2015.json")
        #expect(real["photo.title"]?.string == "Japanese squirrel")      // JSON _content
        #expect(real["photo.tags"]?.string == nil)                       // a map without text
        let echo: FlickrNode = ["greeting": ["_text": "hello"]]
        #expect(echo["greeting"]?.string == "hello")
    }

    @Test func typedValuesFromFlickrStrings() throws {
        let info = try xml("flickr.photos.getInfo.xml")
        #expect(info["photo.rotation"]?.int == 90)
        #expect(info["photo.comments"]?.int == 1)                         // element text
        #expect(info["photo.visibility.ispublic"]?.bool == true)
        #expect(info["photo.visibility.isfamily"]?.bool == false)
        #expect(info["photo.title"]?.int == nil)
        #expect(info["photo.title"]?.bool == nil)
        #expect(info["photo.dates.posted"]?.date == Date(timeIntervalSince1970: 1_100_897_479))
        // 2004-11-19 12:51:19 UTC
        #expect(info["photo.dates.taken"]?.date == Date(timeIntervalSince1970: 1_100_868_679))
        let values: FlickrNode = ["lat": "35.012345", "neg": "-2", "t": "true", "f": "FALSE", "zero": "0000-00-00 00:00:00",
                                  "day": "2024-02-29", "badday": "2023-02-29"]
        #expect(values["lat"]?.double == 35.012345)
        #expect(values["neg"]?.double == -2)
        #expect(values["t"]?.bool == true)
        #expect(values["f"]?.bool == false)
        #expect(values["zero"]?.date == nil)
        #expect(values["day"]?.date == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(values["badday"]?.date == nil)
    }

    @Test func dateFormatsRoundTrip() throws {
        for seconds in [0, 1_100_868_679, 951_782_400, -86_401, 4_102_444_799] as [Int] {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            for format in FlickrDateFormat.allCases {
                let text = format.string(from: date)
                let back = try #require(format.date(from: text), "\(format) \(text)")
                let expected = format == .day ? (seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400) * 86_400 : seconds
                #expect(back == Date(timeIntervalSince1970: TimeInterval(expected)), "\(format) \(text)")
            }
        }
        #expect(FlickrDateFormat.mysqlDateTime.string(from: Date(timeIntervalSince1970: 1_100_868_679)) == "2004-11-19 12:51:19")
        #expect(FlickrDateFormat.day.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29")
        #expect(FlickrDateFormat.unixTimestamp.string(from: Date(timeIntervalSince1970: 1_700_000_000.9)) == "1700000000")
    }

    // MARK: decoding the recorded answers

    struct SearchPage: Decodable, Equatable {
        struct Photo: Decodable, Equatable {
            let id: String
            let owner: String
            let secret: String
            let server: Int
            let title: String
            let ispublic: Bool
            let isfriend: Bool
            let isfamily: Bool
        }
        let page: Int
        let pages: Int
        let perpage: Int
        let total: Int
        let photo: [Photo]
    }

    @Test func searchFromXMLAndJSON() throws {
        let page = try FlickrNodeDecoder().decode(SearchPage.self, from: try #require(try xml("flickr.photos.search.xml")["photos"]))
        #expect(page.page == 2 && page.pages == 89 && page.perpage == 10 && page.total == 881)
        #expect(page.photo.first == SearchPage.Photo(id: "2636", owner: "47058503995@N01", secret: "a123456", server: 2,
                                                     title: "test_04", ispublic: true, isfriend: false, isfamily: false))
        #expect(page.photo.count == (try xml("flickr.photos.search.xml")["photos.photo"]?.array.count))
        // JSON: numbers and booleans as JSON values, the same types come out.
        let real = try FlickrNodeDecoder().decode(SearchPage.self, from: try #require(try json("real/flickr.photos.search.2024.json")["photos"]))
        #expect(real.total == 112_631 && real.perpage == 2 && real.photo.count == 2)
        #expect(real.photo[0].title == "Bees at rest" && real.photo[0].server == 65535 && real.photo[0].ispublic)
    }

    struct PhotoInfo: Decodable {
        struct Owner: Decodable { let nsid: String; let username: String }
        struct Dates: Decodable { let posted: Date; let taken: Date; let takengranularity: Int; let lastupdate: Date }
        struct Tag: Decodable {
            let id: String
            let raw: String
            let text: String
            enum CodingKeys: String, CodingKey { case id, raw, text = "_content" }
        }
        struct Tags: Decodable { let tag: [Tag] }
        struct Visibility: Decodable { let ispublic: Bool; let isfriend: Bool; let isfamily: Bool }
        struct URLs: Decodable {
            struct Entry: Decodable {
                let type: String
                let url: URL
                enum CodingKeys: String, CodingKey { case type, url = "_text" }
            }
            let url: [Entry]
        }
        let id: String
        let title: String
        let description: String
        let owner: Owner
        let dates: Dates
        let visibility: Visibility
        let comments: Int
        let tags: Tags
        let urls: URLs
        let rotation: Int?
        let isfavorite: Bool?
    }

    @Test func getInfoFromXMLAndJSON() throws {
        let info = try FlickrNodeDecoder().decode(PhotoInfo.self, from: try #require(try xml("flickr.photos.getInfo.xml")["photo"]))
        #expect(info.id == "2733" && info.title == "orford_castle_taster" && info.description == "hello!")
        #expect(info.owner.username == "Bees" && info.rotation == 90 && info.isfavorite == false)
        #expect(info.dates.posted == Date(timeIntervalSince1970: 1_100_897_479))
        #expect(info.dates.taken == Date(timeIntervalSince1970: 1_100_868_679))
        #expect(info.comments == 1 && info.visibility.ispublic && !info.visibility.isfriend)
        #expect(info.tags.tag.map(\.raw) == ["woo yay", "hoopla"])
        #expect(info.tags.tag.map(\.text) == ["wooyay", "hoopla"])    // element text under `_content` in XML too
        #expect(info.urls.url.first?.url == URL(string: "http://www.flickr.com/photos/bees/2733/"))

        let real = try FlickrNodeDecoder().decode(PhotoInfo.self, from: try #require(try json("real/flickr.photos.getInfo.2015.json")["photo"]))
        #expect(real.title == "Japanese squirrel" && real.owner.nsid == "121686135@N07")
        #expect(real.tags.tag.map(\.text) == ["animal", "autumn"])    // `_content`, read by the `_text` key too below
        #expect(real.urls.url.first?.url.absoluteString == "https://www.flickr.com/photos/reinfox/22573466386/")
        #expect(real.visibility.ispublic && real.comments == 0 && real.isfavorite == false)
        #expect(real.dates.taken == FlickrDateFormat.mysqlDateTime.date(from: "2015-10-20 15:01:19"))
    }

    struct Sizes: Decodable {
        struct Size: Decodable { let label: String; let width: Int; let height: Int; let source: URL; let media: String }
        let canblog: Bool
        let candownload: Bool
        let size: [Size]
    }

    @Test func getSizes() throws {
        let sizes = try FlickrNodeDecoder().decode(Sizes.self, from: try #require(try xml("flickr.photos.getSizes.xml")["sizes"]))
        #expect(sizes.canblog && sizes.candownload)
        #expect(sizes.size.first?.label == "Square" && sizes.size.first?.width == 75)
        #expect(sizes.size.last?.label == "Original" && sizes.size.last?.width == 2400 && sizes.size.last?.height == 1800)
        #expect(sizes.size.count == (try xml("flickr.photos.getSizes.xml")["sizes.size"]?.array.count))
    }

    struct Person: Decodable {
        struct Photos: Decodable { let firstDate: Date; let firstDateTaken: Date; let count: Int
            enum CodingKeys: String, CodingKey { case firstDate = "firstdate", firstDateTaken = "firstdatetaken", count }
        }
        let nsid: String
        let ispro: Bool
        let iconserver: Int
        let username: String
        let realname: String
        let mboxSha1sum: String
        let photosurl: URL
        let photos: Photos
    }

    @Test func peopleGetInfoWithSnakeCaseKeys() throws {
        let node = try #require(try xml("flickr.people.getInfo.xml")["person"])
        let person = try FlickrNodeDecoder(keyDecodingStrategy: .convertFromSnakeCase).decode(Person.self, from: node)
        #expect(person.nsid == "12037949754@N01" && !person.ispro && person.iconserver == 122)
        #expect(person.username == "bees" && person.realname == "Cal Henderson")
        #expect(person.mboxSha1sum == "eea6cd28e3d0003ab51b0058a684d94980b727ac")
        #expect(person.photos.count == 449 && person.photos.firstDate == Date(timeIntervalSince1970: 1_071_510_391))
        #expect(person.photos.firstDateTaken == FlickrDateFormat.mysqlDateTime.date(from: "1900-09-02 09:11:24"))
        // Without the strategy, `mboxSha1sum` is not Flickr's name.
        #expect(throws: DecodingError.self) { try FlickrNodeDecoder().decode(Person.self, from: node) }
    }

    struct SetList: Decodable {
        struct PhotoSet: Decodable {
            let id: String
            let primary: String
            let photos: Int
            let videos: Int
            let countViews: Int
            let canComment: Bool
            let dateCreate: Date
            let title: String
            let description: String
        }
        let total: Int
        let cancreate: Bool
        let photoset: [PhotoSet]
    }

    @Test func photosetsGetListWithSnakeCaseKeys() throws {
        let node = try #require(try xml("flickr.photosets.getList.xml")["photosets"])
        let list = try FlickrNodeDecoder(keyDecodingStrategy: .convertFromSnakeCase).decode(SetList.self, from: node)
        #expect(list.total == 2 && list.cancreate && list.photoset.count == 2)
        let first = try #require(list.photoset.first)
        #expect(first.title == "Avis Blanche" && first.photos == 22 && first.countViews == 137 && first.canComment)
        #expect(first.dateCreate == Date(timeIntervalSince1970: 1_299_514_498))
        #expect(list.photoset[1].videos == 12 && list.photoset[1].description.hasPrefix("Sixty and Niner"))
    }

    @Test func snakeCaseWritesIDsAsTheGuidelinesDo() throws {
        struct Keys: Decodable, Equatable {
            let photoID: String
            let ownerNSID: String
            let urlQ: URL
            let primaryPhotoId: String   // JSONDecoder's spelling is accepted too
            let dateupload: Date
        }
        let node: FlickrNode = ["photo_id": "1", "owner_nsid": "12037949754@N01", "url_q": "https://example.com/q.jpg",
                                "primary_photo_id": "2", "dateupload": "1700000000"]
        let keys = try FlickrNodeDecoder(keyDecodingStrategy: .convertFromSnakeCase).decode(Keys.self, from: node)
        #expect(keys == Keys(photoID: "1", ownerNSID: "12037949754@N01", urlQ: URL(string: "https://example.com/q.jpg")!,
                             primaryPhotoId: "2", dateupload: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(FlickrNodeDecoder.camelCase("_content", acronyms: true) == "_content")
        #expect(FlickrNodeDecoder.camelCase("photo_ids", acronyms: true) == "photoIDs")
        let custom = FlickrNodeDecoder(keyDecodingStrategy: .custom { $0.uppercased() })
        struct Upper: Decodable { let PHOTO_ID: String }
        #expect(try custom.decode(Upper.self, from: node).PHOTO_ID == "1")
    }

    @Test func singleElementAndEmptyValues() throws {
        struct Item: Decodable { let id: String }
        struct Box: Decodable { let item: [Item]; let count: Int?; let title: String? }
        // One element the mapping left a map still reads as a list of one; an empty number is nil,
        // an empty string is a string.
        let box = try FlickrNodeDecoder().decode(Box.self, from: ["item": ["id": "7"], "count": "", "title": ""])
        #expect(box.item.map(\.id) == ["7"] && box.count == nil && box.title == "")
    }

    // MARK: errors

    @Test func missingKeyThrowsWithTheCodingPath() throws {
        struct Photo: Decodable { let id: String; let views: Int }
        struct Page: Decodable { let photo: [Photo] }
        let node = try #require(try xml("flickr.photos.search.xml")["photos"])
        do {
            _ = try FlickrNodeDecoder().decode(Page.self, from: node)
            Issue.record("decoded without `views`")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "views")
            #expect(context.codingPath.map(\.stringValue) == ["photo", "Index 0"])
            #expect(context.codingPath.last?.intValue == 0)
        }
    }

    @Test func nonNumberThrowsTypeMismatchWithTheCodingPath() throws {
        struct Owner: Decodable { let nsid: Int }
        struct Photo: Decodable { let owner: Owner }
        let node = try #require(try xml("flickr.photos.getInfo.xml")["photo"])
        do {
            _ = try FlickrNodeDecoder().decode(Photo.self, from: node)
            Issue.record("decoded an NSID as a number")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["owner", "nsid"])
            #expect(context.debugDescription.contains("12037949754@N01"))
        }
        struct Flag: Decodable { let ispublic: Bool }
        #expect(throws: DecodingError.self) { try FlickrNodeDecoder().decode(Flag.self, from: ["ispublic": "maybe"]) }
        struct Listed: Decodable { let tags: String }
        #expect(throws: DecodingError.self) { try FlickrNodeDecoder().decode(Listed.self, from: ["tags": ["a", "b"]]) }
    }
}
