// swift-tools-version:6.1
// A package of its own that depends on SwiftFlickr by path and uses FlickrAPI exactly as an
// application would: one `import FlickrAPI`, nothing else of this repository. The test suite
// (ConsumerPackageTests) builds it, checks that building the FlickrAPI product compiled none of
// the tools' dependencies and that it built without a warning, and runs it against a sandbox.
import Foundation
import PackageDescription

// The repository two folders up; its package identity is its folder's name, whatever the clone
// is called.
let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "SwiftFlickrConsumer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(path: repository.path),
        // An application that pins swift-nio below its newest release, as issue 29 tried: SwiftFlickr's
        // `from:` requirements must leave room for it (2.101.2 is the version in range here).
        .package(url: "https://github.com/apple/swift-nio", "2.90.0"..<"2.101.3"),
    ],
    targets: [
        .executableTarget(
            name: "swiftflickr-consumer",
            dependencies: [.product(name: "FlickrAPI", package: repository.lastPathComponent.lowercased()),
                           .product(name: "NIOCore", package: "swift-nio")]
        ),
    ]
)
