import Foundation

/// A `flickr-sandbox` process (the real binary) on loopback, and the environment that points
/// `flickr` at it: what its `ready` banner printed (`url=`, `api_key=`, …). Started only through
/// ``SandboxWorld`` (``SandboxWorld/withProcess(_:seed:accessLog:environment:timeout:_:)``, or
/// ``SandboxWorld/startProcess(_:environment:timeout:)``), the one way tests start a sandbox.
public struct SandboxProcess: Sendable {
    public let process: InteractiveProcess
    /// The banner's `key=value` lines.
    public let values: [String: String]

    /// Starts `flickr-sandbox ARGUMENTS` (add `--port 0` for a free port) and waits for `ready`.
    static func start(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                      timeout: Double = 120) async throws -> SandboxProcess {
        let sandbox = try InteractiveProcess(try Products.executable("flickr-sandbox"), arguments, environment: environment)
        guard await sandbox.waitForLine(timeout: timeout, { $0 == "ready" }) != nil else {
            if sandbox.process.isRunning { sandbox.process.terminate() }
            throw ProcessFailure(description: "flickr-sandbox \(arguments) did not start: \(sandbox.stderr)")
        }
        var values: [String: String] = [:]
        for line in sandbox.stdout.split(separator: "\n") {
            if let eq = line.firstIndex(of: "=") { values[String(line[..<eq])] = String(line[line.index(after: eq)...]) }
        }
        return SandboxProcess(process: sandbox, values: values)
    }

    /// The port it listens on.
    public var port: Int { URLComponents(string: values["url"] ?? "")?.port ?? 0 }

    /// `environment` with the variables that point `flickr` at this sandbox as its default user.
    public func environment(_ environment: [String: String]) -> [String: String] {
        environment.merging([
            "FLICKR_ENDPOINT": values["url"] ?? "", "FLICKR_API_KEY": values["api_key"] ?? "",
            "FLICKR_API_SECRET": values["api_secret"] ?? "", "FLICKR_OAUTH_TOKEN": values["oauth_token"] ?? "",
            "FLICKR_OAUTH_TOKEN_SECRET": values["oauth_token_secret"] ?? "",
        ]) { $1 }
    }

    /// Stops it (SIGTERM) if it still runs.
    public func stop() {
        if process.process.isRunning { process.process.terminate() }
    }
}
