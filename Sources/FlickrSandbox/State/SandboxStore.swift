import Foundation
import Synchronization

/// The live state behind a lock, with `--state DIR` persistence.
///
/// Handlers run short synchronous sections under the lock (a few hundred photos search in
/// microseconds); anything slow — upload bytes, disk writes of the state — happens outside it.
final class SandboxStore: Sendable {
    private let state: Mutex<SandboxState>
    private let dirty = Atomic<Bool>(false)
    /// Where `state.json` is written; nil when nothing is persisted.
    let stateFile: URL?
    /// Where uploaded originals live (inside the state directory, or a private temp directory).
    let originalsDirectory: URL
    /// Whether ``originalsDirectory`` is a temp directory to delete on stop.
    let ownsOriginals: Bool
    private let saveLock = Mutex<Void>(())

    init(state: SandboxState, stateFile: URL?, originalsDirectory: URL, ownsOriginals: Bool) {
        self.state = Mutex(state)
        self.stateFile = stateFile
        self.originalsDirectory = originalsDirectory
        self.ownsOriginals = ownsOriginals
    }

    /// Reads the state.
    func read<T, E: Error>(_ body: (SandboxState) throws(E) -> T) throws(E) -> T {
        try state.withLock { (s: inout SandboxState) throws(E) -> T in try body(s) }
    }

    /// Reads and changes the state; the change is persisted soon after.
    func write<T>(_ body: (inout SandboxState) -> T) -> T {
        defer { dirty.store(true, ordering: .releasing) }
        return state.withLock { s in body(&s) }
    }

    /// Changes the state or fails with `E` (the state is persisted soon after either way).
    func update<T, E: Error>(_ body: (inout SandboxState) throws(E) -> T) throws(E) -> T {
        defer { dirty.store(true, ordering: .releasing) }
        return try state.withLock { (s: inout SandboxState) throws(E) -> T in try body(&s) }
    }

    /// Writes `state.json` if anything changed since the last save (atomically: temp file, then
    /// rename over the old one).
    func saveIfDirty() throws {
        guard stateFile != nil, dirty.exchange(false, ordering: .acquiringAndReleasing) else { return }
        do { try save() } catch {
            dirty.store(true, ordering: .releasing)
            throw error
        }
    }

    /// Writes `state.json` now.
    func save() throws {
        guard let stateFile else { return }
        try saveLock.withLock { _ in
            let snapshot = state.withLock { $0 }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(snapshot)
            try Self.atomicWrite(data, to: stateFile)
        }
    }

    /// Write-then-rename, so a crash leaves either the old or the new file, never half of one.
    static func atomicWrite(_ data: Data, to url: URL) throws {
        let temp = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())-\(SandboxIDs.hex(8))")
        guard FileManager.default.createFile(atPath: temp.path, contents: data) else {
            throw SandboxError("cannot write \(temp.path)")
        }
        if let handle = try? FileHandle(forUpdating: temp) {
            try? handle.synchronize()
            try? handle.close()
        }
        if rename(temp.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temp)
            throw SandboxError("cannot replace \(url.path): \(reason)")
        }
    }

    /// The path of a stored original.
    func originalURL(_ storedFile: String) -> URL {
        originalsDirectory.appendingPathComponent(storedFile)
    }
}
