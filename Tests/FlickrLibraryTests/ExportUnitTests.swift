@testable import FlickrLibrary
import Foundation
import Testing

/// The export's names and tree, apart from any file: what each title becomes on disk.
@Suite("Export: safe names, the tree by set, date or flat", .timeLimit(.minutes(1)), .tags(.unit))
struct ExportUnitTests {
    static func photo(_ id: String, title: String = "", taken: String? = "2019-07-02 14:03:05", sets: [(String, String)] = [],
                      original: String = "photos/2019/07/1.jpg") -> ExportPhoto {
        var object: [String: Any] = ["id": id, "title": title, "owner": "10000001@N01", "media": "photo",
                                     "sets": sets.map { ["id": $0.0, "title": $0.1] }]
        object["date_taken"] = taken
        return ExportPhoto(sidecar: object, original: original, sha256: String(repeating: "0", count: 64))!
    }

    @Test("Names lose what a file system refuses: <>:\"/\\|?* and control characters, trailing dots and spaces, a leading dot, device names with or without an extension; they keep their end within 255 bytes and come out in NFC")
    func safeNames() {
        #expect(ExportName.make("a/b:c*?\"<>|\\d\u{7}e") == "a_b_c_______d_e")
        #expect(ExportName.make("ends with dots. . ") == "ends with dots")
        #expect(ExportName.make(".hidden") == "_hidden")
        #expect(ExportName.make("CON") == "_CON" && ExportName.make("nul.txt") == "_nul.txt" && ExportName.make("com7 ") == "_com7")
        #expect(ExportName.make("CONSOLE") == "CONSOLE" && ExportName.make("LPT10") == "LPT10")
        #expect(ExportName.make("") == "_" && ExportName.make("...") == "_")
        let long = ExportName.make(String(repeating: "é", count: 300), suffix: " (52000000001).jpg")
        #expect(long.utf8.count <= 255 && long.hasSuffix(" (52000000001).jpg") && long.hasPrefix("éé"))
        #expect(ExportName.make("Cafe\u{301}") == "Caf\u{E9}")
        #expect(ExportName.caseKey("ICELAND") == ExportName.caseKey("iceland"))
    }

    @Test("A file is DATE TITLE (ID).EXT, DATE (ID).EXT untitled, undated without a date; by date under YYYY/MM-DD; by set under each set (sets equal ignoring case, or named like the folder of photos in no set, told apart by id); flat in the folder")
    func tree() {
        let a = Self.photo("1", title: "Harbour", sets: [("s1", "Iceland"), ("s2", "iceland"), ("s3", "Trips")])
        let b = Self.photo("2", taken: nil)
        let c = Self.photo("3", title: "Night", sets: [("s4", "Not in a set")])
        let set = ExportTree.paths([a, b, c], by: .set, setTitles: ["s3": "Trips 2019"])
        #expect(set["1"] == ["Iceland (s1)/2019-07-02 Harbour (1).jpg", "iceland (s2)/2019-07-02 Harbour (1).jpg", "Trips 2019/2019-07-02 Harbour (1).jpg"])
        #expect(set["2"] == ["Not in a set/undated (2).jpg"])
        #expect(set["3"] == ["Not in a set (s4)/2019-07-02 Night (3).jpg"])
        let date = ExportTree.paths([a, b], by: .date, setTitles: [:])
        #expect(date["1"] == ["2019/07-02/2019-07-02 Harbour (1).jpg"] && date["2"] == ["undated/undated (2).jpg"])
        #expect(ExportTree.paths([a], by: .flat, setTitles: [:])["1"] == ["2019-07-02 Harbour (1).jpg"])
    }

    @Test("The gallery: an index of years and sets, a set of 600 photos in pages of 250 linked previous and next, photo pages whose image and original links are percent-encoded paths of the tree and whose text is escaped")
    func galleryPages() {
        let photos = (1...600).map { n in Self.photo(String(n), title: n == 1 ? "A & B <c> #1 50%" : "Photo \(n)",
                                                     taken: "2019-07-02 14:03:05", sets: [("s1", "Trips")]) }
        let entries = photos.map { ExportGallery.Entry(photo: $0, path: "Trips/" + ExportTree.fileName($0)) }
        let set = LibraryExport.BackupSet(id: "s1", title: "Trips", description: "", photos: photos.map(\.id))
        let pages = ExportGallery.pages(entries, sets: ["s1": set])
        #expect(Set(pages.keys).isSuperset(of: ["index.html", "gallery/style.css", "gallery/sets/s1.html", "gallery/sets/s1-2.html",
                                                "gallery/sets/s1-3.html", "gallery/years/2019.html", "gallery/photos/1.html"]))
        #expect(pages["gallery/sets/s1-4.html"] == nil && pages.count == 2 + 3 + 3 + 600)
        let second = pages["gallery/sets/s1-2.html"]!
        #expect(second.contains("href=\"s1.html\" rel=\"prev\"") && second.contains("href=\"s1-3.html\" rel=\"next\""))
        #expect(second.components(separatedBy: "<li>").count - 1 == 250)
        let page = pages["gallery/photos/1.html"]!
        #expect(page.contains("<h1>A &amp; B &lt;c&gt; #1 50%</h1>"))
        #expect(page.contains("src=\"../../Trips/2019-07-02%20A%20%26%20B%20_c_%20%231%2050%25%20%281%29.jpg\""), "\(page)")
        #expect(page.contains("alt=\"A &amp; B &lt;c&gt; #1 50%\""))
        #expect(pages["index.html"]!.contains("<a href=\"gallery/sets/s1.html\">Trips</a> <span>600</span>"))
    }
}
