// flickr-fuzz: the fuzz targets of FlickrFuzzTargets.
//
// Built by scripts/fuzz with -DFUZZING under libFuzzer (-sanitize=fuzzer,address):
// FLICKR_FUZZ_TARGET names the target, and libFuzzer's own main drives it.
// Built normally, it replays inputs instead:
//   flickr-fuzz TARGET FILE...        runs each file through TARGET (a crash reproduces)
#if FUZZING
import CFuzzerDriver
#endif
import FlickrFuzzTargets
import Foundation

#if FUZZING
nonisolated(unsafe) private var target: FuzzTarget?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if target == nil {
        let name = ProcessInfo.processInfo.environment["FLICKR_FUZZ_TARGET"] ?? ""
        guard let named = FuzzTarget.named(name) else {
            fatalError("FLICKR_FUZZ_TARGET must be one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
        }
        target = named
    }
    target?.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// SwiftPM links an executable's `main` to `<module>_main` (so that tests can link it); with no
/// Swift main in a fuzz build, this is it: it hands over to libFuzzer's driver.
@_cdecl("flickr_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
}
#else
/// The replay mode of a normal build (no `main.swift`: a fuzz build must have no Swift main,
/// libFuzzer brings its own).
@main
struct FlickrFuzz {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let replay = FuzzTarget.named(name) else {
            let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: flickr-fuzz TARGET FILE...  (targets: \(names))\n".utf8))
            exit(2)
        }
        for file in arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("flickr-fuzz: cannot read \(file)\n".utf8))
                exit(1)
            }
            bytes.withUnsafeBytes { replay.run($0) }
            print("ok \(file)")
        }
    }
}
#endif
