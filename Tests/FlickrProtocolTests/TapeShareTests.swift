import Testing
import FlickrTestSupport
@testable import FlickrProtocol

/// The calling thread's share of a two-thread mapping, learned from each thread's speed
/// (FlickrXMLTape.ShareModel): the model alone, then a mapping that teaches it.
@Suite(.timeLimit(.minutes(2)), .tags(.unit), .kind("unit")) struct TapeShareTests {
    typealias Model = FlickrXMLTape.ShareModel

    /// Speeds in nanoseconds per byte of the 1.1 MB list with both threads at full speed:
    /// parse onto the tape 3.45, replay into a tree 1.55 (P 3.9 ms, R 1.75 ms).
    static let (parse, replay) = (3.45, 1.55)

    @Test func thePriorHoldsUntilEverySpeedIsSeen() {
        var model = Model(prior: 0.36)
        #expect(model.share == 0.36)
        model.learn(parse: Self.parse, replay: Self.replay)
        #expect(model.share == 0.36, "no calling thread's parse seen yet")
        model.learn(callerParse: Self.parse)
        #expect(model.share != 0.36)
    }

    /// Both threads at one speed: (P - R)/(2P - R), the fixed share's formula.
    @Test func equalSpeedsGiveTheFixedSharesFormula() {
        var model = Model(prior: 0.36)
        model.learn(parse: Self.parse, callerParse: Self.parse, replay: Self.replay)
        let expected = (Self.parse - Self.replay) / (2 * Self.parse - Self.replay)
        #expect(abs(model.share - expected) < 1e-9)
        #expect(abs(model.share - 0.36) < 0.03)
    }

    /// A slower parsing thread (the host slowing its vCPU) leaves the calling thread more; a
    /// calling thread at half speed (its parse and its replay) takes less.
    @Test func theFasterThreadParsesMore() {
        var even = Model(prior: 0.36)
        even.learn(parse: Self.parse, callerParse: Self.parse, replay: Self.replay)
        var slowParser = Model(prior: 0.36)
        slowParser.learn(parse: 1.5 * Self.parse, callerParse: Self.parse, replay: Self.replay)
        var slowCaller = Model(prior: 0.36)
        slowCaller.learn(parse: Self.parse, callerParse: 2 * Self.parse, replay: 2 * Self.replay)
        #expect(slowParser.share > even.share + 0.1)
        #expect(slowCaller.share < even.share - 0.1)
        // With the share the model gives, both threads end together by its own reckoning.
        let s = slowParser.share
        #expect(s < Model.bounds.upperBound)
        let parsingThread = (1 - s) * 1.5 * Self.parse
        let callingThread = s * Self.parse + (1 - s) * Self.replay
        #expect(abs(parsingThread - callingThread) < 1e-9)
    }

    /// Never no share (a replay as slow as the parse), never most of the document.
    @Test func theShareStaysWithinItsBounds() {
        var replayBound = Model(prior: 0.15)
        replayBound.learn(parse: 3, callerParse: 3, replay: 4)
        #expect(replayBound.share == Model.bounds.lowerBound)
        var parserCrawling = Model(prior: 0.36)
        parserCrawling.learn(parse: 100, callerParse: 3, replay: 1)
        #expect(parserCrawling.share == Model.bounds.upperBound)
    }

    /// The first sight of a speed is taken as it is; later ones move it by the weight; what is
    /// not a speed (zero, infinite, NaN) is ignored.
    @Test func speedsBlendByTheirWeight() {
        var model = Model(prior: 0.36)
        model.learn(parse: 4)
        #expect(model.parse == 4)
        model.learn(parse: 8)
        #expect(abs((model.parse ?? 0) - (4 + Model.weight * 4)) < 1e-9)
        let before = model
        model.learn(parse: 0, callerParse: .infinity, replay: .nan)
        #expect(model == before)
    }

    /// A large document mapped on two threads with the sink's own share teaches its model all
    /// three speeds (other tests map documents at the same time: they only add sights).
    @Test func aMappingTeachesItsSinksModel() throws {
        let bytes = Array(PhotoListXML.document(photos: 3_000).utf8)
        #expect(bytes.count > FlickrXMLTape.threshold)
        let sink = FlickrTreeSink()
        let (result, split) = bytes.withUnsafeBytes { FlickrXMLTape.mapReportingSplit($0, rule: MethodCatalog.listRule, into: sink) }
        _ = try result.get()
        #expect(split)
        let model = FlickrXMLTape.shareModels.withLock { $0[FlickrXMLTape.shareModelIndex(for: sink)] }
        #expect(model.parse != nil && model.callerParse != nil && model.replay != nil)
        #expect(Model.bounds.contains(model.share))
    }
}
