import Foundation

/// The files under a folder as `flickr upload` reads it: sorted, hidden entries left out,
/// symbolic links followed — a folder reached again through a link that leads back into itself
/// is named as a loop, and a file reached twice (two links to it) is taken once — and every
/// entry that cannot be read named with the reason.
package struct FolderWalk {
    package private(set) var files: [String] = []
    package private(set) var skipped: [(path: String, reason: String)] = []
    /// Real paths of the files taken, and of the folders read.
    private var seenFiles: Set<String> = []
    private var seenFolders: [String: String] = [:]

    /// Entries left out by their path (a push's `@eaDir`, `Thumbs.db`, `--ignore`), named in
    /// ``skipped`` as ignored.
    package var exclude: (@Sendable (String) -> Bool)?

    package init() {}

    /// Reads `folder` (as named) and everything under it.
    package mutating func read(_ folder: String) {
        read(folder, ancestors: [])
    }

    private mutating func read(_ folder: String, ancestors: [String]) {
        guard let real = Self.realPath(folder) else {
            skipped.append((folder, "unreadable: \(String(cString: strerror(errno)))"))
            return
        }
        if ancestors.contains(real) {
            skipped.append((folder, "a symbolic link loop (it leads back to \(real)); not followed"))
            return
        }
        if let first = seenFolders[real] {
            skipped.append((folder, "the same folder as \(first), read once"))
            return
        }
        seenFolders[real] = folder
        // opendir says why a folder cannot be read (Permission denied), which Foundation does not.
        guard let handle = opendir(folder) else {
            skipped.append((folder, "unreadable folder: \(String(cString: strerror(errno)))"))
            return
        }
        closedir(handle)
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            skipped.append((folder, "unreadable folder: \(error.localizedDescription)"))
            return
        }
        for name in entries where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            if let exclude, exclude(path) {
                skipped.append((path, "ignored"))
                continue
            }
            var info = stat()
            guard stat(path, &info) == 0 else {
                // lstat works but stat does not: a link to nothing (or to what cannot be reached).
                skipped.append((path, lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
                                ? "a broken symbolic link" : "unreadable: \(String(cString: strerror(errno)))"))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                read(path, ancestors: ancestors + [real])
            case S_IFREG:
                guard let file = Self.realPath(path), seenFiles.insert(file).inserted else { continue }
                files.append(path)
            default:
                skipped.append((path, "not a regular file"))
            }
        }
    }

    /// The path with every link resolved, or nil (errno set).
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
