import FlickrAPI
import Foundation

/// Files only their owner may read or write: the job and library databases, the runners' lock
/// files. Their folder is 0700 and each file 0600 (SQLite gives a database's `-wal` and `-shm`
/// files the database file's mode).
package enum PrivateFile {
    /// Creates `directory` and its missing parents with mode 0700, and sets an existing one to
    /// 0700.
    package static func makeDirectory(_ directory: String) throws(JobError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            // The system's own words (Permission denied, Read-only file system), not Foundation's.
            throw JobError("cannot create \(directory): " + (SystemErrors.posixCode(error).map { String(cString: strerror($0)) } ?? error.localizedDescription))
        }
    }

    /// Opens `path` for reading and writing, creating it with mode 0600 when it is missing and
    /// setting an existing one to 0600; its folder is made with ``makeDirectory(_:)``. An existing
    /// file is never truncated or replaced: another process may have it open (FileManager's
    /// `createFile` would write an empty file over it). The caller closes the descriptor.
    package static func open(_ path: String) throws(JobError) -> Int32 {
        try makeDirectory((path as NSString).deletingLastPathComponent)
        let fd = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw JobError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard fchmod(fd, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw JobError("cannot make \(path) private (mode 0600): \(reason)")
        }
        return fd
    }

    /// Creates `path` (and its folder) as ``open(_:)`` does, for a database that SQLite opens
    /// itself.
    package static func prepare(_ path: String) throws(JobError) {
        close(try open(path))
    }
}
