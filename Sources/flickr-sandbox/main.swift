import ArgumentParser
import FlickrProtocol
import FlickrSandbox
import Foundation

/// `flickr-sandbox`: a Flickr emulator on loopback (see CLI.md and SANDBOX.md).
@main
struct FlickrSandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flickr-sandbox",
        abstract: "A faithful Flickr API emulator on loopback.",
        discussion: """
            Prints url=, api_key=, api_secret=, oauth_token=, oauth_token_secret=, user_nsid= and \
            username= lines, then "ready", and serves until SIGINT or SIGTERM.
            """,
        version: "0.1.0")

    @Option(help: "Interface to bind (a loopback address unless --allow-remote).")
    var host = "127.0.0.1"

    @Flag(name: .customLong("allow-remote"),
          help: "Allow --host to be an address other machines can reach (the sandbox prints its secrets and checks no real user).")
    var allowRemote = false

    @Option(help: "TCP port (0 picks a free one).")
    var port = 0

    @Option(name: .customLong("data"), help: "Seed world, a JSON file (see SEED-FORMAT.md).")
    var dataFile: String?

    @Option(help: ArgumentHelp("Serve a generated world of N photos for the default user instead of --data (see SANDBOX.md).", valueName: "N"))
    var photos: Int?

    @Option(help: ArgumentHelp("With --photos: the seed of the generated world; the same seed makes the same world (default: flickr).",
                               valueName: "S"))
    var seed: String?

    @Option(help: ArgumentHelp("With --photos: how many sets (default 7).", valueName: "K"))
    var sets: Int?

    @Option(help: ArgumentHelp("With --photos: how many of the photos are videos (default one in twenty).", valueName: "V"))
    var videos: Int?

    @Option(help: ArgumentHelp("With --photos: write the world as a seed file (the --data format) and exit without serving.",
                               valueName: "FILE"))
    var write: String?

    @Option(name: .customLong("state"), help: "Directory that keeps the state across restarts.")
    var stateDirectory: String?

    @Option(help: "Injected failures, e.g. 5xx=0.1,429=0.05,reset=0.01,truncate=0.01,html=0.02,105=0.01,106=0.01.")
    var faults: String?

    @Option(name: .customLong("image-faults"), help: "Injected failures of /static/ image downloads, same syntax as --faults.")
    var imageFaults: String?

    @Option(name: .customLong("rate-limit"), help: "Calls per second before answering 429 with Retry-After.")
    var rateLimit: Int?

    @Option(help: "Per-API-key call budget N/SECONDS over a sliding window (3600/3600 is Flickr's limit); 429 past it.")
    var budget: String?

    @Option(help: "Milliseconds added to every answer.")
    var latency = 0

    @Option(name: .customLong("close-idle"), help: ArgumentHelp("Close keep-alive connections left idle this many milliseconds after an answer, unannounced.", valueName: "MS"))
    var closeIdle: Int?

    @Option(name: .customLong("clock-skew"),
            help: ArgumentHelp("Refuse an oauth_timestamp this many seconds off the clock; nonces are kept as long.",
                               valueName: "SECONDS"))
    var clockSkew = SandboxConfiguration.defaultClockSkew

    @Option(name: .customLong("log"), help: "Append one JSON line per request to this file (never a secret).")
    var logFile: String?

    /// The world `--photos` asks for, checked.
    var world: GeneratedWorld? {
        get throws {
            guard let photos else { return nil }
            let world = GeneratedWorld(photos: photos, seed: seed ?? "flickr", sets: sets, videos: videos)
            do { try world.check() } catch { throw ValidationError(error.message) }
            return world
        }
    }

    func validate() throws {
        if photos == nil, let given = [("--seed", seed != nil), ("--sets", sets != nil), ("--videos", videos != nil), ("--write", write != nil)]
            .first(where: \.1) {
            throw ValidationError("\(given.0) goes with --photos N (a generated world)")
        }
        if photos != nil, dataFile != nil { throw ValidationError("give --photos or --data, not both") }
        _ = try world
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard allowRemote || Loopback.isLoopback(host: host) else {
            throw ValidationError("--host \(host) is not a loopback address: the sandbox prints its keys and secrets and "
                                  + "anyone who reaches it can use them; give --allow-remote to serve other machines anyway")
        }
        if let rateLimit, rateLimit < 1 { throw ValidationError("--rate-limit must be at least 1") }
        guard latency >= 0 else { throw ValidationError("--latency must not be negative") }
        if let closeIdle, closeIdle < 1 { throw ValidationError("--close-idle must be at least 1 (milliseconds)") }
        guard clockSkew >= 1 else { throw ValidationError("--clock-skew must be at least 1 (seconds)") }
        if let budget {
            do { _ = try CallBudget.parse(budget) } catch { throw ValidationError("--\(error)") }
        }
        for (option, spec) in [("--faults", faults), ("--image-faults", imageFaults)] {
            guard let spec else { continue }
            do { _ = try FaultSpec.parse(spec) } catch { throw ValidationError("\(option): \(error)") }
        }
    }

    func run() async throws {
        if let write, let world = try world {
            do {
                try world.seedFile().write(to: URL(fileURLWithPath: write), options: .atomic)
            } catch {
                FileHandle.standardError.write(Data("flickr-sandbox: --write \(write): \(error.localizedDescription)\n".utf8))
                throw ExitCode(1)
            }
            return
        }
        var configuration = SandboxConfiguration(
            host: host, port: port, dataFile: dataFile, stateDirectory: stateDirectory,
            faults: try faults.map(FaultSpec.parse) ?? .none, imageFaults: try imageFaults.map(FaultSpec.parse) ?? .none,
            rateLimit: rateLimit, latencyMilliseconds: latency)
        configuration.logFile = logFile
        configuration.world = try world
        configuration.closeIdleMilliseconds = closeIdle
        configuration.clockSkewSeconds = clockSkew
        configuration.budget = try budget.map(CallBudget.parse)
        let server: FlickrSandboxServer
        do {
            server = try await FlickrSandboxServer.start(configuration)
        } catch {
            FileHandle.standardError.write(Data("flickr-sandbox: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let c = server.credentials
        let lines = [
            "url=\(server.url)", "api_key=\(c.apiKey)", "api_secret=\(c.apiSecret)", "oauth_token=\(c.oauthToken)",
            "oauth_token_secret=\(c.oauthTokenSecret)", "user_nsid=\(c.userNSID)", "username=\(c.username)", "ready",
        ]
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        let signal = await Self.waitForTermination()
        do {
            try await server.stop()
        } catch {
            FileHandle.standardError.write(Data("flickr-sandbox: while stopping: \(error)\n".utf8))
            throw ExitCode(1)
        }
        _ = signal
    }

    /// Suspends until SIGINT or SIGTERM arrives.
    static func waitForTermination() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let queue = DispatchQueue(label: "flickr-sandbox.signals")
            let resumed = ResumeOnce(continuation)
            var sources: [DispatchSourceSignal] = []
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { resumed.resume(sig) }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }
}

/// Resumes a continuation at most once.
final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Int32, Never>?

    init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }

    func resume(_ value: Int32) {
        lock.lock()
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(returning: value)
    }
}

/// Keeps the signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    static func keep(_ s: [DispatchSourceSignal]) { sources = s }
}
