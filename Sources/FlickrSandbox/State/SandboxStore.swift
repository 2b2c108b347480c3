import Foundation
import Synchronization

/// The live state behind a lock, with `--state DIR` persistence.
///
/// Handlers run short synchronous sections under the lock; with `--state`, a section that
/// changed something commits the change to ``SandboxDatabase`` before the lock is released,
/// so every answered write is durable and writes are applied in the order they are answered.
/// Upload bytes are received outside the lock.
final class SandboxStore: Sendable {
    private let state: Mutex<SandboxState>
    /// The durable store; nil when nothing is persisted.
    let database: SandboxDatabase?
    /// Set once a commit failed: from then on every write answers 106 (the state on disk stays
    /// what was last answered), until a restart.
    private let persistenceFailure = Mutex<String?>(nil)
    /// Where uploaded originals live (inside the state directory, or a private temp directory).
    let originalsDirectory: URL
    /// Whether ``originalsDirectory`` is a temp directory to delete on stop.
    let ownsOriginals: Bool

    init(state: SandboxState, database: SandboxDatabase?, originalsDirectory: URL, ownsOriginals: Bool) {
        self.state = Mutex(state)
        self.database = database
        self.originalsDirectory = originalsDirectory
        self.ownsOriginals = ownsOriginals
    }

    /// Reads the state.
    func read<T, E: Error>(_ body: (SandboxState) throws(E) -> T) throws(E) -> T {
        try state.withLock { (s: inout SandboxState) throws(E) -> T in try body(s) }
    }

    /// Reads and changes the state; the change is durable when this returns (see
    /// ``failure``).
    func write<T>(_ body: (inout SandboxState) -> T) -> T {
        state.withLock { s in
            defer { persist(&s) }
            return body(&s)
        }
    }

    /// Changes the state or fails with `E`; whatever changed before a failure is kept too.
    func update<T, E: Error>(_ body: (inout SandboxState) throws(E) -> T) throws(E) -> T {
        try state.withLock { (s: inout SandboxState) throws(E) -> T in
            defer { persist(&s) }
            return try body(&s)
        }
    }

    /// Why the state can no longer be written, once a commit failed (nil while all is well).
    var failure: String? { persistenceFailure.withLock { $0 } }

    /// Commits the changes of one section (called under the state lock).
    private func persist(_ s: inout SandboxState) {
        guard let database else {
            // Nothing to write; forget the change sets so they do not grow.
            _ = s.photos.takeChanges()
            _ = s.tagNumbers.takeChanges()
            return
        }
        do { try database.commit(&s) } catch {
            persistenceFailure.withLock { $0 = $0 ?? "\(error)" }
        }
    }

    /// The path of a stored original.
    func originalURL(_ storedFile: String) -> URL {
        originalsDirectory.appendingPathComponent(storedFile)
    }
}
