import FlickrJobs
import Foundation

/// `flickr backup --verify DIR`: re-hashes every file of a backup against its manifest, looks
/// for files the manifest does not list, and compares what the backup holds with the library
/// on disk (no call is made). Changes nothing.
public struct BackupVerifier: Sendable {
    public let layout: BackupLayout

    public init(directory: String) {
        layout = BackupLayout(root: directory)
    }

    /// What a verification found. The backup is sound when every list is empty and the last
    /// run finished.
    public struct Report: Sendable, Hashable, Codable {
        public var account: String
        /// Files in the manifest, and their bytes.
        public var files = 0
        public var bytes: Int64 = 0
        /// In the manifest, not on disk.
        public var missing: [String] = []
        /// On disk with another size or SHA-256 than the manifest's.
        public var corrupt: [String] = []
        /// On disk (outside the dot-folders), not in the manifest.
        public var extra: [String] = []
        /// Older than the library says: an original replaced on Flickr since, a sidecar whose
        /// metadata changed (`views` aside).
        public var stale: [String] = []
        /// Photos of the library with no original in the backup.
        public var notBackedUp: [String] = []
        /// Photos deleted on Flickr that the backup keeps (sound: kept on purpose).
        public var deletedKept = 0
        /// The last run was killed before it wrote the manifest.
        public var unfinished = false
        /// Whether the library was there to compare with.
        public var comparedWithLibrary = false

        public var isSound: Bool {
            missing.isEmpty && corrupt.isEmpty && extra.isEmpty && stale.isEmpty && notBackedUp.isEmpty && !unfinished
        }
    }

    /// Where a verification is.
    public struct Progress: Sendable, Hashable {
        public var done: Int
        public var total: Int
        public var bytes: Int64
    }

    /// One line of the manifest.
    struct Entry: Decodable {
        var path: String
        var size: Int64
        var sha256: String
    }

    struct Manifest: Decodable {
        var format: String
        var account: String
        var files: [Entry]
    }

    /// Verifies the backup, comparing with `library` when given (the account's library on disk).
    /// Throws when `DIR` is not a backup.
    public func run(library: LibraryStore?, progress: @Sendable (Progress) -> Void = { _ in }) throws(LibraryError) -> Report {
        guard FileManager.default.fileExists(atPath: layout.database) else {
            throw LibraryError("\(layout.root) is not a backup (no \(BackupLayout.stateFolder)/ in it): nothing to verify")
        }
        let state = try BackupState(layout)
        guard let account = try state.meta("account") else {
            throw LibraryError("\(layout.root) is not a backup: its state names no account")
        }
        var report = Report(account: account)
        report.unfinished = try state.meta("running") != nil
        let manifest: Manifest
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: layout.manifest))
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            if !FileManager.default.fileExists(atPath: layout.manifest) {
                report.unfinished = true
                manifest = Manifest(format: BackupSidecar.format, account: account, files: [])
            } else {
                throw LibraryError("\(layout.manifest) cannot be read: \(error)")
            }
        }
        // Every file of the manifest, re-hashed.
        report.files = manifest.files.count
        var listed = Set<String>()
        for (i, entry) in manifest.files.enumerated() {
            listed.insert(entry.path)
            let path = layout.absolute(entry.path)
            if !FileManager.default.fileExists(atPath: path) {
                report.missing.append(entry.path)
            } else if let digest = try? FileDigest.of(file: path), digest.size == entry.size, digest.sha256 == entry.sha256 {
                report.bytes += digest.size
            } else {
                report.corrupt.append(entry.path)
            }
            progress(Progress(done: i + 1, total: manifest.files.count, bytes: report.bytes))
        }
        report.extra = extraFiles(listed: listed)
        if let library {
            report.comparedWithLibrary = true
            try compare(with: library, state: state, into: &report)
        }
        return report
    }

    /// Files under the folder, outside its dot-folders, that the manifest does not list.
    func extraFiles(listed: Set<String>) -> [String] {
        var extra: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: layout.root) else { return [] }
        while let relative = walker.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: layout.absolute(relative), isDirectory: &isDirectory), !isDirectory.boolValue,
                  !BackupLayout.isBookkeeping(relative), !listed.contains(relative) else { continue }
            extra.append(relative)
        }
        return extra.sorted()
    }

    /// What the backup holds against what the library says: originals missing or replaced,
    /// sidecars and sets whose content is behind, photos deleted on Flickr and kept.
    func compare(with library: LibraryStore, state: BackupState, into report: inout Report) throws(LibraryError) {
        var rows: [String: [BackupState.FileRow.Kind: BackupState.FileRow]] = [:]
        for row in try state.files() { rows[row.owner, default: [:]][row.kind] = row }
        let records = try library.records(try library.ids(LibraryFilter.all))
        let titles = Dictionary(try library.sets().map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        let live = Set(records.map(\.photo.id))
        for record in records {
            let id = record.photo.id
            guard let original = rows[id]?[.original] else {
                report.notBackedUp.append(id)
                continue
            }
            if original.key != BackupPlan.originalKey(record.photo) { report.stale.append(original.path) }
            let sidecar = BackupSidecar(record: record, setTitles: titles, original: original.path)
            if let row = rows[id]?[.sidecar] {
                if row.key != sidecar.metadataHash { report.stale.append(row.path) }
            } else {
                report.notBackedUp.append(id)
            }
            if let row = rows[id]?[.xmp], row.key != FileDigest.of(Data(XMPSidecar.text(record).utf8)) {
                report.stale.append(row.path)
            }
        }
        report.deletedKept = rows.keys.filter { !$0.hasPrefix("set:") && !live.contains($0) }.count
        report.stale.sort()
    }
}
