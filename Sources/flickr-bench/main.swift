// Measurements for scripts/bench, one per invocation so that peak RSS belongs to one task.
//   flickr-bench xml FILE RUNS
//   flickr-bench upload URL KEY SECRET TOKEN TOKEN_SECRET FILE
//   flickr-bench calls URL KEY SECRET TOKEN TOKEN_SECRET N
// Each prints one JSON object on stdout.
import FlickrAPI
import FlickrProtocol
import Foundation

@main
struct Bench {
    static func main() async {
        let a = CommandLine.arguments
        do {
            switch a.count > 1 ? a[1] : "" {
            case "xml" where a.count == 4: try xml(file: a[2], runs: Int(a[3]) ?? 5)
            case "upload" where a.count == 8: try await upload(url: a[2], key: a[3], secret: a[4], token: a[5], tokenSecret: a[6], file: a[7])
            case "calls" where a.count == 8: try await calls(url: a[2], key: a[3], secret: a[4], token: a[5], tokenSecret: a[6], n: Int(a[7]) ?? 200)
            default:
                FileHandle.standardError.write(Data("usage: flickr-bench xml FILE RUNS | upload URL KEY SECRET TOKEN TSECRET FILE | calls URL KEY SECRET TOKEN TSECRET N\n".utf8))
                exit(2)
            }
        } catch {
            FileHandle.standardError.write(Data("flickr-bench: \(error)\n".utf8))
            exit(1)
        }
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

    static func xml(file: String, runs: Int) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        _ = MethodCatalog.listRule  // learned once per process, not per parse
        var best = Double.infinity
        var all: [Double] = []
        var count = 0
        var previous: FlickrNode?
        for _ in 0..<max(1, runs) {
            previous = nil  // free the last tree outside the timing, as the Python side does
            let clock = ContinuousClock()
            var tree: FlickrNode?
            let d = try clock.measure { tree = try FlickrXML.parse(data) }
            count = tree?["photos.photo"]?.array.count ?? 0
            previous = tree
            best = min(best, seconds(d))
            all.append(seconds(d) * 1000)
        }
        print("{\"best_ms\": \(best * 1000), \"runs_ms\": \(all), \"photos\": \(count), \"bytes\": \(data.count)}")
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
}
