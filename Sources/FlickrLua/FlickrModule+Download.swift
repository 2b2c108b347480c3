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
            if try call.optionalTable(2) {
                size = try Self.sizeOption(s)
                path = try Self.stringOption(s, "path")
                directory = try Self.stringOption(s, "dir")
                switch s.rawGet(field: "progress", in: 2) {
                case .nil: s.pop()
                case .function: relay = ProgressRelay(poster: s.jobPoster, callback: LuaRef(popping: s))
                default: throw FlickrError.usage("bad option 'progress': a function(received, total) expected", method: "download")
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

    private static func sizeOption(_ s: LuaState) throws -> PhotoSize? {
        defer { s.pop() }
        switch s.rawGet(field: "size", in: 2) {
        case .nil: return nil
        case .string:
            let text = s.string(at: -1) ?? ""
            guard let size = PhotoSize(suffix: text) else {
                throw FlickrError.usage("bad option 'size': '\(text)' is not one of "
                                        + PhotoSize.largestFirst.map { $0.rawValue.isEmpty ? "-" : $0.rawValue }.joined(separator: " "),
                                        method: "download")
            }
            return size
        default: throw FlickrError.usage("bad option 'size': a size suffix such as \"o\" or \"z\" expected", method: "download")
        }
    }

    private static func stringOption(_ s: LuaState, _ key: String) throws -> String? {
        defer { s.pop() }
        switch s.rawGet(field: key, in: 2) {
        case .nil: return nil
        case .string: return s.string(at: -1)
        default: throw FlickrError.usage("bad option '\(key)': a string expected", method: "download")
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
