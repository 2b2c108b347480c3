// Measurements for scripts/bench, one per invocation so that peak RSS belongs to one task.
//   flickr-bench xml FILE RUNS          (the XML modes warm up untimed for 0.3 s first, as bench_python.py xml)
//   flickr-bench lua-map FILE RUNS      parse + build Lua tables (what a flickr.* call returns); then stock Lua's own
//                                       part of it (the tables from values already split)
//   flickr-bench xml-floor FILE RUNS    the floors: libxml2 with empty callbacks; the mapping rules into an empty sink
//   flickr-bench lua-errors N           N errors raised by Swift functions holding objects (release check)
//   flickr-bench upload URL KEY SECRET TOKEN TOKEN_SECRET FILE
//   flickr-bench calls URL KEY SECRET TOKEN TOKEN_SECRET N
//   flickr-bench search URL KEY SECRET TOKEN TOKEN_SECRET N   N sequential 500-photo flickr.photos.search calls
// Each prints one JSON object on stdout.
import FlickrAPI
import FlickrLua
import FlickrProtocol
import Foundation
import LuaKit

@main
struct Bench {
    static func main() async {
        let a = CommandLine.arguments
        do {
            switch a.count > 1 ? a[1] : "" {
            case "xml" where a.count == 4: try xml(file: a[2], runs: Int(a[3]) ?? 5)
            case "xml-floor" where a.count == 4: try xmlFloor(file: a[2], runs: Int(a[3]) ?? 5)
            case "lua-map" where a.count == 4: try await luaMap(file: a[2], runs: Int(a[3]) ?? 5)
            case "lua-errors" where a.count == 3: try await luaErrors(Int(a[2]) ?? 100_000)
            case "upload" where a.count == 8: try await upload(url: a[2], key: a[3], secret: a[4], token: a[5], tokenSecret: a[6], file: a[7])
            case "calls" where a.count == 8: try await calls(url: a[2], key: a[3], secret: a[4], token: a[5], tokenSecret: a[6], n: Int(a[7]) ?? 200)
            case "search" where a.count == 8: try await search(url: a[2], key: a[3], secret: a[4], token: a[5], tokenSecret: a[6], n: Int(a[7]) ?? 100)
            case "writes" where a.count == 9:
                try await writes(url: a[2], key: a[3], secret: a[4], token: a[5], tokenSecret: a[6], photo: a[7], n: Int(a[8]) ?? 200)
            default:
                FileHandle.standardError.write(Data("usage: flickr-bench xml FILE RUNS | lua-map FILE RUNS | upload URL KEY SECRET TOKEN TSECRET FILE | calls URL KEY SECRET TOKEN TSECRET N | search URL KEY SECRET TOKEN TSECRET N | writes URL KEY SECRET TOKEN TSECRET PHOTO N\n".utf8))
                exit(2)
            }
        } catch {
            FileHandle.standardError.write(Data("flickr-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The median of `values` (the upper one of an even count; 0 for none).
    static func median(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.sorted()[values.count / 2]
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Peak resident set size of this process in KiB (VmHWM).
    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// XML → tree as `FlickrXML.parse` does it.
    static func xml(file: String, runs: Int) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let rule = MethodCatalog.listRule  // learned once per process, not per parse
        var best = Double.infinity
        var all: [Double] = []
        var count = 0
        var previous: FlickrNode?
        let clock = ContinuousClock()
        try data.withUnsafeBytes { raw in
            try warmUp { _ = try FlickrXML.parse(raw, rule: rule) }
            for _ in 0..<max(1, runs) {
                previous = nil  // free the last tree outside the timing, as the Python side does
                var tree: FlickrNode?
                let d = try clock.measure { tree = try FlickrXML.parse(raw, rule: rule) }
                count = tree?["photos.photo"]?.array.count ?? 0
                previous = tree
                best = min(best, seconds(d))
                all.append(seconds(d) * 1000)
            }
        }
        _ = previous
        print("{\"best_ms\": \(best * 1000), \"runs_ms\": \(all), \"photos\": \(count), \"bytes\": \(data.count)}")
    }

    /// Runs `body` untimed for ``warmUpSeconds`` before the timed runs, as bench_python.py's
    /// xml does: the first runs of a process pay for its heap growing, cold caches, which a
    /// side measured cold would carry into its median.
    static func warmUp(_ body: () throws -> Void) rethrows {
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(Int(warmUpSeconds * 1000))
        repeat { try body() } while clock.now < end
    }

    /// The untimed warm-up of each XML measurement (the same on the Python side).
    static let warmUpSeconds = 0.3

    /// Does nothing with the events: what the parser alone costs.
    final class NullHandler: FlickrXMLEventHandler {
        func startElement(_ name: UnsafePointer<CChar>, attributes: FlickrXMLAttributes) {}
        func characters(_ text: UnsafeRawBufferPointer) {}
        func endElement() {}
    }

    /// Builds nothing: what the parser and the mapping rules cost.
    final class NullSink: FlickrXMLSink {
        var count = 0
        func makeName(_ name: String) -> Int { count += 1; return count }
        func begin(element: Int, attributes: FlickrXMLSinkAttributes) {}
        func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement) {}
    }

    static func xmlFloor(file: String, runs: Int) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let rule = MethodCatalog.listRule
        var parser = Double.infinity, mapper = Double.infinity
        let clock = ContinuousClock()
        try data.withUnsafeBytes { raw in
            for _ in 0..<max(1, runs) {
                parser = min(parser, seconds(try clock.measure { try FlickrXMLParser.parse(raw, handler: NullHandler()) }))
                mapper = min(mapper, seconds(try clock.measure { try FlickrXMLMapper.map(raw, rule: rule, into: NullSink()) }))
            }
        }
        print("{\"parser_ms\": \(parser * 1000), \"mapper_ms\": \(mapper * 1000), \"bytes\": \(data.count)}")
    }

    /// The XML mapped into Lua tables on the Lua thread, both ways FlickrLua can:
    /// - tree: FlickrXML.parse, then the tree pushed with raw sets (how a JSON answer's tree
    ///   becomes tables);
    /// - direct: tables built straight from the parser's callbacks (the one route from XML to
    ///   Lua: every flickr.* call's XML answer, flickr.parse_xml).
    /// As on the Python side, the previous result is freed outside the timing: it is dropped and
    /// a full collection runs before each timed run. Each way runs in a loop of its own.
    static func luaMap(file: String, runs: Int) async throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        _ = MethodCatalog.listRule
        let lua = try LuaRuntime()
        defer { lua.close() }
        struct Figures: Sendable {
            var tree = Double.infinity, parse = Double.infinity, direct = Double.infinity
            var treeRuns: [Double] = [], directRuns: [Double] = []
            var photos: Int64 = 0
            var luaFloor = Double.infinity
        }
        let f = try await lua.perform { L -> Figures in
            var f = Figures()
            if let mode = ProcessInfo.processInfo.environment["LUA_GC_MODE"] { try L.run("collectgarbage('\(mode)')") }
            let clock = ContinuousClock()
            let only = ProcessInfo.processInfo.environment["LUA_MAP_ONLY"]
            let base = L.top
            // Each way in a loop of its own, warmed up just before it (as the Python side times
            // its one way): a direct run right after a tree run met the tree's ~10 MB of freed
            // memory and cold caches, 5.1 ms where a run of direct ones takes 4.5-4.7.
            /// `map` (which leaves its tables on the stack) warmed up, then timed `runs` times,
            /// each after the last result was dropped and collected; the times in seconds.
            func timedRuns(_ map: () throws -> Void) throws -> [Double] {
                L.pushNil()
                L.setGlobal("mapped")
                try warmUp {
                    try map()
                    L.setTop(base)
                    L.collectGarbage()
                }
                var times: [Double] = []
                for _ in 0..<max(1, runs) {
                    L.pushNil()
                    L.setGlobal("mapped")
                    L.collectGarbage()
                    let start = clock.now
                    try map()
                    times.append(seconds(clock.now - start))
                    L.setGlobal("mapped")
                }
                return times
            }
            if only != "direct" {
                let times = try timedRuns {
                    let start = clock.now
                    let tree = try FlickrXML.parse(data)
                    f.parse = min(f.parse, seconds(clock.now - start))  // the warm-up's runs count here too
                    try L.push(flickrNode: tree)
                }
                f.tree = times.min() ?? f.tree
                f.treeRuns = times.map { $0 * 1000 }
            }
            if only != "tree" {
                let times = try timedRuns { try data.withUnsafeBytes { raw in try L.push(flickrXML: raw) } }
                f.direct = times.min() ?? f.direct
                f.directRuns = times.map { $0 * 1000 }
            }
            // After the timed runs, not between them.
            if only != "tree" { f.luaFloor = try luaFloor(of: data, on: L, runs: runs) }
            f.photos = try L.run("return #mapped.photos.photo").first?.integerValue ?? 0
            return f
        }
        func ms(_ seconds: Double) -> Double { seconds.isFinite ? seconds * 1000 : -1 }  // -1: not measured in this mode
        print("{\"best_ms\": \(ms(f.tree)), \"parse_ms\": \(ms(f.parse)), \"direct_ms\": \(ms(f.direct)), "
              + "\"runs_ms\": \(f.treeRuns), \"direct_runs_ms\": \(f.directRuns), "
              + "\"lua_floor_ms\": \(ms(f.luaFloor)), "
              + "\"photos\": \(f.photos), \"bytes\": \(data.count)}")
    }

    /// Stock Lua's own part of the direct mapping: the document's photo tables (one per
    /// `<photo>`, its attributes as string fields, in a list) built from values already split
    /// and decoded, with the API calls the mapping makes per field (CLuaShim's
    /// lk_set_string_fields: the key from a table of names, the value pushed — interned when
    /// short — and a raw set), the collector paused as the mapping pauses it. No XML, no mapping
    /// rules: what any route from this XML to these tables pays on top of parsing. The
    /// best of `runs` seconds (each after a full collection).
    static func luaFloor(of data: [UInt8], on L: LuaState, runs: Int) throws -> Double {
        let tree = try FlickrXML.parse(data)
        let photos = (tree[path: ["photos", "photo"]]?.array ?? []).compactMap(\.map)
        var names: [String] = []
        var tokens: [String: Int] = [:]
        var keys: [Int] = []
        var values: [UInt8] = []
        var spans: [Range<Int>] = []
        for photo in photos {
            for (key, value) in photo {
                let token = tokens[key] ?? names.count
                if token == names.count {
                    names.append(key)
                    tokens[key] = token
                }
                keys.append(token)
                let start = values.count
                values += (value.text ?? "").utf8
                spans.append(start..<values.count)
            }
        }
        let top = L.top
        defer { L.setTop(top) }
        guard L.ensureStack(8) else { throw LuaError(kind: .memory, message: "Lua stack overflow") }
        L.newTable(array: Int32(names.count))
        for (i, name) in names.enumerated() {
            L.push(name)
            L.rawSet(index: Int64(i + 1), in: -2)
        }
        let namesTable = L.top
        let clock = ContinuousClock()
        var best = Double.infinity
        values.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            // Two pointers a field (start, end), as lk_set_string_fields reads them at stride 2.
            let ranges = spans.flatMap { [UnsafePointer<CChar>?(base + $0.lowerBound), base + $0.upperBound] }
            keys.withUnsafeBufferPointer { keys in
                ranges.withUnsafeBufferPointer { ranges in
                    for _ in 0..<max(1, runs) {
                        L.setTop(namesTable)
                        L.collectGarbage()
                        let start = clock.now
                        L.withCollectorPaused {
                            L.newTable(array: Int32(photos.count))
                            var at = 0
                            for (i, photo) in photos.enumerated() {
                                L.newTable(record: Int32(photo.count))
                                _ = L.setStringFields(in: -1, names: namesTable,
                                                      keys: UnsafeBufferPointer(rebasing: keys[at..<(at + photo.count)]),
                                                      ranges: ranges.baseAddress! + 2 * at, stride: 2, stoppingAt: nil)
                                L.rawSet(index: Int64(i + 1), in: -2)
                                at += photo.count
                            }
                        }
                        best = min(best, seconds(clock.now - start))
                    }
                }
            }
        }
        return best
    }

    /// Swift functions that hold an object raise `n` errors through pcall (half plain, half
    /// flickr.Error tables); every object must be released. Prints the live count (0 expected).
    static func luaErrors(_ n: Int) async throws {
        final class Held: @unchecked Sendable {
            nonisolated(unsafe) static var live = 0
            init() { Held.live += 1 }
            deinit { Held.live -= 1 }
        }
        let lua = try LuaRuntime()
        let clock = ContinuousClock()
        let start = clock.now
        let caught = try await lua.perform { L -> Int64 in
            L.push(function: "fail") { call in
                let held = Held()
                let i = try call.integer(1)
                withExtendedLifetime(held) {}
                if i % 2 == 0 { throw FlickrError(kind: .api, code: 1, message: "Photo \(i) not found", method: "bench") }
                throw CancellationError()
            }
            L.setGlobal("fail")
            return try L.run("local c = 0; for i = 1, \(n) do if not pcall(fail, i) then c = c + 1 end end; return c")
                .first?.integerValue ?? 0
        }
        lua.close()
        print("{\"errors\": \(caught), \"live_objects\": \(Held.live), \"seconds\": \(seconds(clock.now - start))}")
    }

    static func client(url: String, key: String, secret: String, token: String, tokenSecret: String) -> FlickrClient {
        FlickrClient(context: FlickrContext(apiKey: key, sharedSecret: secret, oauthToken: token, oauthTokenSecret: tokenSecret,
                                            endpoints: Endpoints(baseURL: url), uploadTimeout: 600,
                                            retryPolicy: .none, ratePolicy: .unlimited))
    }

    static func upload(url: String, key: String, secret: String, token: String, tokenSecret: String, file: String) async throws {
        let flickr = client(url: url, key: key, secret: secret, token: token, tokenSecret: tokenSecret)
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await flickr.upload(.file(file), arguments: ["title": "bench"])
        let elapsed = seconds(clock.now - start)
        print("{\"seconds\": \(elapsed), \"bytes\": \(size), \"photo_id\": \"\(result.photoID ?? "")\", \"peak_rss_kb\": \(peakRSS())}")
    }

    static func calls(url: String, key: String, secret: String, token: String, tokenSecret: String, n: Int) async throws {
        let flickr = client(url: url, key: key, secret: secret, token: token, tokenSecret: tokenSecret)
        _ = try await flickr.call("flickr.test.echo", ["warm": "up"])
        let clock = ContinuousClock()
        let start = clock.now
        for i in 0..<n { _ = try await flickr.call("flickr.test.echo", ["i": String(i)]) }
        let elapsed = seconds(clock.now - start)
        print("{\"calls\": \(n), \"seconds\": \(elapsed), \"per_second\": \(Double(n) / elapsed)}")
    }

    /// `n` sequential `flickr.photos.search` calls asking for a 500-photo page, each answer mapped
    /// into the FlickrNode tree `call` returns (bench_sink.py serves a canned page: the client's
    /// cost per page). The first, untimed, call warms the connection and reports the page's
    /// photo count, so the harness can check that the answers held the 500 photos.
    static func search(url: String, key: String, secret: String, token: String, tokenSecret: String, n: Int) async throws {
        let flickr = client(url: url, key: key, secret: secret, token: token, tokenSecret: tokenSecret)
        let arguments = ["text": "bench", "per_page": "500"]
        let first = try await flickr.call("flickr.photos.search", arguments)
        let photos = first["photos.photo"]?.array.count ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<n { _ = try await flickr.call("flickr.photos.search", arguments) }
        let elapsed = seconds(clock.now - start)
        print("{\"calls\": \(n), \"seconds\": \(elapsed), \"per_second\": \(Double(n) / elapsed), \"photos\": \(photos)}")
    }

    /// `n` sequential `flickr.photos.setTags` on one photo: the cost of a write, end to end.
    static func writes(url: String, key: String, secret: String, token: String, tokenSecret: String, photo: String, n: Int) async throws {
        let flickr = client(url: url, key: key, secret: secret, token: token, tokenSecret: tokenSecret)
        _ = try await flickr.call("flickr.photos.setTags", ["photo_id": photo, "tags": "warm up"])
        let clock = ContinuousClock()
        let start = clock.now
        var each: [Double] = []
        for i in 0..<n {
            let t = clock.now
            _ = try await flickr.call("flickr.photos.setTags", ["photo_id": photo, "tags": "bench \"write \(i)\""])
            each.append(seconds(clock.now - t) * 1000)
        }
        let elapsed = seconds(clock.now - start)
        print("{\"writes\": \(n), \"seconds\": \(elapsed), \"ms_per_write\": \(elapsed * 1000 / Double(n)), \"median_ms\": \(median(each))}")
    }
}
