import Foundation

/// Reads the metadata embedded in media files with ExifTool (https://exiftool.org), a
/// well-kept reader of EXIF, IPTC and XMP, rather than one written here. One `exiftool
/// -stay_open` process serves every read (Perl starts once, not per file); reads are
/// serialised, each bounded in time: a process that does not answer within `timeout` is killed
/// and the next read starts another. The process ends with this object, or within a second of
/// this process's end however it ends (``supervisor``).
public final class ExifTool: @unchecked Sendable {
    /// ExifTool is not installed (or cannot be started), or a file could not be read.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The tags asked for: the groups named, so that a value never comes from another group by
    /// ExifTool's priority (the Composite GPS position is the signed one).
    static let tags = ["-DateTimeOriginal", "-XMP-dc:Title", "-IPTC:ObjectName", "-XMP-dc:Description", "-IPTC:Caption-Abstract",
                       "-IFD0:ImageDescription", "-XMP-dc:Subject", "-IPTC:Keywords", "-Composite:GPSLatitude", "-Composite:GPSLongitude",
                       "-XMP-exif:GPSLatitude", "-XMP-exif:GPSLongitude"]

    private let executable: String
    private let timeout: Double
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var process: (process: Process, input: FileHandle, output: FileHandle)?
    private var sequence = 0

    /// `executable`: the `exiftool` to run (found on PATH when nil).
    public init(executable: String? = nil, timeout: Double = 30) {
        self.executable = executable ?? Self.onPath("exiftool") ?? "exiftool"
        self.timeout = timeout
    }

    deinit { stop() }

    /// Whether an `exiftool` is there to run.
    public var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// The metadata of the file at `path` (a local path without a newline).
    public func read(_ path: String) throws(Failure) -> EmbeddedMetadata {
        guard !path.contains("\n") else { throw Failure(description: "\(path): a file name with a line break cannot be handed to exiftool") }
        let text = try exchange(["-json", "-n", "-G1", "-charset", "filename=utf8"] + Self.tags + [path])
        guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], let object = array.first else {
            throw Failure(description: "\(path): exiftool read nothing (\(text.isEmpty ? "no answer" : text.prefix(200)))")
        }
        return Self.metadata(object)
    }

    /// Ends the ExifTool process (a later read starts another).
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        end()
    }

    // MARK: - The process (under `lock`)

    /// Hands `arguments` to the running process and returns what it printed for them.
    func exchange(_ arguments: [String]) throws(Failure) -> String {
        lock.lock()
        defer { lock.unlock() }
        let running = try started()
        sequence += 1
        let ready = "{ready\(sequence)}"
        let request = (arguments + ["-execute\(sequence)"]).joined(separator: "\n") + "\n"
        do { try running.input.write(contentsOf: Data(request.utf8)) } catch {
            end()
            throw Failure(description: "exiftool stopped: \(error.localizedDescription)")
        }
        var output = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = output.range(of: Data((ready + "\n").utf8)) {
                return String(decoding: output[..<end.lowerBound], as: UTF8.self)
            }
            let left = deadline.timeIntervalSinceNow
            var poller = pollfd(fd: running.output.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let n = left > 0 ? poll(&poller, 1, Int32(min(left, 1) * 1000) + 1) : 0
            if n < 0 && errno == EINTR { continue }
            if n == 0 && left > 0 { continue }
            let count = n > 0 ? buffer.withUnsafeMutableBytes { Foundation.read(running.output.fileDescriptor, $0.baseAddress, $0.count) } : 0
            guard count > 0 else {
                end()
                throw Failure(description: n == 0 ? "exiftool did not answer within \(Int(timeout)) s" : "exiftool stopped")
            }
            output.append(contentsOf: buffer[..<count])
        }
    }

    private func started() throws(Failure) -> (process: Process, input: FileHandle, output: FileHandle) {
        if let process, process.process.isRunning { return process }
        end()
        guard isAvailable else {
            throw Failure(description: "exiftool is not installed (Debian: apt install libimage-exiftool-perl)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["perl", "-e", Self.supervisor, executable, "-stay_open", "True", "-@", "-"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw Failure(description: "cannot start exiftool: \(error.localizedDescription)") }
        let running = (p, input.fileHandleForWriting, output.fileHandleForReading)
        process = running
        return running
    }

    /// Asks ExifTool to end (it finishes the file in hand), and stops it if it has not within 5 s.
    private func end() {
        guard let running = process else { return }
        process = nil
        try? running.input.write(contentsOf: Data("-stay_open\nFalse\n".utf8))
        try? running.input.close()
        let deadline = Date().addingTimeInterval(5)
        while running.process.isRunning && Date() < deadline { usleep(10_000) }
        if running.process.isRunning { running.process.terminate() }
        running.process.waitUntilExit()
        try? running.output.close()
    }

    /// ExifTool under a Perl supervisor that ends it when this process is gone: `-stay_open`
    /// keeps reading after its input closes, so an ExifTool whose parent was killed (kill -9 of
    /// a sandbox) would stay forever. The supervisor runs it as a child with the pipes, gives
    /// its own away, and checks every half second that its parent is still the one that started
    /// it (a SIGTERM ends both).
    static let supervisor = #"""
        use POSIX ":sys_wait_h";
        my $parent = getppid();
        my $child = fork();
        die "fork: $!" unless defined $child;
        if ($child == 0) { exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!"; }
        open(STDIN, "<", "/dev/null"); open(STDOUT, ">", "/dev/null");
        $SIG{TERM} = sub { kill "KILL", $child; exit 0; };
        while (1) {
            exit 0 if waitpid($child, WNOHANG) > 0;
            if (getppid() != $parent) { kill "KILL", $child; exit 0; }
            select(undef, undef, undef, 0.5);
        }
        """#

    // MARK: - Reading the answer

    /// The fields from ExifTool's JSON object of one file.
    public static func metadata(_ object: [String: Any]) -> EmbeddedMetadata {
        func text(_ key: String) -> String? {
            switch object[key] {
            case let s as String: s.isEmpty ? nil : s
            case let n as NSNumber: n.stringValue
            default: nil
            }
        }
        func list(_ key: String) -> [String] {
            let values: [Any] = (object[key] as? [Any]) ?? (object[key].map { [$0] } ?? [])
            var out: [String] = []
            for v in values {
                let s = (v as? String) ?? (v as? NSNumber)?.stringValue ?? ""
                if !s.isEmpty, !out.contains(s) { out.append(s) }
            }
            return out
        }
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        // EXIF's first, then any other group's (XMP-exif).
        let dateKey = object["ExifIFD:DateTimeOriginal"] != nil ? "ExifIFD:DateTimeOriginal" : object.keys.sorted().first { $0.hasSuffix(":DateTimeOriginal") }
        let date = dateKey.flatMap(text).flatMap(EmbeddedMetadata.flickrDate(exif:))
        let subject = list("XMP-dc:Subject")
        return EmbeddedMetadata(title: text("XMP-dc:Title") ?? text("IPTC:ObjectName"),
                                description: text("XMP-dc:Description") ?? text("IPTC:Caption-Abstract") ?? text("IFD0:ImageDescription"),
                                keywords: subject.isEmpty ? list("IPTC:Keywords") : subject, dateTaken: date,
                                // An XMP sidecar has no EXIF GPS for ExifTool to compose a position from: its own signed values.
                                latitude: number("Composite:GPSLatitude") ?? number("XMP-exif:GPSLatitude"),
                                longitude: number("Composite:GPSLongitude") ?? number("XMP-exif:GPSLongitude"))
    }

    static func onPath(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
