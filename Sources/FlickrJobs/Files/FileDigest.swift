import Crypto
import Foundation

/// SHA-256 of files and bytes, lower-case hex: the backup's manifest and a push's file
/// identity.
package enum FileDigest {
    /// The size and SHA-256 of the file at `path`, read in 1 MiB chunks into one buffer
    /// (constant memory, no allocation per chunk: a push hashes at the disk's speed).
    package static func of(file path: String) throws(JobError) -> (size: Int64, sha256: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw JobError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw JobError("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            size += Int64(n)
        }
        return (size, hex(hasher.finalize()))
    }

    /// The SHA-256 of `bytes`.
    package static func of(_ bytes: some DataProtocol) -> String { hex(SHA256.hash(data: bytes)) }

    package static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
