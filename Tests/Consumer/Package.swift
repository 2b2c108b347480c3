// swift-tools-version:6.1
// A package of its own that depends on SwiftFlickr by path and uses FlickrAPI exactly as an
// application would: one `import FlickrAPI`, nothing else of this repository. The test suite
// (ConsumerPackageTests) builds it, checks that the program links none of
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
        // An application that uses swift-nio itself. (One that pins it below its newest release is
        // ConsumerPackageTests.lowerNIOPinResolves; this package resolves what SwiftFlickr's own
        // build did, so that scripts/test can build it in the same build folder.)
        .package(url: "https://github.com/apple/swift-nio", from: "2.90.0"),
    ],
    targets: [
        .executableTarget(
            name: "swiftflickr-consumer",
            dependencies: [.product(name: "FlickrAPI", package: repository.lastPathComponent.lowercased()),
                           .product(name: "NIOCore", package: "swift-nio")]
        ),
    ]
)
