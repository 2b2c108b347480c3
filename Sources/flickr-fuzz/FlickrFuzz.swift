// flickr-fuzz: the fuzz targets of FlickrFuzzTargets.
//
// Built by scripts/fuzz with -DFUZZING under libFuzzer (-sanitize=fuzzer,address):
// FLICKR_FUZZ_TARGET names the target, and libFuzzer's own main drives it.
// Built normally, it replays inputs instead:
//   flickr-fuzz TARGET FILE...        runs each file through TARGET (a crash reproduces)
//   flickr-fuzz --passes N TARGET FILE...
//                                     runs all the files N (≥ 3) times and prints the resident
//                                     memory after the second and the last pass: the leak check
//                                     (memory kept per input grows with the passes; caches warmed
//                                     by the first passes do not)
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
        var arguments = Array(CommandLine.arguments.dropFirst())
        var passes = 1
        if arguments.first == "--passes" {
            guard arguments.count > 1, let n = Int(arguments[1]), n >= 3 else { usage() }
            passes = n
            arguments.removeFirst(2)
        }
        guard let name = arguments.first, let replay = FuzzTarget.named(name) else { usage() }
        let inputs: [Data] = arguments.dropFirst().map { file in
            guard let bytes = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("flickr-fuzz: cannot read \(file)\n".utf8))
                exit(1)
            }
            return bytes
        }
        if passes == 1 {
            for (file, bytes) in zip(arguments.dropFirst(), inputs) {
                bytes.withUnsafeBytes { replay.run($0) }
                print("ok \(file)")
            }
            return
        }
        var warm = 0
        for pass in 1...passes {
            for bytes in inputs { bytes.withUnsafeBytes { replay.run($0) } }
            if pass == 2 { warm = residentKiB() }
        }
        print("{\"target\": \"\(name)\", \"inputs\": \(inputs.count), \"passes\": \(passes), "
              + "\"rss_after_second_kib\": \(warm), \"rss_after_last_kib\": \(residentKiB())}")
    }

    static func usage() -> Never {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("usage: flickr-fuzz [--passes N≥3] TARGET FILE...  (targets: \(names))\n".utf8))
        exit(2)
    }

    /// Resident memory. After the first pass the allocator's caches are warm: a pass that keeps
    /// nothing leaves it where it was.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
}
#endif
