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
package enum FlickrXMLTape {
    /// Documents from this size on take the two-thread path (below it, handing the document
    /// over costs more than the overlap gains).
    package static let threshold = FlickrXML.defaultPipelineThreshold
    /// Chunk size: big enough that handing over is rare, small enough that replay starts soon.
    package static let chunkBytes = 64 * 1024
    /// The first chunk goes over sooner: until it does, the building thread has nothing to do
    /// (a 64 KiB first chunk kept it waiting for about a twentieth of a 1 MB parse).
    package static let firstChunkBytes = 8 * 1024

    /// Parses `bytes` on another thread and replays the events into `sink` on this one; the
    /// root element's name, or the parse error. Returns only once the parsing thread is done
    /// with `bytes`.
    package static func map(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink) -> Result<String, FlickrParseError> {
        let channel = Channel()
        let input = Input(bytes: bytes)
        // A new thread placed beside its creator makes the two take turns on one core (as slow
        // as one thread); Linux did that for stretches of 20 parses in a row. The parser keeps
        // off the building thread's CPU when it may run elsewhere (for its few milliseconds).
        let callerCPU = fx_current_cpu()
        ParsingThreads.shared.run {
            fx_avoid_cpu(callerCPU)
            record(input.bytes, onto: channel)
        }
        return replayAll(channel, rule: rule, into: sink)
    }

    /// Parses `bytes` onto the tape of `channel` (``fx_record``), which it closes with a done
    /// or fail record.
    private static func record(_ bytes: UnsafeRawBufferPointer, onto channel: Channel) {
        var sink = fx_tape_sink(put: { ctx, chunk, count, last in
            let channel = Unmanaged<Channel>.fromOpaque(ctx!).takeUnretainedValue()
            channel.put(Chunk(base: UnsafeMutableRawPointer(chunk!), count: count), last: last != 0)
        }, ctx: Unmanaged.passUnretained(channel).toOpaque())
        withExtendedLifetime(channel) {
            _ = fx_record(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, &sink,
                          FlickrXMLTape.firstChunkBytes, FlickrXMLTape.chunkBytes)
        }
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
    /// outcome. Every chunk is taken and freed, also after a failure: the recorder must finish
    /// before the document goes.
    private static func replayAll(_ channel: Channel, rule: ListRule, into sink: any FlickrXMLSink) -> Result<String, FlickrParseError> {
        var outcome: Result<String, FlickrParseError>?
        var replay = Replay(mapper: FlickrXMLMapper(rule: rule, sink: sink))
        while let chunk = channel.take() {
            if outcome == nil { outcome = replay.play(chunk) }
            free(chunk.base)  // malloc'd by fx_record
        }
        return outcome ?? .failure(FlickrParseError(message: "the parsing thread ended without a result"))
    }

    /// The two sides of ``map(_:rule:into:)`` apart, on this thread (for `flickr-bench xml-floor`):
    /// the seconds to parse `bytes` onto a tape, then to replay the whole tape through the rules
    /// into `sink`.
    /// The two-thread path takes about the larger of the two.
    package static func sides(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink) throws(FlickrParseError) -> (parse: Duration, replay: Duration) {
        let channel = Channel()
        let clock = ContinuousClock()
        let started = clock.now
        record(bytes, onto: channel)
        let parsed = clock.now
        _ = try replayAll(channel, rule: rule, into: sink).get()
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
        /// How long a taker spins before sleeping (well over the gap between two chunks, and
        /// about what a new thread can take to start on an idle vCPU).
        static let spinLimit: Duration = .milliseconds(2)

        func put(_ chunk: Chunk, last: Bool) {
            condition.lock()
            chunks.append(chunk)
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
        case name = 1, begin, text, end, done, fail
    }

    /// The calling thread's reader: replays the events through the mapping rules into the sink.
    struct Replay: ~Copyable {
        let mapper: FlickrXMLMapper
        /// Each recorded name as a C string of its own, by token: one pointer per name for the
        /// whole document, as libxml2's interning gives the one-thread path (the mapper keys
        /// its caches by it). Freed with the replay.
        private var names: [UnsafeMutablePointer<CChar>] = []
        /// One element's attributes in libxml2's layout (name, value start, value end), the
        /// values on the tape: rewritten for every element, so a plain buffer (grown when an
        /// element has more attributes than any before) rather than an array.
        private var triples: UnsafeMutableBufferPointer<UnsafePointer<CChar>?>

        init(mapper: FlickrXMLMapper) {
            self.mapper = mapper
            triples = .allocate(capacity: 96)
        }

        deinit {
            for name in names { name.deallocate() }
            triples.deallocate()
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
                    let name = UnsafeMutablePointer<CChar>.allocate(capacity: text.count + 1)
                    if let source = text.baseAddress { UnsafeMutableRawPointer(name).copyMemory(from: source, byteCount: text.count) }
                    name[text.count] = 0
                    names.append(name)
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
                    mapper.startElement(element, attributes: FlickrXMLAttributes(base: triples.baseAddress, count: count))
                case .text?:
                    mapper.characters(slice(int()))
                case .end?:
                    mapper.endElement()
                case .done?:
                    guard let root = mapper.rootName else { return .failure(FlickrParseError(message: "no root element")) }
                    return .success(root)
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
