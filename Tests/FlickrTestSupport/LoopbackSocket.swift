import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking TCP socket to 127.0.0.1, for tests that look below an HTTP client: whether
/// something listens, when a server closes a connection.
public enum LoopbackSocket {
    /// A connected socket to 127.0.0.1:`port` (the caller closes it), or nil when the connection
    /// is refused or no socket can be made. Loopback answers a connect at once.
    public static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
