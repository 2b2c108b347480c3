// flickr-fuzz: the fuzz targets of FlickrFuzzTargets.
//
// Built by scripts/fuzz with -DFUZZING under libFuzzer (-sanitize=fuzzer,address and
// -parse-as-library): FLICKR_FUZZ_TARGET names the target, and libFuzzer's own main drives it.
// Built normally, it replays inputs instead:
//   flickr-fuzz TARGET FILE...        runs each file through TARGET (a crash reproduces)
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
#else
let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let replay = FuzzTarget.named(name) else {
    FileHandle.standardError.write(Data("usage: flickr-fuzz TARGET FILE...  (targets: \(FuzzTarget.all.map(\.name).joined(separator: ", ")))\n".utf8))
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
#endif
