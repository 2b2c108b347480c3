import FlickrAPI
import FlickrProtocol
import Foundation
import LuaKit

/// `flickr.download(photo_or_id, { size = "o", path = …, dir = …, progress = fn })`.
extension FlickrModule {
    func installDownload(_ state: LuaState, _ flickr: Int32) {
        // → { path =, bytes =, skipped =, size =, url =, photo_id = }
        define(state, flickr, "download") { call in try self.download(call) }
    }

    private func download(_ call: LuaCall) throws -> LuaReturn {
            let s = call.state
            let (id, photo) = try Self.downloadTarget(call)
            var size: PhotoSize?
            var path: String?
            var directory: String?
            var relay: ProgressRelay?
            if let options = try LuaOptions.read(call, at: 2, function: "download", known: ["size", "path", "dir", "progress"]) {
                size = try Self.size(options)
                path = try options.string("path")
                directory = try options.string("dir")
                if let callback = try options.function("progress", expected: "a function(received, total)") {
                    relay = ProgressRelay(poster: s.jobPoster, callback: callback)
                }
            }
            // A path naming a directory (existing, or written with a trailing /) takes the default name.
            if let p = path, p.hasSuffix("/") || Self.isDirectory(p) {
                directory = p
                path = nil
            }
            let client = self.client
            let progress = Self.downloadProgress(relay)
            let (chosenPath, chosenDirectory, chosenSize) = (path, directory, size)
            return self.asyncReturn("flickr.download", { () async throws -> PhotoDownload in
                try await client.downloadPhoto(id: id, photo: photo, size: chosenSize, path: chosenPath,
                                               directory: chosenDirectory, progress: progress)
            }, deliver: { (state: LuaState, result: PhotoDownload) throws -> Int32 in
                try relay?.finish(state)
                state.newTable(record: 6)
                for (key, value) in [("path", result.outcome.path), ("url", result.source.url), ("photo_id", result.photoID),
                                     ("size", result.source.size.rawValue.isEmpty ? "-" : result.source.size.rawValue)] {
                    state.push(value)
                    state.rawSet(field: key, in: -2)
                }
                state.push(result.outcome.bytes)
                state.rawSet(field: "bytes", in: -2)
                state.push(result.outcome.skipped)
                state.rawSet(field: "skipped", in: -2)
                return 1
            })
    }

    private static func downloadProgress(_ relay: ProgressRelay?) -> DownloadProgress? {
        guard let relay else { return nil }
        return { received, total in relay.report(sent: received, total: total) }
    }

    /// Argument 1: an id (string or integer) or a photo table with `id` (its `url_*` extras are used).
    private static func downloadTarget(_ call: LuaCall) throws -> (String, FlickrNode?) {
        switch call.type(1) {
        case .string, .number:
            return (try call.string(1), nil)
        case .table:
            guard let photo = ResponseMapping.node(at: 1, in: call.state), let id = photo["id"]?.string else {
                throw call.argumentError(1, "a photo table with an id expected")
            }
            return (id, photo)
        default:
            throw call.typeError(1, expected: "photo id or photo table")
        }
    }

    /// The `size` option: a size suffix (`"-"` for the medium size).
    private static func size(_ options: LuaOptions) throws -> PhotoSize? {
        guard let text = try options.string("size", expected: "a size suffix such as \"o\" or \"z\"") else { return nil }
        guard let size = PhotoSize(suffix: text) else {
            throw options.bad("size", expected: "one of " + PhotoSize.largestFirst.map { $0.rawValue.isEmpty ? "-" : $0.rawValue }.joined(separator: " "),
                              got: "'\(text)'")
        }
        return size
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
