import Crypto
import Foundation

/// SHA-256 of files and bytes, as the backup's manifest writes it (lower-case hex).
enum FileDigest {
    /// The size and SHA-256 of the file at `path`, read in 1 MiB chunks (constant memory).
    static func of(file path: String) throws(LibraryError) -> (size: Int64, sha256: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LibraryError("cannot read \(path): \(String(cString: strerror(errno)))")
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
            throw LibraryError("cannot read \(path): \(error.localizedDescription)")
        }
        return (size, hex(hasher.finalize()))
    }

    /// The SHA-256 of `bytes`.
    static func of(_ bytes: some DataProtocol) -> String { hex(SHA256.hash(data: bytes)) }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
