import Crypto
import Foundation

/// SHA-256 of files and bytes, lower-case hex: the backup's manifest and a push's file
/// identity.
package enum FileDigest {
    /// The size and SHA-256 of the file at `path`, read in 1 MiB chunks (constant memory).
    package static func of(file path: String) throws(JobError) -> (size: Int64, sha256: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw JobError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += Int64(chunk.count)
            }
        } catch {
            throw JobError("cannot read \(path): \(error.localizedDescription)")
        }
        return (size, hex(hasher.finalize()))
    }

    /// The SHA-256 of `bytes`.
    package static func of(_ bytes: some DataProtocol) -> String { hex(SHA256.hash(data: bytes)) }

    package static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
