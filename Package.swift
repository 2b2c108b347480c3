// swift-tools-version:6.1
import PackageDescription

// Layers (docs/ARCHITECTURE.md): C faces (libxml2, the compiled-in catalog and Lua, Lua, readline)
// → FlickrProtocol → FlickrAPI / FlickrSandbox → FlickrJobs → FlickrLua (on LuaKit) → FlickrLuaSandbox
// → FlickrShell → executables. FlickrLuaSandbox and FlickrShell also use FlickrSandbox (the
// in-process `--sandbox`); FlickrLuaModule packages FlickrLua as a C module for lua5.4. Each
// target lists exactly the modules its sources import (and CFlickrLuaModule, linked, not imported).
// Dependencies: the lowest versions known to work; `from:` lets an application that uses these
// libraries resolve newer compatible releases.
let package = Package(
    name: "SwiftFlickr",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "FlickrAPI", targets: ["FlickrAPI"]),
        .library(name: "FlickrAPITesting", targets: ["FlickrAPITesting"]),
        .library(name: "FlickrProtocol", targets: ["FlickrProtocol"]),
        .library(name: "FlickrSandbox", targets: ["FlickrSandbox"]),
        .library(name: "LuaKit", targets: ["LuaKit"]),
        .library(name: "FlickrLua", targets: ["FlickrLua"]),
        .library(name: "FlickrJobs", targets: ["FlickrJobs"]),
        .library(name: "FlickrLibrary", targets: ["FlickrLibrary"]),
        // `require "flickr"` in Debian's lua5.4: libflickr-lua.so, installed as lib/lua/5.4/flickr.so.
        .library(name: "flickr-lua", type: .dynamic, targets: ["FlickrLuaModule"]),
        .executable(name: "flickr", targets: ["flickr"]),
        .executable(name: "flickr-sandbox", targets: ["flickr-sandbox"]),
        .executable(name: "flickr-demo", targets: ["flickr-demo"]),
        .executable(name: "flickr-bench", targets: ["flickr-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Tracing: FlickrAPI's shared client asks whether a tracer was bootstrapped (AsyncHTTPClient's, 1.7.3 resolved).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Imported by FlickrSandbox beside Hummingbird (at least the versions Hummingbird 2.28.1 resolves).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // NIOHTTPTypes: the HTTP parts the sandbox's own connection handlers see (Hummingbird's, 1.35.2 resolved).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // SQLite: the sandbox's durable --state (and the retag job database).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `swift package generate-documentation --target FlickrAPI` (the DocC catalog in Sources/FlickrAPI).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libxml2's SAX2 parser, via pkg-config (Debian: libxml2-dev).
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // A narrow C face of libxml2 (its headers clash with Foundation's ICU inside Swift).
        .target(
            name: "CFlickrXML",
            dependencies: ["CLibXML2"]
        ),
        // The method catalog (data/*.json, from scripts/build-catalog.py) compiled in with #embed.
        .target(
            name: "CFlickrCatalog",
            exclude: ["data"]
        ),
        // What both sides of the wire agree on; no I/O.
        .target(
            name: "FlickrProtocol",
            dependencies: [
                "CFlickrXML", "CFlickrCatalog",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The client.
        .target(
            name: "FlickrAPI",
            dependencies: [
                "FlickrProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Tests of code that uses FlickrAPI without Flickr: cassettes recorded and replayed
        // (docs/CASSETTES.md), and a transport that serves the in-process sandbox.
        .target(
            name: "FlickrAPITesting",
            dependencies: [
                "FlickrAPI", "FlickrProtocol", "FlickrSandbox",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What a media file says about itself (EXIF, IPTC, XMP), read by ExifTool.
        .target(name: "FlickrMedia"),
        // The emulator.
        .target(
            name: "FlickrSandbox",
            dependencies: [
                "FlickrProtocol", "FlickrMedia",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["SEED-FORMAT.md", "METHODS.md"]
        ),
        // Lua 5.4 and GNU readline, via pkg-config (Debian: liblua5.4-dev, libreadline-dev).
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua"])]
        ),
        // No pkgConfig: Debian's readline.pc gives only -D flags, which SwiftPM prohibits and warns
        // about in every build of a package that depends on this one; the header is in
        // /usr/include/readline and the module map links libreadline.
        .systemLibrary(
            name: "CReadline",
            providers: [.apt(["libreadline-dev"])]
        ),
        // The C between Swift and Lua: the trampoline, protected helpers, the interrupt hook, the
        // small-block heap the Lua states allocate from.
        .target(
            name: "CLuaShim",
            dependencies: ["CLua"]
        ),
        // The REPL's line editor in C: readline's callback interface, the SIGINT self-pipe, history.
        .target(
            name: "CReadlineShim",
            dependencies: ["CReadline"],
            linkerSettings: [.linkedLibrary("readline")]
        ),
        // The Lua shipped with the command (lua/flickr/*.lua) compiled in with #embed.
        .target(
            name: "CFlickrLuaSources"
        ),
        // A safe Lua runtime for Swift; knows nothing of Flickr.
        .target(
            name: "LuaKit",
            dependencies: ["CLuaShim"]
        ),
        // The `flickr` Lua module: FlickrAPI bound into LuaKit.
        .target(
            name: "FlickrLua",
            dependencies: [
                "LuaKit", "FlickrAPI", "FlickrProtocol", "FlickrJobs", "FlickrLibrary", "CFlickrLuaSources",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `flickr --sandbox`: an in-process sandbox plus the `sandbox` Lua table that steers it.
        .target(
            name: "FlickrLuaSandbox",
            dependencies: [
                "FlickrLua", "LuaKit", "FlickrSandbox", "FlickrAPI", "FlickrProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The `flickr` module as a Lua C module for a stock lua5.4 (the flickr-lua library):
        // luaopen_flickr in C (it raises the error), the rest in Swift on LuaKit's foreign host.
        .target(
            name: "CFlickrLuaModule",
            dependencies: ["CLua"]
        ),
        .target(
            name: "FlickrLuaModule",
            dependencies: ["CFlickrLuaModule", "FlickrLua", "LuaKit", "FlickrAPI", .product(name: "Logging", package: "swift-log")],
            linkerSettings: [
                // SwiftPM links the Swift runtime statically (--static-swift-stdlib) into
                // executables only; the module must load where no Swift is installed.
                .unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release)),
            ]
        ),
        // Batch jobs: selection past the search cap, plans, the journal, resume, undo (no Lua).
        .target(
            name: "FlickrJobs",
            dependencies: ["FlickrAPI", "FlickrProtocol", "FlickrMedia", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The library on disk: the mirror (sync), queries, backups. Beside the jobs: it takes
        // their runner lock and gives the retag planner its photos.
        .target(
            name: "FlickrLibrary",
            dependencies: [
                "FlickrAPI", "FlickrProtocol", "FlickrJobs", "FlickrMedia",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The `flickr` command line as data and its one parser: global and lua.c options,
        // subcommands and their actions (what --help, completion and errors are made from).
        .target(
            name: "FlickrCommandLine",
            dependencies: ["FlickrProtocol"]
        ),
        // The `flickr` command: REPL, lua.c-compatible runner, subcommands.
        .target(
            name: "FlickrShell",
            dependencies: [
                "FlickrCommandLine", "FlickrLua", "FlickrLuaSandbox", "FlickrSandbox", "LuaKit", "FlickrAPI", "FlickrAPITesting", "FlickrProtocol", "FlickrJobs", "FlickrLibrary", "FlickrMedia", "CReadlineShim",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "flickr",
            dependencies: ["FlickrShell"],
            linkerSettings: [
                // Start-up (CLI.md; scripts/bench's start-up row): a release `flickr` is linked
                // at a fixed address, as Go links its programs, and exports no symbols. As a
                // position-independent executable the loader applied 153,000 relocations to its
                // 190 MB at every start, and swiftc's -export-dynamic left 47,000 symbols that the
                // Swift runtime's start-up dladdr walks: together ~2 ms of a 10 ms `flickr -e ''`.
                // Nothing needs them: Lua C modules take the Lua API from liblua5.4.so.
                .unsafeFlags(["-Xclang-linker", "-no-pie", "-Xlinker", "--no-export-dynamic"],
                             .when(platforms: [.linux], configuration: .release)),
            ]
        ),
        .executableTarget(
            name: "flickr-sandbox",
            dependencies: [
                "FlickrSandbox", "FlickrProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The README's main job: the FlickrAPI tour against the in-process sandbox.
        .executableTarget(
            name: "flickr-demo",
            dependencies: ["FlickrAPI", "FlickrProtocol", "FlickrSandbox"]
        ),
        // The fuzz targets (scripts/fuzz runs them under libFuzzer; the tests replay their corpora).
        .target(
            name: "FlickrFuzzTargets",
            dependencies: ["FlickrProtocol", "FlickrAPI", "FlickrLua", "LuaKit", "FlickrSandbox", "FlickrCommandLine"]
        ),
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "flickr-fuzz",
            dependencies: ["FlickrFuzzTargets", "CFuzzerDriver"]
        ),
        // scripts/bench: measurements side by side with Python (run in release mode).
        .executableTarget(
            name: "flickr-bench",
            dependencies: ["FlickrAPI", "FlickrProtocol", "FlickrLua", "LuaKit"]
        ),
        // Test helpers shared by the suites: fixtures, running the products, deadlines and signals.
        .target(
            name: "FlickrTestSupport",
            dependencies: ["FlickrAPI", "FlickrProtocol", "FlickrSandbox", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/FlickrTestSupport"
        ),
        // The README's Swift snippets (scripts/readme-snippets writes them): compiled with the
        // tests, so that what a reader copies builds; ReadmeSnippetsTests checks they are current.
        .testTarget(
            name: "ReadmeSnippets",
            dependencies: ["FlickrAPI", "FlickrAPITesting", "FlickrSandbox"],
            path: "Tests/ReadmeSnippets"
        ),
        .testTarget(
            name: "FlickrProtocolTests",
            dependencies: ["FlickrProtocol", "FlickrTestSupport"]
        ),
        .testTarget(
            name: "FlickrJobsTests",
            dependencies: ["FlickrJobs", "FlickrLibrary", "FlickrAPI", "FlickrProtocol", "FlickrSandbox", "FlickrTestSupport",
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The library on disk: sync, queries, find, backups (FlickrLibrary).
        .testTarget(
            name: "FlickrLibraryTests",
            dependencies: ["FlickrLibrary", "FlickrJobs", "FlickrAPI", "FlickrProtocol", "FlickrSandbox", "FlickrTestSupport"]
        ),
        .testTarget(
            name: "FlickrSandboxTests",
            dependencies: [
                "FlickrSandbox", "FlickrProtocol", "FlickrTestSupport", "FlickrMedia",
                // A plain HTTP client for talking to the sandbox over loopback (not the FlickrAPI client).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // StateLayoutTests reads and writes the --state database directly.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "FlickrAPITests",
            dependencies: ["FlickrAPI", "FlickrProtocol", "FlickrTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOEmbedded", package: "swift-nio")]
        ),
        // FlickrAPI against the real emulator over loopback.
        .testTarget(
            name: "FlickrAPIIntegrationTests",
            dependencies: [
                "FlickrAPI", "FlickrAPITesting", "FlickrProtocol", "FlickrSandbox", "FlickrTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                // FaultPathTests gives a sandbox event loops of its own.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LuaKitTests",
            dependencies: ["LuaKit", "FlickrTestSupport"]
        ),
        // The `flickr` command end to end: runner, subcommands, REPL (pty), examples, install; and
        // the fuzz corpora replayed.
        .testTarget(
            name: "FlickrShellTests",
            dependencies: [
                "FlickrShell", "FlickrCommandLine", "FlickrSandbox", "FlickrAPI", "FlickrTestSupport", "FlickrLua", "LuaKit", "FlickrProtocol",
                "FlickrFuzzTargets",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // FlickrLua and the lua/tests scripts against the in-process sandbox.
        .testTarget(
            name: "FlickrLuaTests",
            dependencies: ["FlickrLua", "FlickrLuaSandbox", "LuaKit", "FlickrAPI", "FlickrProtocol", "FlickrSandbox",
                           "FlickrTestSupport"]
        ),
    ]
)
