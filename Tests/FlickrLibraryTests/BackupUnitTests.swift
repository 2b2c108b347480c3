import FlickrJobs
@testable import FlickrLibrary
import FlickrTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The backup's decisions and files, apart from any download: what a run does for one photo,
/// what its sidecars say, where its files go.
@Suite("Backup: the plan per photo, the sidecars, the layout", .timeLimit(.minutes(3)), .tags(.unit))
struct BackupUnitTests {
    static func photo(views: Int = 10, title: String = "Tram", secret: String = "abc123", format: String = "jpg") -> LibraryPhoto {
        var p = LibraryPhoto(id: "52000000001", owner: "10000001@N01")
        p.title = title
        p.views = views
        p.original_secret = secret
        p.original_format = format
        p.date_upload = 1_562_025_600  // 2019-07-02 UTC
        p.date_taken = "2019-07-01 18:30:00"
        p.tags = "tram lisbon"
        p.latitude = 38.7139
        p.longitude = -9.1334
        return p
    }

    static func record(_ p: LibraryPhoto) -> LibraryRecord {
        LibraryRecord(photo: p, tags: ["tram", "Lisbon"], machineTags: ["camera:make=fujifilm"], sets: ["72157600000000101"])
    }

    typealias Row = BackupState.FileRow

    static func rows(for p: LibraryPhoto, sidecarHash: String) -> [Row.Kind: Row] {
        [.original: Row(path: "photos/2019/07/52000000001.jpg", size: 10, sha256: "x", owner: p.id, kind: .original,
                        key: BackupPlan.originalKey(p)),
         .sidecar: Row(path: "photos/2019/07/52000000001.json", size: 10, sha256: "y", owner: p.id, kind: .sidecar, key: sidecarHash)]
    }

    @Test("A new photo needs its original and sidecar; a backed-up one nothing; a replaced original (new secret) or a file gone is fetched again")
    func plan() {
        let p = Self.photo()
        let hash = BackupSidecar(record: Self.record(p), setTitles: [:], original: "photos/2019/07/52000000001.jpg").metadataHash
        let fresh = BackupPlan.decide(key: BackupPlan.originalKey(p), metadataHash: hash, xmpHash: nil, rows: [:],
                                      sound: { _ in false }, partExists: false)
        #expect(fresh.original && fresh.sidecar && !fresh.xmp && !fresh.reusePart)
        let done = BackupPlan.decide(key: BackupPlan.originalKey(p), metadataHash: hash, xmpHash: nil, rows: Self.rows(for: p, sidecarHash: hash),
                                     sound: { _ in true }, partExists: false)
        #expect(done.isEmpty)
        let replaced = Self.photo(secret: "def456")
        let again = BackupPlan.decide(key: BackupPlan.originalKey(replaced), metadataHash: hash, xmpHash: nil,
                                      rows: Self.rows(for: p, sidecarHash: hash), sound: { _ in true }, partExists: true)
        #expect(again.original && again.reusePart && again.sidecar)
        let gone = BackupPlan.decide(key: BackupPlan.originalKey(p), metadataHash: hash, xmpHash: nil, rows: Self.rows(for: p, sidecarHash: hash),
                                     sound: { !$0.path.hasSuffix(".jpg") }, partExists: false)
        #expect(gone.original && !gone.reusePart)
        let xmp = BackupPlan.decide(key: BackupPlan.originalKey(p), metadataHash: hash, xmpHash: "z", rows: Self.rows(for: p, sidecarHash: hash),
                                    sound: { _ in true }, partExists: false)
        #expect(!xmp.original && !xmp.sidecar && xmp.xmp)
    }

    @Test("A change in views alone leaves the sidecar's hash as it was; a title, a set or the original's path changes it")
    func metadataHash() {
        let base = BackupSidecar(record: Self.record(Self.photo()), setTitles: ["72157600000000101": "Lisbon"], original: "a.jpg")
        var views = base
        views.record.photo.views = 99_999
        #expect(views.metadataHash == base.metadataHash)
        #expect(views.text != base.text, "the sidecar itself shows the views")
        var title = base
        title.record.photo.title = "Tram 28"
        #expect(title.metadataHash != base.metadataHash)
        var set = base
        set.setTitles["72157600000000101"] = "Lisboa"
        #expect(set.metadataHash != base.metadataHash)
        var path = base
        path.original = "a.png"
        #expect(path.metadataHash != base.metadataHash)
    }

    @Test("The JSON sidecar holds the photo's fields by their extras names, the sets with titles, and parses")
    func sidecarContent() throws {
        let text = BackupSidecar(record: Self.record(Self.photo()), setTitles: ["72157600000000101": "Lisbon"],
                                 original: "photos/2019/07/52000000001.jpg").text
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["id"] as? String == "52000000001")
        #expect(object["title"] as? String == "Tram")
        #expect(object["tags"] as? [String] == ["tram", "Lisbon"])
        #expect(object["machine_tags"] as? [String] == ["camera:make=fujifilm"])
        #expect(object["date_taken"] as? String == "2019-07-01 18:30:00")
        #expect(object["views"] as? Int == 10)
        #expect(object["original"] as? String == "photos/2019/07/52000000001.jpg")
        let sets = try #require(object["sets"] as? [[String: String]])
        #expect(sets == [["id": "72157600000000101", "title": "Lisbon"]])
    }

    @Test("The XMP sidecar is well-formed XML with title, keywords, date taken and GPS in XMP's form; text is escaped")
    func xmp() throws {
        var p = Self.photo(title: "Tram <28> & \"friends\"")
        p.description = "Alfama\u{1}"
        let text = XMPSidecar.text(Self.record(p))
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")\n\(text)")
        #expect(text.contains("<rdf:li xml:lang=\"x-default\">Tram &lt;28&gt; &amp; &quot;friends&quot;</rdf:li>"))
        #expect(text.contains("<rdf:li>Lisbon</rdf:li>") && text.contains("<rdf:li>camera:make=fujifilm</rdf:li>"))
        #expect(text.contains("<exif:DateTimeOriginal>2019-07-01T18:30:00</exif:DateTimeOriginal>"))
        #expect(text.contains("<exif:GPSLatitude>38,42.834000N</exif:GPSLatitude>"))
        #expect(text.contains("<exif:GPSLongitude>9,8.004000W</exif:GPSLongitude>"))
    }

    @Test("XMP dates keep Flickr's precision (month 2011-01, year and circa 2011); a privacy change rewrites the JSON sidecar, not the XMP; a file cut short is written again")
    func xmpPrecisionAndWhatChanges() {
        var p = Self.photo()
        for (granularity, written) in [(nil, "2019-07-01T18:30:00"), (0, "2019-07-01T18:30:00"), (4, "2019-07"), (6, "2019"), (8, "2019")] {
            p.date_taken_granularity = granularity
            let text = XMPSidecar.text(Self.record(p))
            #expect(text.contains("<exif:DateTimeOriginal>\(written)</exif:DateTimeOriginal>") && text.contains("<xmp:CreateDate>\(written)</xmp:CreateDate>"),
                    "granularity \(granularity.map(String.init) ?? "none")")
        }
        p.date_taken_granularity = nil
        var shared = p
        shared.ispublic = 1 - p.ispublic
        let before = BackupSidecar(record: Self.record(p), setTitles: [:], original: "photos/2019/07/52000000001.jpg").metadataHash
        let after = BackupSidecar(record: Self.record(shared), setTitles: [:], original: "photos/2019/07/52000000001.jpg").metadataHash
        #expect(before != after)
        let xmpHash = FileDigest.of(Data(XMPSidecar.text(Self.record(p)).utf8))
        #expect(FileDigest.of(Data(XMPSidecar.text(Self.record(shared)).utf8)) == xmpHash)
        var rows = Self.rows(for: p, sidecarHash: before)
        rows[.xmp] = Row(path: "photos/2019/07/52000000001.jpg.xmp", size: 10, sha256: "z", owner: p.id, kind: .xmp, key: xmpHash)
        let privacy = BackupPlan.decide(key: BackupPlan.originalKey(shared), metadataHash: after, xmpHash: xmpHash, rows: rows,
                                        sound: { _ in true }, partExists: false)
        #expect(privacy.sidecar && !privacy.xmp && !privacy.original)
        // A file whose size is not the recorded one (emptied, cut short) counts as gone.
        let cut = BackupPlan.decide(key: BackupPlan.originalKey(p), metadataHash: before, xmpHash: nil, rows: rows,
                                    sound: { $0.kind != .original }, partExists: false)
        #expect(cut.original)
    }

    @Test("Paths: the upload month in UTC, the id as the name, the XMP beside the original; dot-folders and the manifest are bookkeeping")
    func layout() {
        #expect(BackupLayout.original(id: "5", uploaded: 1_562_025_600, extension: "png") == "photos/2019/07/5.png")
        #expect(BackupLayout.original(id: "5", uploaded: 1_546_300_799, extension: "jpg") == "photos/2018/12/5.jpg")
        #expect(BackupLayout.sidecar(id: "5", uploaded: nil) == "photos/undated/5.json")
        #expect(BackupLayout.xmp(original: "photos/2019/07/5.png") == "photos/2019/07/5.png.xmp")
        #expect(BackupLayout.isBookkeeping("manifest.json") && BackupLayout.isBookkeeping(".deleted/photos/2019/07/5.png")
                && !BackupLayout.isBookkeeping("photos/2019/07/5.png"))
        #expect(BackupLayout(root: "/tmp/b/").root == "/tmp/b")
    }
}
