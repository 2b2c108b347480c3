import Foundation

/// What a backup run must do for one photo, decided from the library's view of it, the
/// backup's rows and whether their files are on disk — a value with no effects, so that the
/// decisions are tested apart from the downloads.
struct BackupPlan: Sendable, Hashable {
    /// Download the original (new, replaced on Flickr, or its file gone).
    var original = false
    /// Reuse a download a killed run finished (`parts/ID_KEY`) instead of fetching it again.
    var reusePart = false
    /// Write the JSON sidecar (new, its metadata changed — `views` alone does not count — or gone).
    var sidecar = false
    /// Write the XMP sidecar (asked for, and its content changed or it is gone).
    var xmp = false

    var isEmpty: Bool { !original && !sidecar && !xmp }

    /// The version of a photo's original: its original secret and format (a replaced file gets
    /// a new secret), else the `url_o` the listing gave.
    static func originalKey(_ p: LibraryPhoto) -> String {
        if let secret = p.original_secret, !secret.isEmpty {
            return secret + "." + (p.original_format ?? "") + (p.media == "video" ? ".video" : "")
        }
        return p.url_o ?? (p.secret ?? "") + "." + (p.media ?? "photo")
    }

    /// The plan for one photo.
    /// - Parameters:
    ///   - key: ``originalKey(_:)`` of the photo now.
    ///   - metadataHash: its sidecar's hash now; `xmpHash` its XMP's (nil without `--xmp`).
    ///   - rows: the backup's rows of this photo, by kind.
    ///   - sound: whether a row's file is on disk at the size recorded for it (a file gone,
    ///     emptied or cut short is written again; a flipped byte is `--verify`'s to find).
    ///   - partExists: whether a finished download of this key waits in `parts/`.
    static func decide(key: String, metadataHash: String, xmpHash: String?,
                       rows: [BackupState.FileRow.Kind: BackupState.FileRow],
                       sound: (BackupState.FileRow) -> Bool, partExists: Bool) -> BackupPlan {
        var plan = BackupPlan()
        if let row = rows[.original], row.key == key, sound(row) {
            plan.original = false
        } else {
            plan.original = true
            plan.reusePart = partExists
        }
        plan.sidecar = !(rows[.sidecar].map { $0.key == metadataHash && sound($0) } ?? false)
        if let xmpHash {
            plan.xmp = !(rows[.xmp].map { $0.key == xmpHash && sound($0) } ?? false)
        }
        // A new original may change its path (another format): the sidecars name it.
        if plan.original { plan.sidecar = true; plan.xmp = xmpHash != nil }
        return plan
    }
}
