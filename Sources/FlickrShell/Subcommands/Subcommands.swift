import Foundation

/// `flickr call|login|logout|whoami|help`.
enum Subcommands {
    static func run(_ name: String, arguments: [String], invocation: Invocation,
                    environment: [String: String]) async -> Int32 {
        FileHandleOutput.standardError("flickr: \(name): not implemented yet\n")
        return 2
    }
}
