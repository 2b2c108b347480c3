import Foundation

/// A plan's JSON document (`--json`, `--out FILE`) written once, a piece at a time, to each
/// place asked for: standard output and the file. The file is written beside its name and
/// renamed into place when complete, so a failed write leaves no half plan behind.
enum PlanDocument {
    /// The file could not be written (nothing is left at its name).
    struct CannotWrite: Error, Sendable {
        var path: String
        var reason: String
    }

    /// Runs `body`, which hands the document's pieces to the function it is given; each goes to
    /// standard output when `stdout` and to the file `out` when given (both end in a newline).
    static func write(out: String?, stdout: Bool, _ body: ((String) throws -> Void) throws -> Void) throws {
        guard out != nil || stdout else { return }
        var file: (handle: FileHandle, temporary: String, path: String)?
        if let out {
            let temporary = out + ".part-\(getpid())"
            guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
                throw CannotWrite(path: out, reason: String(cString: strerror(errno)))
            }
            file = (handle, temporary, out)
        }
        var buffer = Data()
        func flush() throws {
            guard let f = file, !buffer.isEmpty else { return }
            do { try f.handle.write(contentsOf: buffer) } catch { throw CannotWrite(path: f.path, reason: error.localizedDescription) }
            buffer.removeAll(keepingCapacity: true)
        }
        do {
            try body { piece in
                if stdout { print(piece, terminator: "") }
                if file != nil {
                    buffer.append(contentsOf: piece.utf8)
                    if buffer.count >= 1 << 16 { try flush() }
                }
            }
            if stdout { print("") }
            if let f = file {
                buffer.append(0x0A)
                try flush()
                do { try f.handle.synchronize(); try f.handle.close() } catch { throw CannotWrite(path: f.path, reason: error.localizedDescription) }
                guard rename(f.temporary, f.path) == 0 else { throw CannotWrite(path: f.path, reason: String(cString: strerror(errno))) }
            }
        } catch {
            if let f = file {
                try? f.handle.close()
                unlink(f.temporary)
            }
            throw error
        }
    }
}
