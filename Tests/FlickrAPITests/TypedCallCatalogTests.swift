import Foundation
import Testing
import FlickrTestSupport
import FlickrProtocol
@testable import FlickrAPI

/// The typed calls (`client.photos.search(…)`) against the catalog they are generated from:
/// the committed file is what `scripts/generate-methods.py` writes today, every method is
/// there, every required argument is a label without a default, every other argument an
/// optional label; and the encodings of `TypedArguments`.
@Suite(.timeLimit(.minutes(2)), .tags(.unit)) struct TypedCallCatalogTests {
    static let generatedPath = "Sources/FlickrAPI/Generated/FlickrMethods+Generated.swift"
    static let script = "scripts/generate-methods.py"

    /// One generated function as its text says it: the method it calls, its parameters, and
    /// which parameter each sent argument comes from.
    struct Generated {
        var function: String
        var method: String
        /// label → has a default
        var parameters: [String: Bool]
        /// Flickr argument → label (or `self.client.context…` for the context's token)
        var sends: [String: String]
    }

    static func parse(_ text: String) throws -> [Generated] {
        let function = try Regex(#"public func ([`\w]+)\((.*)\) async throws\(FlickrError\) -> FlickrNode \{"#)
        let add = try Regex(#"typed\.add\("(\w+)", ([^,)]+)"#)
        let call = try Regex(#"return try await self\.client\.call\("([\w.]+)", arguments: typed\.pairs\)"#)
        var out: [Generated] = []
        var current: Generated?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let m = try function.firstMatch(in: line) {
                let name = String(m.output[1].substring!).replacingOccurrences(of: "`", with: "")
                let list = String(m.output[2].substring!)
                var params: [String: Bool] = [:]
                for p in list.split(separator: ", ") where !p.isEmpty {
                    let label = String(p.split(separator: ":")[0]).split(separator: " ").last.map(String.init)!
                    params[label.replacingOccurrences(of: "`", with: "")] = p.contains(" = ")
                }
                current = Generated(function: name, method: "", parameters: params, sends: [:])
            } else if let m = try add.firstMatch(in: line) {
                current?.sends[String(m.output[1].substring!)] = String(m.output[2].substring!).replacingOccurrences(of: "`", with: "")
            } else if let m = try call.firstMatch(in: line), var g = current {
                g.method = String(m.output[1].substring!)
                out.append(g)
                current = nil
            }
        }
        return out
    }

    @Test func committedFileIsWhatTheScriptGenerates() async throws {
        let committed = try String(contentsOf: Fixtures.repository.appendingPathComponent(Self.generatedPath), encoding: .utf8)
        let result = try await Products.python(Fixtures.repository.appendingPathComponent(Self.script).path, ["--stdout"])
        #expect(result.status == 0, "\(result.stderr)")
        let fresh = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let old = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = zip(fresh, old).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(fresh.count, old.count)
        let same = fresh == old
        #expect(same, "\(Self.generatedPath) is stale (first difference at line \(firstDifference + 1)): run \(Self.script) and commit the file it writes")
    }

    @Test func everyCatalogMethodWithEveryArgument() throws {
        let text = try String(contentsOf: Fixtures.repository.appendingPathComponent(Self.generatedPath), encoding: .utf8)
        let generated = try Self.parse(text)
        let catalog = MethodCatalog.shared
        #expect(catalog.methods.count == 223)
        #expect(generated.count == catalog.methods.count)
        let byMethod = Dictionary(grouping: generated, by: \.method)
        let plumbing: Set<String> = ["api_key", "oauth_token", "auth_token"]
        for method in catalog.methods {
            guard let g = byMethod[method.name]?.first else {
                Issue.record("\(method.name): no typed call")
                continue
            }
            #expect(byMethod[method.name]?.count == 1, "\(method.name) generated twice")
            #expect(g.function == method.name.split(separator: ".").last.map(String.init), "\(method.name)")
            for argument in method.arguments {
                if plumbing.contains(argument.name) {
                    #expect(g.parameters["oauthToken"] == nil && g.parameters["authToken"] == nil && g.parameters["apiKey"] == nil,
                            "\(method.name) \(argument.name) is a label")
                    #expect(g.sends[argument.name]?.hasPrefix("self.client.context.") == true,
                            "\(method.name) \(argument.name) is not sent from the context")
                    continue
                }
                guard let label = g.sends[argument.name] else {
                    Issue.record("\(method.name): \(argument.name) is never sent")
                    continue
                }
                let required = method.requiredInPractice.contains(argument.name)
                #expect(g.parameters[label] == !required,
                        "\(method.name) \(argument.name) → \(label): \(required ? "required, must have no default" : "optional, must default to nil")")
                #expect(!label.contains("_"), "\(method.name) \(argument.name) → \(label)")
            }
        }
    }

    @Test func requiredArgumentsComeFirstAndLabelsFollowTheGuidelines() throws {
        let text = try String(contentsOf: Fixtures.repository.appendingPathComponent(Self.generatedPath), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        // In every signature, no parameter without a default follows one with a default.
        for line in lines where line.contains("public func ") {
            let params = line.split(separator: "(", maxSplits: 1)[1].split(separator: ")")[0].split(separator: ", ")
            var seenDefault = false
            for p in params {
                if p.contains(" = ") { seenDefault = true } else { #expect(!seenDefault, "\(line)") }
            }
        }
        func signature(_ method: String) -> String? {
            guard let i = lines.firstIndex(where: { $0.contains("self.client.call(\"\(method)\"") }) else { return nil }
            return lines[..<i].last { $0.contains("public func ") }?.trimmingCharacters(in: .whitespaces)
        }
        let search = try #require(signature("flickr.photos.search"))
        #expect(search.hasPrefix("public func search(userID: String? = nil, tags: [String]? = nil,"))
        #expect(search.contains("minUploadDate: Date? = nil") && search.contains("perPage: Int? = nil")
                && search.contains("isCommons: Bool? = nil") && search.contains("lat: Double? = nil"))
        #expect(signature("flickr.photos.comments.addComment")
                == "public func addComment(photoID: String, commentText: String) async throws(FlickrError) -> FlickrNode {")
        #expect(signature("flickr.photos.setTags")
                == "public func setTags(photoID: String, tags: [String]) async throws(FlickrError) -> FlickrNode {")
        #expect(signature("flickr.auth.oauth.checkToken") == "public func checkToken() async throws(FlickrError) -> FlickrNode {")
        #expect(signature("flickr.urls.lookupUser") == "public func lookupUser(url: String) async throws(FlickrError) -> FlickrNode {")
        #expect(signature("flickr.photosets.orderSets")?.contains("(photosetIDs: [String])") == true)
        #expect(signature("flickr.photos.getCounts")?.contains("(dates: [Date]? = nil, takenDates: [Date]? = nil)") == true)
        // Each method carries a doc comment.
        for (i, line) in lines.enumerated() where line.contains("public func ") {
            let above = lines[i - 1].trimmingCharacters(in: .whitespaces)
            #expect(above.hasPrefix("///") || (above == "@discardableResult" && lines[i - 2].contains("///")), "\(line)")
        }
    }

    @Test func argumentsAreEncodedAsEachMethodWants() {
        var typed = TypedArguments()
        typed.add("per_page", 5 as Int?)
        typed.add("page", nil as Int?)
        typed.add("is_public", true as Bool?)
        typed.add("is_friend", false as Bool?)
        typed.add("lat", 35.5 as Double?)
        typed.add("lon", -2.0 as Double?)
        typed.add("min_upload_date", Date(timeIntervalSince1970: 1_700_000_000.7), as: .unixTimestamp)
        typed.add("min_taken_date", Date(timeIntervalSince1970: 1_100_868_679), as: .mysqlDateTime)
        typed.add("date", Date(timeIntervalSince1970: 1_100_868_679), as: .day)
        typed.add("dates", [Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 20)], as: .unixTimestamp)
        typed.add("tags", ["kyoto", "night"], joined: .commas)
        typed.add("tags", ["central station", "amsterdam"], joined: .tagString)
        typed.add(["b": "2", "a": "1"])
        #expect(typed.pairs.map { "\($0.0)=\($0.1)" } == [
            "per_page=5", "is_public=1", "is_friend=0", "lat=35.5", "lon=-2", "min_upload_date=1700000000",
            "min_taken_date=2004-11-19 12:51:19", "date=2004-11-19", "dates=10,20", "tags=kyoto,night",
            "tags=\"central station\" amsterdam", "a=1", "b=2",
        ])
        #expect(TagString.parse(typed.pairs[10].1) == ["central station", "amsterdam"])
    }
}
