import CFlickrXML
import Foundation
import Synchronization

/// Large documents in two threads: libxml2 parses on a thread of its own, and C code there
/// (CFlickrXML's `fx_record`) writes its events on a tape, chunk by chunk; the calling thread
/// replays each chunk through the mapping rules (``FlickrXMLMapper``) into the sink (a
/// ``FlickrNode`` tree, Lua tables) as it arrives. Building and parsing then overlap — two
/// cores at work — and the result is the one the one-thread path builds (FlickrProtocolTests and
/// FlickrLuaTests check both on every catalog example and on large documents). The mapper and
/// the sink are only ever used on the calling thread.
///
/// The parsing side does no more than record because it is the slower side: with the rules and
/// the recording in Swift it took 4.2 ms of the 1.1 MB list of scripts/bench, libxml2 alone
/// 3.45. The record layout is described in CFlickrXML's tape.c.
///
/// The calling thread also parses a share of the document, as long as its replay takes less
/// time than the parse: the document is cut at a start tag (``Split``), the parsing thread
/// parses up to it and this thread the rest onto a tape of its own, then replays the first tape
/// and the second. For a tree (replay less than half the parse) the 1.1 MB list then maps in
/// 3.3 ms where parsing it alone onto a tape takes 3.9 (medians of 20, this VM at full speed:
/// 4.1 ms before); Lua tables, whose replay takes nearly as long as the parse, take a small
/// share (``tableCallerShare``). The share follows the speeds each thread shows (``ShareModel``):
/// when the host slows one vCPU, the other thread parses more.
package enum FlickrXMLTape {
    /// Documents from this size on take the two-thread path (below it, handing the document
    /// over costs more than the overlap gains).
    package static let threshold = FlickrXML.defaultPipelineThreshold
    /// Chunk size for a tree: big enough that handing over is rare, small enough that replay
    /// starts soon.
    package static let chunkBytes = 64 * 1024
    /// Chunk size for other sinks (Lua tables), whose replay takes about as long as the parse,
    /// so that the building thread stays about a chunk behind the parser to the end: what it
    /// still has to replay once the parse is over is about the last full chunk. With 64 KiB
    /// chunks that was ~230 us of the 1.1 MB list (a 64 KiB chunk took ~300 us to replay while
    /// the parser went on); 16 KiB: 1.1 MB list 4.0-4.16 ms against 4.17-4.35 (lower six of 8
    /// alternating runs, medians of 9), 200 500-photo pages from a flickr -e loop against the
    /// sink 821-861/s against 726-806/s. A tree replays in half the parse's time and lost ~3 %.
    package static let tableChunkBytes = 16 * 1024
    /// The first chunk goes over sooner: until it does, the building thread has nothing to do
    /// (a 64 KiB first chunk kept it waiting for about a twentieth of a 1 MB parse).
    package static let firstChunkBytes = 8 * 1024

    /// The share of a document that the calling thread parses itself when it builds a
    /// ``FlickrNode`` tree: the document is cut at a start tag (``Split``), the parsing thread
    /// parses up to it and the calling thread the rest, then replays both. The calling thread's
    /// part is the smaller because it also replays the whole: parse P, replay R, it ends at
    /// about max((1 - s)·P, s·P + (1 - s)·R) + s·R for share s, least near s = (P - R)/(2P - R);
    /// P 3.9 ms and R 1.75 ms on the 1.1 MB list of scripts/bench give 0.36. The share a
    /// process starts with; then its tree model's (``ShareModel``).
    package static let treeCallerShare = 0.36
    /// For other sinks (Lua tables), whose replay takes nearly as long as the parse (R 3.0-3.5
    /// ms against P 3.9 on the 1.1 MB list), the same model gives (P - R)/(2P - R) = 0.09-0.2:
    /// this thread parses the last ~15 % while the parsing thread records the first chunks, then
    /// replays a backlog it catches up with by the end of the parse. Shares 0, 0.1, 0.15 and 0.2
    /// in turns in one process (80 runs each, three times, the machine slow and noisy that day):
    /// medians 10.99-11.02 ms with none, 10.43-10.64 with 0.15. The share a process starts
    /// with; then its model's for these sinks (``ShareModel``).
    package static let tableCallerShare = 0.15

    /// The chunk size for `sink` (see ``tableChunkBytes``).
    static func chunkBytes(for sink: any FlickrXMLSink) -> Int {
        sink is FlickrTreeSink ? chunkBytes : tableChunkBytes
    }

    /// Parses `bytes` on another thread and replays the events into `sink` on this one; the
    /// root element's name, or the parse error. With a `callerShare` and a place to cut the
    /// document (``Split``), this thread parses that share at its end meanwhile. Returns only
    /// once the parsing thread is done with `bytes`.
    package static func map(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink,
                            callerShare: Double? = nil) -> Result<String, FlickrParseError> {
        mapReportingSplit(bytes, rule: rule, into: sink, callerShare: callerShare).result
    }

    /// ``map(_:rule:into:callerShare:)``, and whether the document was mapped in two parts (for
    /// tests: a split is taken only when it checks). Without a `callerShare`, the share is the
    /// sink's model's (``ShareModel``), and each thread's speed in this document teaches it.
    package static func mapReportingSplit(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink,
                                          callerShare: Double? = nil) -> (result: Result<String, FlickrParseError>, split: Bool) {
        let channel = Channel()
        let input = Input(bytes: bytes)
        let model = shareModelIndex(for: sink)
        let split = Split(bytes, callerShare: callerShare ?? Self.callerShare(for: sink))
        // A new thread placed beside its creator makes the two take turns on one core (as slow
        // as one thread); Linux did that for stretches of 20 parses in a row. The parser keeps
        // off the building thread's CPU when it may run elsewhere (for its few milliseconds).
        let callerCPU = fx_current_cpu()
        let chunk = chunkBytes(for: sink)
        ParsingThreads.shared.run {
            fx_avoid_cpu(callerCPU)
            channel.markStart()
            record(input.bytes, split: split, chunk: chunk, onto: channel)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let rest = split.map { recordRest(of: input.bytes, at: $0) }
        let parsed = clock.now - start
        let outcome = replayAll(channel, rest: rest, rule: rule, into: sink)
        // What each thread's speed was in this document (the parsing thread's from its start to
        // the tape's end, its wait for the verdict left out), taught before returning; not from
        // a document that failed, whose parse and replay stopped short of its end.
        if case .success = outcome.result {
            let parsing = channel.recordingTime.map { $0 - .nanoseconds(split?.waited.pointee ?? 0) }
            learn(model, parse: parsing.flatMap { nanosecondsPerByte($0, outcome.split ? split?.offset ?? 0 : bytes.count) },
                  callerParse: split.flatMap { nanosecondsPerByte(parsed, bytes.count - $0.offset) },
                  replay: nanosecondsPerByte(outcome.replayTime, bytes.count))
        }
        return (outcome.result, outcome.split)
    }

    /// Parses `bytes` onto the tape of `channel` (``fx_record``), which it closes with a done
    /// or fail record — or, with a split, up to the split, with a split record.
    private static func record(_ bytes: UnsafeRawBufferPointer, split: Split? = nil, chunk: Int, onto channel: Channel) {
        var sink = tapeSink(channel)
        withExtendedLifetime(channel) {
            let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            if let split {
                withUnsafePointer(to: split.c) { c in
                    _ = fx_record_split(base, bytes.count, c, &sink, FlickrXMLTape.firstChunkBytes, chunk)
                }
            } else {
                _ = fx_record(base, bytes.count, &sink, FlickrXMLTape.firstChunkBytes, chunk)
            }
        }
    }

    /// Where `fx_record` hands its chunks: onto `channel` (which the caller keeps alive while
    /// recording).
    private static func tapeSink(_ channel: Channel) -> fx_tape_sink {
        fx_tape_sink(put: { ctx, chunk, count, last in
            let channel = Unmanaged<Channel>.fromOpaque(ctx!).takeUnretainedValue()
            channel.put(Chunk(base: UnsafeMutableRawPointer(chunk!), count: count), last: last != 0)
        }, ctx: Unmanaged.passUnretained(channel).toOpaque())
    }

    /// The part of `bytes` after the split, parsed here onto a tape of its own behind the open
    /// elements' bare start tags; the verdict is given to the first part's parser at once.
    private static func recordRest(of bytes: UnsafeRawBufferPointer, at split: Split) -> Rest {
        var document: [UInt8] = []
        document.reserveCapacity(split.prefix.count + bytes.count - split.offset)
        document += split.prefix
        document += UnsafeRawBufferPointer(rebasing: bytes[split.offset...])
        let channel = Channel()
        let rc = document.withUnsafeBytes { raw -> Int32 in
            var sink = tapeSink(channel)
            return withExtendedLifetime(channel) {
                fx_record(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, &sink,
                          FlickrXMLTape.chunkBytes, FlickrXMLTape.chunkBytes)
            }
        }
        fx_set_verdict(split.verdict, rc == 0 ? 1 : 2)
        var chunks: [Chunk] = []
        while let chunk = channel.take() { chunks.append(chunk) }
        return Rest(chunks: chunks, split: split)
    }

    /// Where a document is cut in two (CFlickrXML's `fx_find_split`): the offset of a start tag
    /// near the end of the parsing thread's share, and the elements open there, which the part
    /// after it is parsed behind (as bare start tags, their events not replayed). The parsing
    /// thread checks at the offset that these are the elements open there, with no namespace
    /// in scope and no transcoding, and that the part after it parsed; only then does it stop
    /// there. Otherwise it parses on to the end and the second tape is dropped, so a document
    /// maps as the one-thread path maps it, errors and their lines included.
    final class Split: @unchecked Sendable {
        /// The C face: offset, names, depth, the verdict the parsing thread waits for, and
        /// where it says how long it waited.
        let c: fx_split
        /// Where the cut is: the '<' of a start tag.
        var offset: Int { c.offset }
        /// How many elements are open there.
        var depth: Int { Int(c.depth) }
        /// The open elements as bare start tags: `<rsp><photos>`.
        let prefix: [UInt8]
        let verdict: UnsafeMutablePointer<Int32>
        /// Nanoseconds the parsing thread waited for the verdict (0 when it did not).
        let waited: UnsafeMutablePointer<Int64>
        private let names: UnsafeMutablePointer<CChar>
        private static let namesCapacity = 1024

        /// A split of `bytes` leaving about `callerShare` of it after the cut; nil for no share
        /// or when no place to cut is found.
        init?(_ bytes: UnsafeRawBufferPointer, callerShare: Double) {
            guard callerShare > 0, callerShare < 1, let base = bytes.baseAddress else { return nil }
            let names = UnsafeMutablePointer<CChar>.allocate(capacity: Self.namesCapacity)
            var offset = 0
            var depth: Int32 = 0
            let target = Int(Double(bytes.count) * (1 - callerShare))
            guard fx_find_split(base.assumingMemoryBound(to: CChar.self), bytes.count, target, &offset, names,
                                Self.namesCapacity, &depth) != 0, offset > 0 else {
                names.deallocate()
                return nil
            }
            var prefix: [UInt8] = []
            var at = names
            for _ in 0..<Int(depth) {
                let name = String(cString: at)
                prefix += Array("<\(name)>".utf8)
                at += name.utf8.count + 1
            }
            verdict = .allocate(capacity: 1)
            verdict.initialize(to: 0)
            waited = .allocate(capacity: 1)
            waited.initialize(to: 0)
            self.names = names
            self.prefix = prefix
            c = fx_split(offset: offset, names: UnsafePointer(names), depth: depth, verdict: verdict, waited_ns: waited)
        }

        deinit {
            names.deallocate()
            verdict.deallocate()
            waited.deallocate()
        }
    }

    /// The tape of the part after a split, replayed when the first part's tape ends at the split.
    struct Rest {
        let chunks: [Chunk]
        /// Where it begins, with its bare start tags (`split.depth`, not replayed); kept until
        /// the parsing thread is done (it reads the split's names and verdict).
        let split: Split
    }

    /// The threads documents are parsed on, kept parked between documents: starting a thread
    /// for each (as this did first) cost about a tenth of a 190 kB page's parse, and the
    /// building thread waits for that before its first chunk. A document that finds every
    /// parked thread busy (maps running at once) gets a new one; at most ``parkedLimit`` wait
    /// for work, the others end after their document.
    final class ParsingThreads: @unchecked Sendable {
        static let shared = ParsingThreads()
        /// Parked threads kept at most (a process maps a few documents at once at most).
        static let parkedLimit = 2

        /// One parked thread: waits on its condition for a job, runs it, parks again.
        private final class Parked: @unchecked Sendable {
            let condition = NSCondition()
            var job: (@Sendable () -> Void)?
        }

        private let lock = NSLock()
        private var parked: [Parked] = []
        private var started = 0

        /// Threads started so far, and how many are parked now (for tests).
        var counts: (started: Int, parked: Int) {
            lock.lock()
            defer { lock.unlock() }
            return (started, parked.count)
        }

        /// Runs `job` on a parked thread, or on a new one when none is free.
        func run(_ job: @escaping @Sendable () -> Void) {
            lock.lock()
            let free = parked.popLast()
            if free == nil { started += 1 }
            lock.unlock()
            let worker = free ?? Parked()
            worker.condition.lock()
            worker.job = job
            worker.condition.signal()
            worker.condition.unlock()
            guard free == nil else { return }
            let thread = Thread { [self] in serve(worker) }
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// The thread's life: each job given, until parking is refused.
        private func serve(_ worker: Parked) {
            while true {
                worker.condition.lock()
                while worker.job == nil { worker.condition.wait() }
                let job = worker.job!
                worker.job = nil
                worker.condition.unlock()
                job()
                lock.lock()
                let keep = parked.count < Self.parkedLimit
                if keep { parked.append(worker) }
                lock.unlock()
                if !keep { return }
            }
        }
    }

    /// Replays every chunk of `channel` into `sink` until the recorder closes it; the tape's
    /// outcome, and the time spent replaying (waits for chunks left out). Every chunk is taken
    /// and freed, also after a failure: the recorder must finish before the document goes.
    private static func replayAll(_ channel: Channel, rest: Rest? = nil, rule: ListRule, into sink: any FlickrXMLSink)
        -> (result: Result<String, FlickrParseError>, split: Bool, replayTime: Duration) {
        var outcome: Result<String, FlickrParseError>?
        var second = false
        var replay = Replay(mapper: FlickrXMLMapper(rule: rule, sink: sink))
        let clock = ContinuousClock()
        var replayTime = Duration.zero
        /// Plays `chunk` (while the outcome is open), timed.
        func play(_ chunk: Chunk) {
            guard outcome == nil else { return }
            let start = clock.now
            outcome = replay.play(chunk)
            replayTime += clock.now - start
        }
        while let chunk = channel.take() {
            play(chunk)
            free(chunk.base)  // malloc'd by fx_record
        }
        if let rest {
            // The first part ended at the split: the rest of the document is the second tape.
            second = outcome == nil && replay.reachedSplit
            if second { replay.beginSecondTape(skipping: rest.split.depth) }
            for chunk in rest.chunks {
                if second { play(chunk) }
                free(chunk.base)
            }
        }
        return (outcome ?? .failure(FlickrParseError(message: "the parsing thread ended without a result")), second, replayTime)
    }

    /// The two sides of ``map(_:rule:into:)`` apart, on this thread (for `flickr-bench xml-floor`):
    /// the seconds to parse `bytes` onto a tape, then to replay the whole tape through the rules
    /// into `sink`.
    /// The two-thread path takes about the larger of the two.
    package static func sides(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink) throws(FlickrParseError) -> (parse: Duration, replay: Duration) {
        let channel = Channel()
        let clock = ContinuousClock()
        let started = clock.now
        record(bytes, chunk: chunkBytes(for: sink), onto: channel)
        let parsed = clock.now
        _ = try replayAll(channel, rule: rule, into: sink).result.get()
        return (parsed - started, clock.now - parsed)
    }

    /// The document, handed to the parsing thread (it is read only, and outlives the thread:
    /// ``map(_:rule:into:)`` waits for the last chunk).
    private struct Input: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }

    /// A chunk of tape: `count` bytes at `base`, malloc'd by `fx_record`, freed by the reader.
    struct Chunk: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let count: Int
    }

    /// Chunks from the parsing thread to the building thread; `nil` after the last.
    ///
    /// The taker spins a little before it sleeps: chunks come every few hundred microseconds,
    /// and a thread that sleeps between them lets its core go idle, so that every chunk pays a
    /// wake-up (in a virtual machine, a halted vCPU brought back through the host). Sleeping
    /// each time, the 1.1 MB list of scripts/bench took 7.7–8 ms in stretches of 20 parses;
    /// spinning, 4.4–4.7 ms. Spinning keeps the hand-over in memory, yields the core on every
    /// round, and past ``spinLimit`` sleeps on the condition as before. (A spin that stopped for
    /// the rest of a document after one late chunk lost the gain: most documents have one.)
    final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var chunks: [Chunk] = []
        private var next = 0
        private var closed = false
        /// Chunks put so far, plus one once closed: read without the lock while spinning.
        private let published = Atomic<Int>(0)
        /// When the recorder began (``markStart()``) and when it closed the tape.
        private var started: ContinuousClock.Instant?
        private var closedAt: ContinuousClock.Instant?
        /// How long a taker spins before sleeping (well over the gap between two chunks, and
        /// about what a new thread can take to start on an idle vCPU).
        static let spinLimit: Duration = .milliseconds(2)

        /// The recorder begins (on its thread, before its first chunk).
        func markStart() {
            condition.lock()
            started = ContinuousClock.now
            condition.unlock()
        }

        /// From the recorder's start to the tape's end, once both are known.
        var recordingTime: Duration? {
            condition.lock()
            defer { condition.unlock() }
            guard let started, let closedAt else { return nil }
            return closedAt - started
        }

        func put(_ chunk: Chunk, last: Bool) {
            condition.lock()
            chunks.append(chunk)
            if last && !closed { closedAt = ContinuousClock.now }
            closed = closed || last
            published.store(chunks.count + (closed ? 1 : 0), ordering: .releasing)
            condition.signal()
            condition.unlock()
        }

        func take() -> Chunk? {
            spinUntilPublished()
            condition.lock()
            defer { condition.unlock() }
            while next == chunks.count && !closed { condition.wait() }
            guard next < chunks.count else { return nil }
            next += 1
            return chunks[next - 1]
        }

        /// Returns once more has been put than taken (or closed), or after ``spinLimit``.
        /// `next` is only written by the taker, so reading it here needs no lock.
        private func spinUntilPublished() {
            let clock = ContinuousClock()
            let deadline = clock.now + Self.spinLimit
            var round = 0
            while published.load(ordering: .acquiring) <= next {
                round += 1
                if round % 64 == 0 && clock.now >= deadline { return }
                sched_yield()
            }
        }
    }

    /// The records of the tape (CFlickrXML's tape.c writes them).
    enum Op: UInt8 {
        case name = 1, begin, text, end, done, fail, split
    }

    /// The calling thread's reader: replays the events through the mapping rules into the sink.
    struct Replay: ~Copyable {
        let mapper: FlickrXMLMapper
        /// Each recorded name as a C string of its own, by token: one pointer per name for the
        /// whole document, as libxml2's interning gives the one-thread path (the mapper keys
        /// its caches by it). Freed with the replay.
        private var names: [UnsafeMutablePointer<CChar>] = []
        /// Every name allocated (the second tape of a split reuses the first's by content).
        private var owned: [UnsafeMutablePointer<CChar>] = []
        /// The first tape's names by content, once a second tape is replayed: a name keeps one
        /// pointer across both.
        private var byContent: [String: UnsafeMutablePointer<CChar>] = [:]
        /// Begin records still to pass over: the second tape's bare start tags.
        private var skipBegins = 0
        /// Whether the tape ended with a split record.
        private(set) var reachedSplit = false
        /// One element's attributes in libxml2's layout (name, value start, value end), the
        /// values on the tape: rewritten for every element, so a plain buffer (grown when an
        /// element has more attributes than any before) rather than an array.
        private var triples: UnsafeMutableBufferPointer<UnsafePointer<CChar>?>

        init(mapper: FlickrXMLMapper) {
            self.mapper = mapper
            triples = .allocate(capacity: 96)
        }

        deinit {
            for name in owned { name.deallocate() }
            triples.deallocate()
        }

        /// Makes ready for the second tape of a split: its tokens count from 0 again, its names
        /// are the first tape's where they match, and its first `depth` begin records (the bare
        /// start tags of the elements already open) are passed over.
        mutating func beginSecondTape(skipping depth: Int) {
            for name in names { byContent[String(cString: name)] = name }
            names = []
            skipBegins = depth
        }

        /// Replays one chunk; the outcome once the tape says done or fail, else nil.
        mutating func play(_ chunk: Chunk) -> Result<String, FlickrParseError>? {
            let raw = UnsafeRawBufferPointer(start: chunk.base, count: chunk.count)
            var at = 0
            func int() -> Int {
                let v = raw.loadUnaligned(fromByteOffset: at, as: Int32.self)
                at += 4
                return Int(v)
            }
            func slice(_ n: Int) -> UnsafeRawBufferPointer {
                defer { at += n }
                return UnsafeRawBufferPointer(rebasing: raw[at..<(at + n)])
            }
            while at < raw.count {
                let op = Op(rawValue: raw[at])
                at += 1
                switch op {
                case .name?:
                    let text = slice(int())
                    if !byContent.isEmpty, let known = byContent[String(decoding: text, as: UTF8.self)] {
                        names.append(known)
                        continue
                    }
                    let name = UnsafeMutablePointer<CChar>.allocate(capacity: text.count + 1)
                    if let source = text.baseAddress { UnsafeMutableRawPointer(name).copyMemory(from: source, byteCount: text.count) }
                    name[text.count] = 0
                    names.append(name)
                    owned.append(name)
                case .begin?:
                    let element = names[int()]
                    let count = int()
                    if 3 * count > triples.count {
                        triples.deallocate()
                        triples = .allocate(capacity: 3 * count)
                    }
                    for i in 0..<count {
                        let token = int()
                        let length = int()
                        let start = (chunk.base + at).assumingMemoryBound(to: CChar.self)
                        at += length
                        triples[3 * i] = token >= 0 ? UnsafePointer(names[token]) : nil
                        triples[3 * i + 1] = UnsafePointer(start)
                        triples[3 * i + 2] = UnsafePointer(start + length)
                    }
                    if skipBegins > 0 {
                        skipBegins -= 1
                        continue
                    }
                    mapper.startElement(element, attributes: FlickrXMLAttributes(base: triples.baseAddress, count: count))
                case .text?:
                    mapper.characters(slice(int()))
                case .end?:
                    mapper.endElement()
                case .done?:
                    guard let root = mapper.rootName else { return .failure(FlickrParseError(message: "no root element")) }
                    return .success(root)
                case .split?:
                    reachedSplit = true
                    return nil
                case .fail?:
                    let line = int()
                    return .failure(FlickrXMLParser.failure(message: String(decoding: slice(int()), as: UTF8.self), line: line))
                case nil:
                    return .failure(FlickrParseError(message: "XMLTape: unknown record \(raw[at - 1])"))
                }
            }
            return nil
        }
    }
}
