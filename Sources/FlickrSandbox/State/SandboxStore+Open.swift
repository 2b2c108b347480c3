import Foundation

extension SandboxStore {
    /// Opens the state for a configuration: `DIR/state.sqlite` when it holds a world, else a
    /// `DIR/state.json` of an earlier version (imported, then renamed `state.json.imported`),
    /// else the seed file or the demo world (written to `DIR/state.sqlite` at once).
    static func open(_ configuration: SandboxConfiguration) throws -> SandboxStore {
        let fm = FileManager.default
        if let dir = configuration.stateDirectory {
            let root = URL(fileURLWithPath: dir, isDirectory: true)
            let originals = root.appendingPathComponent("originals", isDirectory: true)
            do {
                try fm.createDirectory(at: originals, withIntermediateDirectories: true)
            } catch {
                throw SandboxError("--state: cannot create \(originals.path): \(error.localizedDescription)")
            }
            let path = root.appendingPathComponent("state.sqlite").path
            let database: SandboxDatabase
            var state: SandboxState
            do {
                database = try SandboxDatabase(path: path)
                if let stored = try database.load() {
                    state = stored
                } else {
                    state = try importedOrInitial(configuration, root: root)
                    SandboxDatabase.markAll(&state)
                    try database.commit(&state)
                    let legacy = root.appendingPathComponent("state.json")
                    if fm.fileExists(atPath: legacy.path) {
                        try? fm.moveItem(at: legacy, to: root.appendingPathComponent("state.json.imported"))
                    }
                }
            } catch let error as SandboxError {
                throw error
            } catch {
                throw SandboxError("--state: \(path) is not a usable sandbox state database: \(error)")
            }
            for leftover in (try? fm.contentsOfDirectory(atPath: originals.path)) ?? [] where leftover.hasPrefix(".upload-") {
                try? fm.removeItem(at: originals.appendingPathComponent(leftover))
            }
            return SandboxStore(state: state, database: database, originalsDirectory: originals, ownsOriginals: false)
        }
        var state = try initialState(configuration)
        _ = state.photos.takeChanges()
        _ = state.tagNumbers.takeChanges()
        let temp = fm.temporaryDirectory.appendingPathComponent("flickr-sandbox-\(getpid())-\(SandboxIDs.hex(8))", isDirectory: true)
        do {
            try fm.createDirectory(at: temp, withIntermediateDirectories: true)
        } catch {
            throw SandboxError("cannot create a temporary directory for uploads: \(error.localizedDescription)")
        }
        return SandboxStore(state: state, database: nil, originalsDirectory: temp, ownsOriginals: true)
    }

    /// A `state.json` left by an earlier version, else the seed or the demo world.
    static func importedOrInitial(_ configuration: SandboxConfiguration, root: URL) throws -> SandboxState {
        let legacy = root.appendingPathComponent("state.json")
        guard FileManager.default.fileExists(atPath: legacy.path) else { return try initialState(configuration) }
        do {
            return try JSONDecoder().decode(SandboxState.self, from: Data(contentsOf: legacy))
        } catch {
            throw SandboxError("--state: \(legacy.path) is not a sandbox state file: \(error)")
        }
    }

    static func initialState(_ configuration: SandboxConfiguration) throws -> SandboxState {
        if let data = configuration.dataFile { return try SeedFile.load(path: data) }
        if let world = configuration.world {
            try world.check()
            return try world.state()
        }
        return DemoWorld.make()
    }

    /// Deletes the private upload directory (not a `--state` directory).
    func removeTemporaryFiles() {
        if ownsOriginals { try? FileManager.default.removeItem(at: originalsDirectory) }
    }
}
