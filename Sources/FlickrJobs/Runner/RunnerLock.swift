import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exactly one runner per job: an exclusive `flock(2)` on `locks/NAME.lock` beside the job
/// database, held for the whole run. The kernel drops it when the process ends however it ends
/// (`kill -9` included), so a crashed run never blocks `resume`; no lease to expire or renew.
/// The holder writes its process id, host and command into the file, so that a second process
/// can say who has the job.
///
/// The descriptor is close-on-exec: a program the runner starts (a pager) never inherits it.
public final class RunnerLock: Sendable {
    /// The lock's name (a job id, or `library-NSID` for a library's sync).
    public let name: String
    private let fd: Int32

    private init(name: String, fd: Int32) {
        self.name = name
        self.fd = fd
    }

    deinit {
        // Emptying the file first: a reader that wins the race sees no stale holder.
        _ = ftruncate(fd, 0)
        // Unlocking before closing: a child that another thread is spawning at this moment holds a
        // copy of the descriptor until its exec closes it, and close alone would leave the lock to
        // that copy. LOCK_UN releases it on the open file itself, whatever copies remain.
        _ = flock(fd, LOCK_UN)
        close(fd)
    }

    /// Who holds a lock.
    public struct Holder: Sendable, Hashable, CustomStringConvertible {
        public var pid: Int32
        public var host: String
        /// What the holder runs (`flickr retag apply`).
        public var command: String
        /// Unix time it took the lock.
        public var since: Double

        public var description: String {
            "process \(pid) on host \(host)" + (command.isEmpty ? "" : " (\(command)")
                + (since > 0 ? (command.isEmpty ? " (" : ", ") + "since \(Self.clock(since)))" : (command.isEmpty ? "" : ")"))
        }

        static func clock(_ t: Double) -> String {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.dateFormat = "yyyy-MM-dd HH:mm:ss"
            return f.string(from: Date(timeIntervalSince1970: t))
        }

        /// The line written into the lock file: `pid host since command`.
        var line: String { "\(pid) \(host) \(since) \(command)\n" }

        init(pid: Int32, host: String, command: String, since: Double) {
            self.pid = pid
            self.host = host
            self.command = command
            self.since = since
        }

        init?(line: String) {
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3, let pid = Int32(parts[0]) else { return nil }
            self.init(pid: pid, host: String(parts[1]), command: parts.count > 3 ? String(parts[3]).trimmingCharacters(in: .newlines) : "",
                      since: Double(parts[2]) ?? 0)
        }
    }

    /// The lock is held by another process (or another run in this one).
    public struct Busy: Error, Sendable, CustomStringConvertible {
        public var name: String
        /// Nil when the holder had not yet written its details.
        public var holder: Holder?
        public var description: String {
            "\(name) is being run by " + (holder?.description ?? "another process") + "; wait for it to finish or stop it"
        }
    }

    /// The folder of the locks for a job database at `databasePath`.
    public static func directory(forDatabase databasePath: String) -> String {
        (databasePath as NSString).deletingLastPathComponent + "/locks"
    }

    /// Takes the lock `name` in `directory` without waiting, recording `command` as what holds it.
    /// Throws ``Busy`` when another holds it, ``JobError`` when the file cannot be used.
    public static func acquire(_ name: String, in directory: String, command: String) throws -> RunnerLock {
        let fd = try openFile(name, in: directory)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(fd) }
            guard code == EWOULDBLOCK else {
                throw JobError("cannot lock \(path(name, in: directory)): \(String(cString: strerror(code)))")
            }
            throw Busy(name: name, holder: readHolder(fd))
        }
        let me = Holder(pid: getpid(), host: hostName(), command: command, since: Date().timeIntervalSince1970)
        let bytes = Array(me.line.utf8)
        _ = ftruncate(fd, 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return RunnerLock(name: name, fd: fd)
    }

    /// Whether a lock is held, and by whom.
    public enum Probe: Sendable, Hashable {
        case free
        /// Held; the holder is nil when it had not yet written its details.
        case held(by: Holder?)
    }

    /// Whether `name` is held now. (It takes a shared lock for an instant, which fails exactly
    /// when some process holds the exclusive one.)
    public static func probe(_ name: String, in directory: String) -> Probe {
        guard FileManager.default.fileExists(atPath: path(name, in: directory)),
              let fd = try? openFile(name, in: directory) else { return .free }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return .free
        }
        return .held(by: readHolder(fd))
    }

    static func path(_ name: String, in directory: String) -> String { directory + "/" + name + ".lock" }

    private static func openFile(_ name: String, in directory: String) throws -> Int32 {
        try PrivateFile.open(path(name, in: directory))
    }

    /// The holder's line; it writes it just after taking the lock, so an empty file is retried
    /// for a moment.
    private static func readHolder(_ fd: Int32) -> Holder? {
        for attempt in 0..<20 {
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if n > 0, let holder = Holder(line: String(decoding: buffer[0..<n], as: UTF8.self)) { return holder }
            if attempt < 19 { usleep(5_000) }
        }
        return nil
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "unknown" }
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.isEmpty ? "unknown" : host.replacingOccurrences(of: " ", with: "_")
    }
}
