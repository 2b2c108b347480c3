import Foundation
import Testing
import FlickrTestSupport

/// `scripts/install` into a temporary prefix, then the installed `flickr` and `flickr-sandbox`
/// used as a person would — from another directory, with the checkout out of reach — and
/// `--uninstall` leaving nothing behind.
///
/// The checkout is hidden by running every installed program in a private mount namespace with
/// an empty tmpfs mounted over the checkout (`unshare -m`, as root). Where namespaces are not
/// permitted, the prefix is copied to a fresh directory and the release build folder is moved
/// aside while the programs run; the test says which it used.
///
/// The release install by default; with FLICKR_TEST_INSTALL=debug (scripts/test sets it) the debug
/// build the other suites test, installed with `scripts/install --debug`: everything the same but
/// the Swift runtime, which the debug binaries take from the toolchain instead of carrying it.
@Suite("Installed flickr", .serialized, .timeLimit(.minutes(45)), .tags(.install))
struct InstallTests {
    let checkout = Fixtures.repository.standardizedFileURL.path
    let root: URL
    let prefix: URL
    let work: URL
    /// Whether the debug build is installed (see the suite's note).
    let debugBuild = ProcessInfo.processInfo.environment["FLICKR_TEST_INSTALL"] == "debug"

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-install-\(UUID().uuidString)")
        prefix = root.appendingPathComponent("prefix")
        work = root.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    /// `hidden CMD ARGS...`: runs CMD in `work` with the checkout hidden (see the suite's note).
    func writeWrappers(namespaces: Bool, installed: URL) throws -> (hidden: URL, flickr: URL) {
        let hidden = root.appendingPathComponent("hidden")
        let body = namespaces
            ? "exec unshare -m --propagation private sh -c 'mount -t tmpfs none \"$0\" && cd \"$1\" && shift && exec \"$@\"' "
                + "'\(checkout)' '\(work.path)' \"$@\"\n"
            : "cd '\(work.path)' && exec \"$@\"\n"
        try Data(("#!/bin/sh\n" + body).utf8).write(to: hidden)
        let flickr = root.appendingPathComponent("flickr-hidden")
        try Data("#!/bin/sh\nexec '\(hidden.path)' '\(installed.path)/bin/flickr' \"$@\"\n".utf8).write(to: flickr)
        for url in [hidden, flickr] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        return (hidden, flickr)
    }

    var environment: [String: String] {
        ["PATH": prefix.path + "/bin:/usr/bin:/bin", "HOME": work.path, "XDG_CONFIG_HOME": work.path + "/config",
         "XDG_STATE_HOME": work.path + "/state", "LANG": "C.UTF-8"]
    }

    @Test("install, use from elsewhere with the checkout hidden, uninstall")
    func installUseUninstall() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        // 1. Install (the release build, made here; or the debug build scripts/test made ready).
        let install = try await Products.run(URL(fileURLWithPath: checkout + "/scripts/install"),
                                             (debugBuild ? ["--debug"] : []) + ["--prefix", prefix.path],
                                             directory: work, timeout: 40 * 60)
        try #require(install.status == 0 && !install.timedOut, "scripts/install failed:\n\(install.stdout)\(install.stderr)")
        let expected = ["bin/flickr", "bin/flickr-sandbox", "lib/lua/5.4/flickr.so", "share/man/man1/flickr.1", "share/man/man1/flickr-sandbox.1",
                        "share/bash-completion/completions/flickr", "share/zsh/site-functions/_flickr",
                        "share/fish/vendor_completions.d/flickr.fish", "share/flickr/flickr.lua", "share/flickr/luacheckrc"]
        for file in expected {
            #expect(FileManager.default.fileExists(atPath: prefix.path + "/" + file), "\(file) not installed")
        }

        // 2. Only Debian's liblua5.4, libreadline, libxml2 and libsqlite3 beyond the C/C++ runtime and zlib: no Swift
        // library in a release install; in a debug install the Swift runtime's, found in the toolchain.
        let swiftRuntime = debugBuild ? try await toolchainLibraries() : []
        for binary in ["flickr", "flickr-sandbox"] {
            let needed = try await dynamicLibraries(prefix.path + "/bin/" + binary)
            let allowed: Set<String> = ["liblua5.4.so.0", "libreadline.so.8", "libxml2.so.2", "libc.so.6", "libm.so.6",
                                        "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "libdl.so.2",
                                        "libpthread.so.0", "librt.so.1", "libutil.so.1", "libz.so.1", "libsqlite3.so.0"]
            #expect(!needed.isEmpty && needed.allSatisfy { allowed.contains($0) || swiftRuntime.contains($0) },
                    "\(binary) needs \(needed.filter { !allowed.contains($0) && !swiftRuntime.contains($0) }) beyond the allowed libraries")
            if !debugBuild {
                #expect(!needed.contains { $0.hasPrefix("libswift") || $0.contains("Foundation") || $0.contains("dispatch") })
            }
        }
        #expect(try await dynamicLibraries(prefix.path + "/bin/flickr").contains("liblua5.4.so.0"))
        // flickr.so takes Lua from the interpreter that loads it (Debian's lua5.4 has it built in):
        // no liblua5.4, no readline, no Swift library (in a debug install, the toolchain's).
        let module = try await dynamicLibraries(prefix.path + "/lib/lua/5.4/flickr.so")
        let moduleAllowed: Set<String> = ["libxml2.so.2", "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
                                          "ld-linux-x86-64.so.2", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libz.so.1",
                                          "libsqlite3.so.0"]
        #expect(!module.isEmpty && module.allSatisfy { moduleAllowed.contains($0) || swiftRuntime.contains($0) },
                "flickr.so needs \(module.filter { !moduleAllowed.contains($0) && !swiftRuntime.contains($0) }) beyond the allowed libraries")
        // Every library each one needs is found, none in the checkout.
        for file in ["bin/flickr", "bin/flickr-sandbox", "lib/lua/5.4/flickr.so"] {
            let ldd = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["ldd", prefix.path + "/" + file], timeout: 60)
            #expect(ldd.status == 0 && !ldd.stdout.contains("not found") && !ldd.stdout.contains(checkout + "/"),
                    "ldd \(file):\n\(ldd.stdout)\(ldd.stderr)")
        }

        // 3. Hide the checkout.
        let probe = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["unshare", "-m", "--propagation", "private", "sh", "-c",
                                            "mount -t tmpfs none '\(checkout)' && test ! -e '\(checkout)/Package.swift'"],
                                           timeout: 30)
        let namespaces = probe.status == 0
        var installed = prefix
        var movedBuild: (from: String, to: String)?
        if !namespaces {
            // The debug build folder cannot be moved aside: the running tests are in it.
            try #require(!debugBuild, "a debug install is tested with the checkout hidden, which needs a mount namespace: \(probe.stderr)")
            print("InstallTests: no mount namespace here (\(probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); "
                  + "copying the prefix and moving .build-install aside instead")
            installed = root.appendingPathComponent("copied")
            try FileManager.default.copyItem(at: prefix, to: installed)
            let from = checkout + "/.build-install", to = checkout + "/.build-install-away-\(UUID().uuidString)"
            try FileManager.default.moveItem(atPath: from, toPath: to)
            movedBuild = (from, to)
        } else {
            print("InstallTests: the checkout is hidden by a tmpfs in a private mount namespace")
        }
        defer { if let movedBuild { try? FileManager.default.moveItem(atPath: movedBuild.to, toPath: movedBuild.from) } }
        let (hidden, flickr) = try writeWrappers(namespaces: namespaces, installed: installed)
        func run(_ args: [String], stdin: String? = nil) async throws -> Products.Result {
            let r = try await Products.run(flickr, args, environment: environment, stdin: stdin, directory: work, timeout: 120)
            #expect(!r.timedOut, "flickr \(args) timed out")
            return r
        }
        if namespaces {
            let look = try await Products.run(hidden, ["ls", "-A", checkout], environment: environment, timeout: 30)
            #expect(look.status == 0 && look.stdout.isEmpty, "the checkout is still visible: \(look.stdout)")
        }

        // 4. --help, --version.
        let help = try await run(["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: flickr") && help.stdout.contains("upload") && help.stderr.isEmpty)
        let version = try await run(["--version"])
        #expect(version.status == 0 && version.stdout.wholeMatch(of: /flickr \d+\.\d+\.\d+ \(SwiftFlickr\) — Lua 5\.4\.\d+\n/) != nil,
                "--version printed \(version.stdout.debugDescription)")

        // 5. A flickr-sandbox of the installation; call --json and the pretty form against it.
        let sandbox = try InteractiveProcess(hidden, [installed.path + "/bin/flickr-sandbox", "--port", "0"], environment: environment)
        defer { sandbox.process.terminate() }
        _ = try #require(await sandbox.waitForLine(timeout: 60) { $0 == "ready" }, "the installed sandbox did not start: \(sandbox.stderr)")
        var credentials: [String: String] = [:]
        for line in sandbox.stdout.split(separator: "\n") {
            if let eq = line.firstIndex(of: "=") { credentials[String(line[..<eq])] = String(line[line.index(after: eq)...]) }
        }
        let url = try #require(credentials["url"])
        let auth = ["FLICKR_API_KEY": credentials["api_key"] ?? "", "FLICKR_API_SECRET": credentials["api_secret"] ?? "",
                    "FLICKR_OAUTH_TOKEN": credentials["oauth_token"] ?? "",
                    "FLICKR_OAUTH_TOKEN_SECRET": credentials["oauth_token_secret"] ?? ""]
        func flickrCall(_ args: [String]) async throws -> Products.Result {
            let r = try await Products.run(flickr, ["--endpoint", url] + args, environment: environment.merging(auth) { $1 },
                                           directory: work, timeout: 120)
            #expect(!r.timedOut, "flickr \(args) timed out")
            return r
        }
        let json = try await flickrCall(["call", "flickr.test.echo", "word=installed", "--json"])
        let echo = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(json.status == 0 && (echo?["word"] as? [String: Any])?["_text"] as? String == "installed", "\(json.stdout)\(json.stderr)")
        let pretty = try await flickrCall(["call", "flickr.test.echo", "word=installed"])
        #expect(pretty.status == 0 && pretty.stdout.contains("word = { _text = \"installed\" }") && pretty.stderr.isEmpty,
                "\(pretty.stdout)\(pretty.stderr)")

        // 5b. Debian's lua5.4 loads the installed flickr.so, configured by the same variables.
        let fromLua = try await Products.run(hidden, ["lua5.4", "-e", """
            local flickr = require "flickr"
            print(flickr.test.echo{ word = "from lua5.4" }.word._text, flickr.config().endpoint, type(require "flickr.pretty"))
            """], environment: environment.merging(auth) { $1 }.merging(
                ["FLICKR_ENDPOINT": url, "LUA_CPATH": installed.path + "/lib/lua/5.4/?.so"]) { $1 }, timeout: 120)
        #expect(fromLua.status == 0 && fromLua.stdout == "from lua5.4\t\(url)\ttable\n", "\(fromLua.stdout)\(fromLua.stderr)")

        // 6. The REPL through a pseudo-terminal: pretty printing and completion.
        let pty = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"),
                                         ["python3", checkout + "/Tests/scripts/repl_pty.py", "installed", "--flickr", flickr.path],
                                         environment: ProcessInfo.processInfo.environment, timeout: 120)
        #expect(pty.status == 0, "REPL scenario failed:\n\(pty.stdout)\(pty.stderr)")

        // 7. bash completion of a method name and of an argument name, from the installed script.
        let bashScript = installed.path + "/share/bash-completion/completions/flickr"
        func complete(_ line: String, words: [String]) async throws -> [String] {
            let script = """
                source '\(bashScript)'
                COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
                COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
                _flickr
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let r = try await Products.run(hidden, ["bash", "-c", script], environment: environment, timeout: 60)
            #expect(r.status == 0, "bash completion failed: \(r.stderr)")
            return r.stdout.split(separator: "\n").map(String.init)
        }
        let methods = try await complete("flickr call flickr.photos.sea", words: ["flickr", "call", "flickr.photos.sea"])
        #expect(methods == ["flickr.photos.search"], "\(methods)")
        let arguments = try await complete("flickr call flickr.photos.search ta", words: ["flickr", "call", "flickr.photos.search", "ta"])
        #expect(Set(arguments) == ["tags=", "tag_mode="], "\(arguments)")

        // 7b. The editor and lint definitions the install wrote are what the installed flickr
        // prints, and parse as Lua; the installed flickr loads
        // Debian's C modules with lua5.4's paths (its liblua5.4 gives them the Lua API).
        for (file, kind) in [("flickr.lua", "luals"), ("luacheckrc", "luacheck")] {
            let printed = try await run(["editor", kind])
            let written = try String(contentsOfFile: installed.path + "/share/flickr/" + file, encoding: .utf8)
            #expect(printed.status == 0 && printed.stdout == written, "share/flickr/\(file) differs from flickr editor \(kind)")
            let luac = try await Products.run(hidden, ["luac5.4", "-p", installed.path + "/share/flickr/" + file],
                                              environment: environment, timeout: 60)
            #expect(luac.status == 0, "luac5.4 -p share/flickr/\(file): \(luac.stderr)")
        }
        let modules = try await run(["-e", "print(package.path) print(package.cpath) "
                                     + "print(require('cjson').encode({ 1, 2 }), require('lfs').attributes('.', 'mode'))"])
        let stock = try await Products.run(hidden, ["lua5.4", "-e", "print(package.path) print(package.cpath)"],
                                           environment: environment, timeout: 60)
        #expect(modules.status == 0 && modules.stdout == stock.stdout + "[1,2]\tdirectory\n",
                "installed flickr: \(modules.stdout)\(modules.stderr)\nlua5.4: \(stock.stdout)")

        // 8. The man pages render without a warning.
        for page in ["flickr.1", "flickr-sandbox.1"] {
            let man = try await Products.run(hidden, ["man", "--warnings", "-E", "UTF-8", "-l", installed.path + "/share/man/man1/" + page],
                                             environment: environment.merging(["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"]) { $1 },
                                             timeout: 60)
            #expect(man.status == 0 && man.stderr.isEmpty && man.stdout.contains("SYNOPSIS"), "man -l \(page): \(man.stderr)")
        }

        // 9. Upload a folder (a non-media file skipped before any byte is sent) into a set; download the set.
        let pictures = work.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: pictures.appendingPathComponent("more"), withIntermediateDirectories: true)
        var originals: [String: Data] = [:]
        var generator = TestRandom("install upload")
        for (name, magic) in [("one.jpg", [0xFF, 0xD8, 0xFF, 0xE0] as [UInt8]), ("more/two.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])] {
            let bytes = Data(magic + (0..<150_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try bytes.write(to: pictures.appendingPathComponent(name))
            originals[(name as NSString).lastPathComponent] = bytes
        }
        try Data("not a photo".utf8).write(to: pictures.appendingPathComponent("notes.txt"))
        let upload = try await flickrCall(["upload", "pictures", "--set", "Installed", "--tags", "cat \"black cat\""])
        #expect(upload.status == 0, "upload: \(upload.stdout)\(upload.stderr)")
        #expect(upload.stderr.contains("skipping pictures/notes.txt") && upload.stderr.contains("uploaded 2 of 2"), "\(upload.stderr)")
        let ids = upload.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
        #expect(ids.count == 2)
        let sets = try await flickrCall(["call", "flickr.photosets.getList", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(sets.stdout.utf8)) as? [String: Any]
        let photosets = ((list?["photosets"] as? [String: Any])?["photoset"] as? [[String: Any]]) ?? []
        let set = try #require(photosets.first { ($0["title"] as? [String: Any])?["_text"] as? String == "Installed" }?["id"] as? String)
        let download = try await flickrCall(["download", "--set", set, "--dir", "fetched"])
        #expect(download.status == 0, "download: \(download.stdout)\(download.stderr)")
        let fetched = try FileManager.default.contentsOfDirectory(atPath: work.path + "/fetched").sorted()
        #expect(fetched.count == 2 && !fetched.contains { $0.hasSuffix(".part") }, "\(fetched)")
        for name in fetched {
            let data = try Data(contentsOf: work.appendingPathComponent("fetched/" + name))
            #expect(originals.values.contains(data), "\(name) differs from what was uploaded")
        }
        let again = try await flickrCall(["download", "--set", set, "--dir", "fetched"])
        #expect(again.status == 0 && again.stderr.contains("2 already there"), "\(again.stderr)")

        // 10. Uninstall leaves the prefix as it found it: empty.
        sandbox.process.terminate()
        let uninstall = try await Products.run(URL(fileURLWithPath: checkout + "/scripts/install"),
                                               ["--uninstall", "--prefix", prefix.path], directory: work, timeout: 120)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: prefix.path)?.allObjects as? [String] ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// The file names of the Swift runtime's libraries in the toolchain (the folder of `swift`'s
    /// libswiftCore.so), which a debug install's binaries load from there.
    func toolchainLibraries() async throws -> Set<String> {
        let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["sh", "-c", "dirname \"$(readlink -f \"$(command -v swift)\")\""],
                                       timeout: 30)
        let folder = URL(fileURLWithPath: r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            .deletingLastPathComponent().appendingPathComponent("lib/swift/linux")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".so") }
        try #require(names.contains("libswiftCore.so"), "no libswiftCore.so in \(folder.path)")
        return Set(names)
    }

    /// The NEEDED entries of an ELF file (readelf -d).
    func dynamicLibraries(_ path: String) async throws -> [String] {
        let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["readelf", "-d", path], timeout: 60)
        return r.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }
}
