import FlickrMedia
import FlickrProtocol
import Foundation

/// What `flickr export --embed` writes into a copy, through ExifTool, in EXIF, IPTC and XMP as
/// ExifTool and digiKam read them: title, description, keywords (machine tags left out), date
/// taken, GPS position, licence and rights, the Flickr page URL and the photo id. A field
/// Flickr has no value for is deleted from the copy, so that every title, description, keyword
/// and date field agrees with Flickr (a camera's `ImageDescription` or a manager's hierarchical
/// keywords would otherwise stay). A video gets the XMP part as a sidecar instead.
enum ExportEmbedding {
    typealias Assignment = ExifTool.Assignment

    /// The assignments for a photo's copy.
    static func assignments(_ p: ExportPhoto) -> [Assignment] {
        var out: [Assignment] = []
        out += [Assignment("IPTC:ObjectName", p.title), Assignment("IPTC:Caption-Abstract", p.description),
                Assignment("IFD0:ImageDescription", p.description)]
        out += list("IPTC:Keywords", p.keywords)
        let (exifDate, iptcDate, iptcTime) = exifDates(p)
        out += [Assignment("ExifIFD:DateTimeOriginal", exifDate), Assignment("ExifIFD:CreateDate", exifDate),
                Assignment("IPTC:DateCreated", iptcDate), Assignment("IPTC:TimeCreated", iptcTime)]
        if let lat = p.latitude, let lon = p.longitude {
            out += [Assignment("GPS:GPSLatitude", String(abs(lat))), Assignment("GPS:GPSLatitudeRef", lat < 0 ? "S" : "N"),
                    Assignment("GPS:GPSLongitude", String(abs(lon))), Assignment("GPS:GPSLongitudeRef", lon < 0 ? "W" : "E")]
        } else {
            out += ["GPS:GPSLatitude", "GPS:GPSLatitudeRef", "GPS:GPSLongitude", "GPS:GPSLongitudeRef"].map { Assignment($0, "") }
        }
        let rights = FlickrLicense.named(id: p.license ?? "")?.name ?? ""
        out += [Assignment("IPTC:CopyrightNotice", rights), Assignment("IFD0:Copyright", rights),
                Assignment("IPTC:OriginalTransmissionReference", p.id)]
        return out + xmp(p)
    }

    /// The XMP assignments alone (a video's sidecar, and the XMP part of a photo's copy).
    static func xmp(_ p: ExportPhoto) -> [Assignment] {
        var out = [Assignment("XMP-dc:Title", p.title), Assignment("XMP-dc:Description", p.description)]
        out += list("XMP-dc:Subject", p.keywords)
        // A manager's own keyword trees would disagree with Flickr's keywords.
        out += [Assignment("XMP-lr:HierarchicalSubject", ""), Assignment("XMP-digiKam:TagsList", "")]
        let date = p.dateTaken.flatMap { XMPSidecar.isoDate($0, granularity: p.granularity) } ?? ""
        out += [Assignment("XMP-exif:DateTimeOriginal", date), Assignment("XMP-photoshop:DateCreated", date),
                Assignment("XMP-xmp:CreateDate", date)]
        out += [Assignment("XMP-exif:GPSLatitude", p.latitude.map { String($0) } ?? ""),
                Assignment("XMP-exif:GPSLongitude", p.longitude.map { String($0) } ?? "")]
        let license = FlickrLicense.named(id: p.license ?? "")
        out += [Assignment("XMP-dc:Rights", license?.name ?? ""), Assignment("XMP-xmpRights:UsageTerms", license?.name ?? ""),
                Assignment("XMP-xmpRights:WebStatement", license?.url ?? ""),
                Assignment("XMP-cc:License", license.map { $0.isCreativeCommons ? $0.url : "" } ?? "")]
        out += [Assignment("XMP-dc:Source", p.pageURL), Assignment("XMP-dc:Identifier", p.id)]
        return out
    }

    /// A list tag's assignments: one per item, or one that deletes it.
    static func list(_ tag: String, _ items: [String]) -> [Assignment] {
        items.isEmpty ? [Assignment(tag, "")] : items.map { Assignment(tag, $0) }
    }

    /// EXIF's `YYYY:MM:DD HH:MM:SS` (EXIF has no partial dates: a month's or year's first
    /// moment), IPTC's date and time; empty (deleted) without a date taken.
    static func exifDates(_ p: ExportPhoto) -> (exif: String, iptcDate: String, iptcTime: String) {
        guard let taken = p.dateTaken, taken.count >= 19 else { return ("", "", "") }
        let date = String(taken.prefix(10)).replacingOccurrences(of: "-", with: ":")
        let time = String(taken.dropFirst(11).prefix(8))
        return (date + " " + time, date, time)
    }

    /// The tags verification reads back, and what each must hold (as `exiftool -n -G1` gives
    /// them; an absent tag is an empty list).
    static func expected(_ p: ExportPhoto, video: Bool) -> [String: [String]] {
        var out: [String: [String]] = [
            "XMP-dc:Title": p.title.isEmpty ? [] : [p.title],
            "XMP-dc:Description": p.description.isEmpty ? [] : [p.description],
            "XMP-dc:Subject": p.keywords,
            "XMP-dc:Identifier": [p.id],
            "XMP-dc:Source": [p.pageURL],
        ]
        if !video {
            out["ExifIFD:DateTimeOriginal"] = exifDates(p).exif.isEmpty ? [] : [exifDates(p).exif]
            out["IFD0:ImageDescription"] = p.description.isEmpty ? [] : [p.description]
        }
        return out
    }
}
