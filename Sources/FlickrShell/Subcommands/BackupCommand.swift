import FlickrCommandLine

/// `flickr backup DIR [--sizes o] [--xmp] [--prune] [--verify]` — being built (issue 26, part 5).
enum BackupCommand {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        throw Invocation.UsageError(message: "flickr backup is not built yet")
    }
}
