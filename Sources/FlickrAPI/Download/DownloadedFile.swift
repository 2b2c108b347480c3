import Foundation
import _NIOFileSystem

/// What a downloaded photo file carries besides its bytes:
///
/// - its modification time is the photo's date taken, read in the local time zone (Flickr gives
///   `2024-05-01 14:23:11`, the camera's clock, with no zone), so that file browsers sort by
///   when the photo was taken;
/// - an extended attribute (`user.flickr.source`) names the image it holds (`52000000001_a1b2c3_o.jpg`:
///   the URL's last part, which changes when the photo is replaced) with the file's size and
///   modification time, so that a later run knows the file is current from a listing alone,
///   without asking the image host. A file changed since, or on a file system without extended
///   attributes, is checked with the image host as before.
public enum DownloadedFile {
    /// The extended attribute naming the image a file holds.
    static let sourceAttribute = "user.flickr.source"

    /// `2024-05-01 14:23:11` (a date taken as Flickr gives it) as an instant in the local time
    /// zone; nil for anything else.
    public static func takenDate(_ text: String) -> Date? {
        let parts = text.split { $0 == "-" || $0 == " " || $0 == ":" }.compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone.current
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        (components.hour, components.minute, components.second) = (parts[3], parts[4], parts[5])
        guard components.isValidDate, let date = components.date else { return nil }
        return date
    }

    /// Sets the file's modification time to the date taken `text` (when it is one). Best
    /// effort: a file whose time cannot be set keeps its own.
    public static func setTaken(_ text: String?, at path: String) {
        guard let text, let date = takenDate(text) else { return }
        try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    /// Whether the file at `path` holds the image `name` as it was written: the stamp names
    /// it, and the file's size and modification time are still those stamped (a file changed
    /// in place since is not current).
    static func holds(_ name: String, at path: String) async -> Bool {
        let stamp = try? await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
            (try await handle.valueForAttribute(sourceAttribute), try await handle.info())
        }
        guard let (bytes, info) = stamp, !bytes.isEmpty else { return false }
        return String(decoding: bytes, as: UTF8.self) == stampText(name, info)
    }

    /// Stamps the file as holding the image `name`, with its size and modification time now
    /// (set the time first). Best effort: not every file system keeps attributes.
    static func stamp(_ name: String, at path: String) async {
        _ = try? await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
            let text = stampText(name, try await handle.info())
            try await handle.updateValueForAttribute(Array(text.utf8), attribute: sourceAttribute)
        }
    }

    /// `NAME SIZE MTIME` (seconds since 1970).
    private static func stampText(_ name: String, _ info: FileInfo) -> String {
        "\(name) \(info.size) \(info.lastDataModificationTime.seconds)"
    }

    /// The name of the image `url` points at: its last path component, without a query.
    static func sourceName(_ url: String) -> String {
        let last = url.split(separator: "/").last.map(String.init) ?? url
        return last.split(separator: "?").first.map(String.init) ?? last
    }
}
