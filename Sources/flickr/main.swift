// A stand-in for the `flickr` command until the shell (issue 5) replaces it:
//   flickr [--sandbox] script.lua [args...]
// Runs the script with the `flickr` module (credentials from the environment / profile, or an
// in-process sandbox with --sandbox, which also sets the global `sandbox`). An uncaught error
// prints `flickr: <message>` and the traceback on stderr and exits 1; `os.exit(n)` exits with n.
import FlickrLua
import FlickrLuaSandbox
import Foundation

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("flickr: \(message)\n".utf8))
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var useSandbox = false
while let first = arguments.first, first.hasPrefix("--") {
    arguments.removeFirst()
    if first == "--sandbox" {
        useSandbox = true
    } else if first == "--" {
        break
    } else {
        fail("unknown option \(first)", status: 2)
    }
}
guard let script = arguments.first else {
    fail("usage: flickr [--sandbox] script.lua [args...]  (the REPL and subcommands are coming)", status: 2)
}
do {
    let session = useSandbox ? try await FlickrLuaSandbox.start().session : try await FlickrLuaSession()
    let outcome = await session.runScript(at: script, arguments: Array(arguments.dropFirst()))
    if let report = outcome.report { fail(report, status: 1) }
    exit(0)
} catch {
    fail(String(describing: error), status: 1)
}
