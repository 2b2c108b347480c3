import FlickrAPI
import FlickrJobs
import FlickrMedia
import Foundation

extension LibraryExport {
    /// What `flickr export --verify` found.
    public struct VerifyReport: Sendable, Hashable, Codable {
        /// Files checked (each path, links included) and the bytes hashed.
        public var files = 0
        public var bytes: Int64 = 0
        /// Paths the export wrote that are gone.
        public var missing: [String] = []
        /// Paths whose bytes are not those written, or whose pixels are not the backup
        /// original's; and paths that should be one file with the photo's other places but are not.
        public var corrupt: [String] = []
        /// Paths whose embedded metadata is not the backup's (tag and what was found).
        public var metadata: [String] = []
        /// Photos the backup changed since they were exported, or holds and the export lacks.
        public var stale: [String] = []
        public var notExported: [String] = []
        /// A run was stopped while putting photos in place.
        public var unfinished = false

        public var isSound: Bool {
            missing.isEmpty && corrupt.isEmpty && metadata.isEmpty && stale.isEmpty && notExported.isEmpty && !unfinished
        }
    }

    /// Checks every file the export wrote against what was written and against the backup:
    /// each copy re-hashed; a plain copy must be the backup's original byte for byte; an
    /// embedded one must hold the original's pixels (both read without metadata by ExifTool and
    /// compared) and the backup's metadata (read back); the places of a photo must be one file.
    /// Changes nothing.
    public func verify(exifTool: ExifTool, progress: @escaping @Sendable (Progress) -> Void = { _ in }) throws(LibraryError) -> VerifyReport {
        guard FileManager.default.fileExists(atPath: stateDirectory + "/export.sqlite") else {
            throw LibraryError("\(directory) is not an export (no \(Self.stateFolder)/ in it): nothing to verify")
        }
        let state = try ExportState(path: stateDirectory + "/export.sqlite")
        let rows = try state.rows()
        let (photos, _, sets) = try readBackup()
        let paths = ExportTree.paths(photos, by: layout, setTitles: sets.mapValues(\.title))
        var report = VerifyReport()
        let byID = Dictionary(photos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for p in photos where rows[p.id] == nil { report.notExported.append(p.id) }
        let scratch = temporary + "/verify"
        try? FileManager.default.removeItem(atPath: scratch)
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var done = 0
        for (id, row) in rows.sorted(by: { $0.key < $1.key }) {
            defer { done += 1; progress(Progress(done: done, total: rows.count)) }
            if row.fingerprint.hasPrefix("pending:") { report.unfinished = true }
            if let p = byID[id], fingerprint(p) != row.fingerprint.replacingOccurrences(of: "pending:", with: "") || paths[id] != row.pathList {
                report.stale.append(id)
            }
            var first: (dev: UInt64, ino: UInt64)?
            var hashed = false
            for path in row.pathList {
                report.files += 1
                var st = stat()
                guard stat(absolute(path), &st) == 0 else { report.missing.append(path); continue }
                let inode = (UInt64(st.st_dev), UInt64(st.st_ino))
                if let first, first != inode { report.corrupt.append(path); continue }
                first = inode
                if hashed { continue }
                hashed = true
                let digest: (size: Int64, sha256: String)
                do { digest = try FileDigest.of(file: absolute(path)) } catch { report.missing.append(path); continue }
                report.bytes += digest.size
                guard digest.sha256 == row.sha256 else { report.corrupt.append(path); continue }
                guard let p = byID[id] else { continue }
                if row.sha256 == p.sha256 { continue }
                // An embedded copy: the backup original's pixels, the backup's metadata.
                if !row.xmp {
                    let a = scratch + "/a." + p.fileExtension, b = scratch + "/b." + p.fileExtension
                    defer { try? FileManager.default.removeItem(atPath: a); try? FileManager.default.removeItem(atPath: b) }
                    do {
                        try exifTool.writeWithoutMetadata(absolute(path), to: a)
                        try exifTool.writeWithoutMetadata(backup + "/" + p.original, to: b)
                        if try FileDigest.of(file: a).sha256 != FileDigest.of(file: b).sha256 { report.corrupt.append(path); continue }
                    } catch {
                        report.corrupt.append(path)
                        continue
                    }
                } else {
                    report.corrupt.append(path)
                    continue
                }
                report.metadata += metadataFaults(p, at: absolute(path), exifTool: exifTool).map { path + ": " + $0 }
            }
            if row.xmp, let p = byID[id], let path = row.pathList.first {
                report.metadata += metadataFaults(p, at: absolute(path) + ".xmp", exifTool: exifTool, video: true).map { path + ".xmp: " + $0 }
            }
        }
        return report
    }

    /// The embedded tags that do not hold what the backup says (`XMP-dc:Title is "…", not "…"`).
    func metadataFaults(_ p: ExportPhoto, at path: String, exifTool: ExifTool, video: Bool = false) -> [String] {
        let expected = ExportEmbedding.expected(p, video: video)
        guard let found = try? exifTool.readTags(path, expected.keys.sorted()) else { return ["unreadable by exiftool"] }
        return expected.keys.sorted().compactMap { tag in
            let have = found[tag] ?? []
            return have == expected[tag]! ? nil : "\(tag) is \(have), not \(expected[tag]!)"
        }
    }
}
