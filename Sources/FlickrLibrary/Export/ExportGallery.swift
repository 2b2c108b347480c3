import FlickrProtocol
import Foundation

/// The static site `flickr export --gallery` writes into the export's folder, readable from
/// `file://` with no server, no network and no script:
///
/// ```
/// DIR/index.html                    the archive: its years and its sets, each linked by name
/// DIR/gallery/style.css             one stylesheet
/// DIR/gallery/years/YYYY[-N].html   a year's photos by date taken, 250 a page
/// DIR/gallery/sets/SET_ID[-N].html  a set's photos in the set's order, 250 a page
/// DIR/gallery/photos/ID.html        a photo: the image, title, description, tags, date, place
///                                   (an OpenStreetMap link), licence, comments and faves when
///                                   the backup kept them, the original's file
/// ```
///
/// Every relative link and image names a file of the tree; only OpenStreetMap, the licence and
/// Flickr's own page are links out. Pages are HTML5 with every image's alt text; a page lists at
/// most 250 photos, so none grows past a few hundred kilobytes at any library size.
enum ExportGallery {
    static let folder = "gallery"
    static let index = "index.html"
    static let pageSize = 250

    /// A photo as the site shows it: the export's photo and the relative path of its copy.
    struct Entry {
        var photo: ExportPhoto
        var path: String
    }

    /// Every page of the site for `entries`, by relative path.
    static func pages(_ entries: [Entry], sets: [String: LibraryExport.BackupSet]) -> [String: String] {
        var out: [String: String] = [folder + "/style.css": style]
        let byID = Dictionary(entries.map { ($0.photo.id, $0) }, uniquingKeysWith: { a, _ in a })
        let dated = entries.sorted { ($0.photo.dateTaken ?? "", $0.photo.id) < ($1.photo.dateTaken ?? "", $1.photo.id) }
        // Years, newest first.
        let years = Dictionary(grouping: dated) { String($0.photo.day.prefix(4)) }
        for (year, list) in years {
            out.merge(listPages(folder + "/years/" + year, title: year == "unda" ? "Undated" : year, intro: nil, list), uniquingKeysWith: { a, _ in a })
        }
        // Sets, in the set's own order (photos the backup holds).
        // In one order every run (by title, then id): a page is rewritten only when its text changes.
        let members = sets.values.map { set in (set, set.photos.compactMap { byID[$0] }) }.filter { !$0.1.isEmpty }
            .sorted { ($0.0.title.lowercased(), $0.0.id) < ($1.0.title.lowercased(), $1.0.id) }
        for (set, list) in members {
            out.merge(listPages(folder + "/sets/" + set.id, title: set.title.isEmpty ? "Untitled set" : set.title,
                                intro: set.description.isEmpty ? nil : set.description, list), uniquingKeysWith: { a, _ in a })
        }
        // Each photo's sets, gathered once (not every set searched for every photo).
        var setsOf: [String: [LibraryExport.BackupSet]] = [:]
        for (set, list) in members {
            for e in list where setsOf[e.photo.id]?.last?.id != set.id { setsOf[e.photo.id, default: []].append(set) }
        }
        for entry in entries {
            out[folder + "/photos/" + entry.photo.id + ".html"] = photoPage(entry, sets: setsOf[entry.photo.id] ?? [])
        }
        // The index: years, then sets by title.
        var body = "<h1>Photo archive</h1>\n<p>\(entries.count) photo\(entries.count == 1 ? "" : "s")</p>\n<h2>By year</h2>\n<ul class=\"list\">\n"
        for year in years.keys.sorted(by: >) {
            let name = year == "unda" ? "Undated" : year
            body += "<li><a href=\"\(folder)/years/\(url(year)).html\">\(html(name))</a> <span>\(years[year]!.count)</span></li>\n"
        }
        body += "</ul>\n<h2>By set</h2>\n<ul class=\"list\">\n"
        for (set, list) in members {
            body += "<li><a href=\"\(folder)/sets/\(url(set.id)).html\">\(html(set.title.isEmpty ? "Untitled set" : set.title))</a> "
                + "<span>\(list.count)</span></li>\n"
        }
        body += "</ul>\n"
        out[index] = document(title: "Photo archive", css: folder + "/style.css", body: body)
        return out
    }

    /// A list of photos as pages of ``pageSize``: `BASE.html`, `BASE-2.html`, … (two folders deep).
    static func listPages(_ base: String, title: String, intro: String?, _ list: [Entry]) -> [String: String] {
        var out: [String: String] = [:]
        let count = max(1, (list.count + pageSize - 1) / pageSize)
        let name = (base as NSString).lastPathComponent
        func file(_ n: Int) -> String { name + (n == 1 ? "" : "-\(n)") + ".html" }
        for n in 1...count {
            let slice = list[min(list.count, (n - 1) * pageSize)..<min(list.count, n * pageSize)]
            var body = "<nav><a href=\"../../\(index)\">Archive</a></nav>\n<h1>\(html(title))</h1>\n"
            if let intro { body += "<p class=\"description\">\(paragraphs(intro))</p>\n" }
            body += "<p>\(list.count) photo\(list.count == 1 ? "" : "s")" + (count > 1 ? ", page \(n) of \(count)" : "") + "</p>\n<ol class=\"photos\">\n"
            for e in slice {
                body += "<li><a href=\"../photos/\(url(e.photo.id)).html\">\(html(label(e.photo)))</a> <time>\(html(e.photo.day))</time></li>\n"
            }
            body += "</ol>\n"
            if count > 1 {
                body += "<nav class=\"pages\">"
                if n > 1 { body += "<a href=\"\(url(file(n - 1)))\" rel=\"prev\">Previous</a> " }
                if n < count { body += "<a href=\"\(url(file(n + 1)))\" rel=\"next\">Next</a>" }
                body += "</nav>\n"
            }
            out[(base as NSString).deletingLastPathComponent + "/" + file(n)] = document(title: title, css: "../style.css", body: body)
        }
        return out
    }

    /// A photo's page.
    static func photoPage(_ e: Entry, sets: [LibraryExport.BackupSet]) -> String {
        let p = e.photo
        let file = "../../" + url(e.path)
        var body = "<nav><a href=\"../../\(index)\">Archive</a>"
        if p.dateTaken != nil { body += " · <a href=\"../years/\(url(String(p.day.prefix(4)))).html\">\(html(String(p.day.prefix(4))))</a>" }
        for set in sets { body += " · <a href=\"../sets/\(url(set.id)).html\">\(html(set.title.isEmpty ? "Untitled set" : set.title))</a>" }
        body += "</nav>\n<h1>\(html(label(p)))</h1>\n<figure>\n"
        body += p.isVideo
            ? "<video controls preload=\"metadata\" src=\"\(file)\"><a href=\"\(file)\">\(html(label(p)))</a></video>\n"
            : "<img src=\"\(file)\" alt=\"\(html(label(p)))\">\n"
        body += "</figure>\n"
        if !p.description.isEmpty { body += "<p class=\"description\">\(paragraphs(p.description))</p>\n" }
        body += "<dl>\n<dt>Taken</dt><dd>" + html(p.dateTaken ?? "unknown") + "</dd>\n"
        if !p.keywords.isEmpty {
            body += "<dt>Tags</dt><dd><ul class=\"tags\">" + p.keywords.map { "<li>\(html($0))</li>" }.joined() + "</ul></dd>\n"
        }
        if let lat = p.latitude, let lon = p.longitude {
            let (a, b) = (String(format: "%.6f", lat), String(format: "%.6f", lon))
            body += "<dt>Place</dt><dd><a href=\"https://www.openstreetmap.org/?mlat=\(a)&amp;mlon=\(b)#map=16/\(a)/\(b)\">\(a), \(b)</a></dd>\n"
        }
        if let license = FlickrLicense.named(id: p.license ?? "") {
            body += "<dt>Licence</dt><dd><a href=\"\(html(license.url))\">\(html(license.name))</a></dd>\n"
        }
        body += "<dt>Original</dt><dd><a href=\"\(file)\">\(html((e.path as NSString).lastPathComponent))</a></dd>\n"
        body += "<dt>On Flickr</dt><dd><a href=\"\(html(p.pageURL))\">\(html(p.pageURL))</a></dd>\n</dl>\n"
        if !p.comments.isEmpty {
            body += "<section>\n<h2>Comments</h2>\n<ol class=\"comments\">\n"
            for c in p.comments {
                body += "<li><p class=\"author\">\(html(c.authorName.isEmpty ? c.author : c.authorName)) <time>\(html(c.date))</time></p>"
                    + "<p>\(paragraphs(c.text))</p></li>\n"
            }
            body += "</ol>\n</section>\n"
        }
        if !p.faves.isEmpty {
            body += "<section>\n<h2>Faves</h2>\n<ul class=\"faves\">" + p.faves.map { "<li>\(html($0))</li>" }.joined() + "</ul>\n</section>\n"
        }
        return document(title: label(p), css: "../style.css", body: body)
    }

    /// The title, or `Untitled (ID)`.
    static func label(_ p: ExportPhoto) -> String { p.title.isEmpty ? "Untitled (\(p.id))" : p.title }

    static func document(title: String, css: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(html(title))</title>
        <link rel="stylesheet" href="\(css)">
        </head>
        <body>
        <main>
        \(body)</main>
        </body>
        </html>

        """
    }

    static let style = """
        body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
        main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
        nav { margin-bottom: 1rem; }
        figure { margin: 0 0 1rem; }
        img, video { max-width: 100%; max-height: 85vh; height: auto; display: block; background: #eee; }
        .list, .photos { padding-left: 1.5rem; }
        .list span, time { color: #666; font-size: 0.9em; }
        .tags { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 0.4rem; }
        .tags li { background: #e8e8e8; border-radius: 0.3rem; padding: 0 0.4rem; }
        dt { font-weight: 600; }
        dd { margin: 0 0 0.5rem; overflow-wrap: anywhere; }
        .description, .comments p { white-space: normal; overflow-wrap: anywhere; }

        """

    /// Text escaped for HTML, in text and in double-quoted attribute values: XML's escaping
    /// (``XMPSidecar/escape(_:)``: `&`, `<`, `>`, `"`; what XML cannot hold dropped).
    static func html(_ s: String) -> String { XMPSidecar.escape(s) }

    /// Text whose line breaks are kept, as HTML.
    static func paragraphs(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { html(String($0)) }.joined(separator: "<br>")
    }

    /// A relative path as a URL: each byte outside RFC 3986's unreserved characters (and `/`)
    /// percent-encoded, so spaces, `#`, `%` and non-ASCII titles resolve to the file.
    static func url(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
