import Foundation

extension SandboxStore {
    /// Opens the state for a configuration: `DIR/state.json` when it exists, else the seed file
    /// or the demo world.
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
            let file = root.appendingPathComponent("state.json")
            let state: SandboxState
            if fm.fileExists(atPath: file.path) {
                do {
                    state = try JSONDecoder().decode(SandboxState.self, from: Data(contentsOf: file))
                } catch {
                    throw SandboxError("--state: \(file.path) is not a sandbox state file: \(error)")
                }
            } else {
                state = try initialState(configuration)
            }
            for leftover in (try? fm.contentsOfDirectory(atPath: originals.path)) ?? [] where leftover.hasPrefix(".upload-") {
                try? fm.removeItem(at: originals.appendingPathComponent(leftover))
            }
            let store = SandboxStore(state: state, stateFile: file, originalsDirectory: originals, ownsOriginals: false)
            store.write { _ in }  // mark dirty so a fresh state is written at once
            return store
        }
        let state = try initialState(configuration)
        let temp = fm.temporaryDirectory.appendingPathComponent("flickr-sandbox-\(getpid())-\(SandboxIDs.hex(8))", isDirectory: true)
        do {
            try fm.createDirectory(at: temp, withIntermediateDirectories: true)
        } catch {
            throw SandboxError("cannot create a temporary directory for uploads: \(error.localizedDescription)")
        }
        return SandboxStore(state: state, stateFile: nil, originalsDirectory: temp, ownsOriginals: true)
    }

    static func initialState(_ configuration: SandboxConfiguration) throws -> SandboxState {
        if let data = configuration.dataFile { return try SeedFile.load(path: data) }
        return DemoWorld.make()
    }

    /// Deletes the private upload directory (not a `--state` directory).
    func removeTemporaryFiles() {
        if ownsOriginals { try? FileManager.default.removeItem(at: originalsDirectory) }
    }
}
