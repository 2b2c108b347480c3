import Foundation

/// A kind of injected failure, named as in `--faults`.
public enum FaultKind: String, Sendable, CaseIterable, Hashable {
    /// HTTP 502/503 with an HTML body.
    case serverError = "5xx"
    /// HTTP 429 with `Retry-After: 1` and Flickr's small HTML body.
    case tooManyRequests = "429"
    /// The connection is closed without a response.
    case reset
    /// A 200 whose body stops mid-document (declared length larger than what is sent).
    case truncate
    /// A 200 carrying an HTML page instead of XML/JSON.
    case html
    /// Flickr's API error 105 "Service currently unavailable" (HTTP 200), on REST calls.
    case unavailable = "105"
    /// Flickr's API error 106 "Write operation failed" (HTTP 200), on REST write calls; the
    /// write does not happen. (Drawn for a read, it answers normally.)
    case writeFailed = "106"
    /// A 200 whose body stops halfway and then nothing more comes, the connection held open
    /// (up to two minutes): only the client's deadline ends the wait.
    case stall
    /// A 200 whose document is whole but not well-formed XML (a control character in it, as a
    /// broken proxy or a character-set bug gives), on REST calls: the sandbox's own answers
    /// never are, so a client's handling of one is tested with this.
    case malformed
}

/// Probabilities of injected failures, e.g. `5xx=0.1,429=0.05,reset=0.01,truncate=0.01,html=0.02,105=0.01,106=0.01`.
public struct FaultSpec: Sendable, Hashable {
    /// No injected failures.
    public static let none = FaultSpec(probabilities: [:])

    /// Probability (0…1) per kind; the kinds are exclusive per request and their sum is at most 1.
    public var probabilities: [FaultKind: Double]

    public init(probabilities: [FaultKind: Double]) {
        self.probabilities = probabilities
    }

    /// Sum of all probabilities.
    public var total: Double { probabilities.values.reduce(0, +) }

    /// Parses the `--faults` syntax: comma-separated `kind=probability` pairs; an empty string
    /// or `none` means no faults. The error does not name an option: the same syntax is read by
    /// `--faults`, `--image-faults` and the Lua `sandbox.faults`, and each caller names itself.
    public static func parse(_ spec: String) throws -> FaultSpec {
        let trimmed = spec.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "none" { return .none }
        var result: [FaultKind: Double] = [:]
        for item in trimmed.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else {
                throw SandboxError("expected kind=probability, got \"\(item)\"")
            }
            guard let kind = FaultKind(rawValue: pair[0]) else {
                let kinds = FaultKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw SandboxError("unknown kind \"\(pair[0])\" (kinds: \(kinds))")
            }
            guard let p = Double(pair[1]), p.isFinite, p >= 0, p <= 1 else {
                throw SandboxError("probability for \(pair[0]) must be a number from 0 to 1, got \"\(pair[1])\"")
            }
            result[kind] = p
        }
        let spec = FaultSpec(probabilities: result)
        guard spec.total <= 1.000_000_1 else {
            throw SandboxError("probabilities add up to \(spec.total), more than 1")
        }
        return spec
    }

    /// Picks the fault for one request from a uniform draw in 0..<1 (nil = answer normally).
    func pick(_ draw: Double) -> FaultKind? {
        var acc = 0.0
        for kind in FaultKind.allCases {
            guard let p = probabilities[kind], p > 0 else { continue }
            acc += p
            if draw < acc { return kind }
        }
        return nil
    }
}

extension FaultSpec: CustomStringConvertible {
    /// The `--faults` form of this spec.
    public var description: String {
        let items = FaultKind.allCases.compactMap { k in probabilities[k].map { "\(k.rawValue)=\($0)" } }
        return items.isEmpty ? "none" : items.joined(separator: ",")
    }
}
