/// A licence Flickr gives a photo, as `flickr.photos.licenses.getInfo` lists them today: ids 0
/// to 16, named `CC BY 2.0` and so on (the live answer recorded in
/// `Tests/Fixtures/real/flickr-foundation-cassettes/…licenses.getInfo.200.xml`). A photo's
/// `license` is one of these ids.
public struct FlickrLicense: Sendable, Hashable {
    /// The licence's id (a photo's `license`).
    public var id: Int
    /// Its name as Flickr lists it (`CC BY-SA 2.0`, `All Rights Reserved`).
    public var name: String
    /// The page that states it.
    public var url: String

    /// Every licence, by id.
    public static let all: [FlickrLicense] = [
        FlickrLicense(id: 0, name: "All Rights Reserved",
                      url: "https://www.flickrhelp.com/hc/en-us/articles/10710266545556-Using-Flickr-images-shared-by-other-members"),
        FlickrLicense(id: 1, name: "CC BY-NC-SA 2.0", url: "https://creativecommons.org/licenses/by-nc-sa/2.0/"),
        FlickrLicense(id: 2, name: "CC BY-NC 2.0", url: "https://creativecommons.org/licenses/by-nc/2.0/"),
        FlickrLicense(id: 3, name: "CC BY-NC-ND 2.0", url: "https://creativecommons.org/licenses/by-nc-nd/2.0/"),
        FlickrLicense(id: 4, name: "CC BY 2.0", url: "https://creativecommons.org/licenses/by/2.0/"),
        FlickrLicense(id: 5, name: "CC BY-SA 2.0", url: "https://creativecommons.org/licenses/by-sa/2.0/"),
        FlickrLicense(id: 6, name: "CC BY-ND 2.0", url: "https://creativecommons.org/licenses/by-nd/2.0/"),
        FlickrLicense(id: 7, name: "No known copyright restrictions", url: "https://www.flickr.com/commons/usage/"),
        FlickrLicense(id: 8, name: "United States Government Work", url: "https://www.usa.gov/government-copyright"),
        FlickrLicense(id: 9, name: "Public Domain Dedication (CC0)", url: "https://creativecommons.org/publicdomain/zero/1.0/"),
        FlickrLicense(id: 10, name: "Public Domain Mark", url: "https://creativecommons.org/publicdomain/mark/1.0/"),
        FlickrLicense(id: 11, name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/"),
        FlickrLicense(id: 12, name: "CC BY-SA 4.0", url: "https://creativecommons.org/licenses/by-sa/4.0/"),
        FlickrLicense(id: 13, name: "CC BY-ND 4.0", url: "https://creativecommons.org/licenses/by-nd/4.0/"),
        FlickrLicense(id: 14, name: "CC BY-NC 4.0", url: "https://creativecommons.org/licenses/by-nc/4.0/"),
        FlickrLicense(id: 15, name: "CC BY-NC-SA 4.0", url: "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
        FlickrLicense(id: 16, name: "CC BY-NC-ND 4.0", url: "https://creativecommons.org/licenses/by-nc-nd/4.0/"),
    ]

    /// The licence of id `id` (a photo's `license`, as text or number); nil for one Flickr does
    /// not list.
    public static func named(id: String) -> FlickrLicense? {
        Int(id).flatMap { n in all.first { $0.id == n } }
    }

    /// Whether it is a Creative Commons licence or dedication (its URL is creativecommons.org's).
    public var isCreativeCommons: Bool { url.hasPrefix("https://creativecommons.org/") }
}
