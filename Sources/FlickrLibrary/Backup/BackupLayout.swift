import Foundation

/// Where a backup keeps each thing, relative to its folder `DIR`:
///
/// ```
/// DIR/
///   manifest.json                    every file below (path, size, SHA-256), rewritten when a run ends
///   photos/YYYY/MM/ID.EXT            the original (a video's original video), by upload month (UTC)
///   photos/YYYY/MM/ID.json           the sidecar: everything the library knows of the photo
///   photos/YYYY/MM/ID.EXT.xmp        with --xmp: title, description, keywords, date taken, GPS
///   sets/SET_ID.json                 a set: title, description, primary, its photos in order
///   .deleted/…                       with --prune: photos deleted on Flickr, under their old paths
///   .flickr-backup/                  the backup's own state (never listed in the manifest):
///     backup.sqlite                  what each file is and which version of the photo it holds
///     parts/                         downloads in progress (a file gets its final name only whole)
///     tmp/                           sidecars being written
/// ```
///
/// Paths never change with a photo's metadata: the folder is the month of its upload, which
/// Flickr never moves, and the name is its id. Only a replaced original of another format
/// changes its extension.
public struct BackupLayout: Sendable, Hashable {
    /// The backup's folder.
    public let root: String

    public init(root: String) {
        var r = root
        while r.count > 1 && r.hasSuffix("/") { r.removeLast() }
        self.root = r
    }

    /// The backup's own state folder.
    public static let stateFolder = ".flickr-backup"
    /// Where `--prune` moves what Flickr deleted.
    public static let deletedFolder = ".deleted"
    /// The manifest's name.
    public static let manifestName = "manifest.json"

    var stateDirectory: String { root + "/" + Self.stateFolder }
    var database: String { stateDirectory + "/backup.sqlite" }
    var parts: String { stateDirectory + "/parts" }
    var temporary: String { stateDirectory + "/tmp" }
    var manifest: String { root + "/" + Self.manifestName }

    /// The absolute path of `relative`.
    public func absolute(_ relative: String) -> String { root + "/" + relative }

    /// `photos/YYYY/MM` of the photo's upload (UTC); `photos/undated` without one.
    static func folder(uploaded: Int?) -> String {
        guard let uploaded else { return "photos/undated" }
        var t = time_t(uploaded)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "photos/%04d/%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1)
    }

    /// The original's path: `photos/YYYY/MM/ID.EXT`.
    static func original(id: String, uploaded: Int?, extension ext: String) -> String {
        folder(uploaded: uploaded) + "/" + id + "." + ext
    }

    /// The JSON sidecar's path: `photos/YYYY/MM/ID.json`.
    static func sidecar(id: String, uploaded: Int?) -> String {
        folder(uploaded: uploaded) + "/" + id + ".json"
    }

    /// The XMP sidecar of an original: `ORIGINAL.xmp` (digiKam's and darktable's naming).
    static func xmp(original: String) -> String { original + ".xmp" }

    /// A set's manifest: `sets/SET_ID.json`.
    static func set(id: String) -> String { "sets/" + id + ".json" }

    /// The name of a finished download in `parts/`: the photo and the version of its original.
    static func partName(id: String, key: String) -> String {
        id + "_" + String(key.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
    }

    /// Whether `relative` lies in a dot-folder (the backup's state, `.deleted`) or is the manifest.
    static func isBookkeeping(_ relative: String) -> Bool {
        relative == manifestName || relative.split(separator: "/").contains { $0.hasPrefix(".") }
    }
}

extension LibraryFilter {
    /// Every photo of the library (not deleted).
    static var all: LibraryFilter {
        // An empty filter is always valid.
        try! LibraryFilter([:])
    }
}
