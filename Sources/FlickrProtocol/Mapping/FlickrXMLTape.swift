import CFlickrXML
import Foundation
import Synchronization

/// Large documents in two threads: the parse (libxml2 and the mapping rules) runs on a thread
/// of its own and records what the sink is told on a tape, chunk by chunk; the calling thread
/// replays each chunk into the sink (a ``FlickrNode`` tree, Lua tables) as it arrives. Building
/// and parsing then overlap — two cores at work — and the result is the one the one-thread path
/// builds (FlickrProtocolTests and FlickrLuaTests check both on every catalog example and on
/// large documents). The sink is only ever used on the calling thread.
///
/// A record on the tape (integers are 32-bit, native byte order; a record never spans chunks):
///   name:  1, length, bytes                         — makeName, tokens counted from 0
///   begin: 2, element, count, count × (token, length, bytes)   — values as libxml2 gave them
///   end:   3, element, placement, empty list (−1: none), text length (−1: none), bytes
///   done:  4, length, root name
///   fail:  5, line (0: unknown), length, message
package enum FlickrXMLTape {
    /// Documents from this size on take the two-thread path (below it, starting a thread
    /// costs more than the overlap gains).
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
            let writer = Writer(channel: channel)
            do throws(FlickrParseError) {
                writer.finish(root: try FlickrXMLMapper.map(input.bytes, rule: rule, into: writer))
            } catch {
                writer.finish(error: error)
            }
        }
        return replayAll(channel, into: sink)
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

    /// Replays every chunk of `channel` into `sink` until the writer closes it; the tape's
    /// outcome. Every chunk is taken and freed, also after a failure: the writer must finish
    /// before the document goes.
    private static func replayAll(_ channel: Channel, into sink: any FlickrXMLSink) -> Result<String, FlickrParseError> {
        var outcome: Result<String, FlickrParseError>?
        var replay = Replay(sink: sink)
        while let chunk = channel.take() {
            if outcome == nil { outcome = replay.play(chunk) }
            chunk.base.deallocate()
        }
        return outcome ?? .failure(FlickrParseError(message: "the parsing thread ended without a result"))
    }

    /// The two sides of ``map(_:rule:into:)`` apart, on this thread (for `flickr-bench xml-floor`):
    /// the seconds to parse `bytes` onto a tape, then to replay the whole tape into `sink`.
    /// The two-thread path takes about the larger of the two.
    package static func sides(_ bytes: UnsafeRawBufferPointer, rule: ListRule, into sink: any FlickrXMLSink) throws(FlickrParseError) -> (parse: Duration, replay: Duration) {
        let channel = Channel()
        let clock = ContinuousClock()
        let started = clock.now
        let writer = Writer(channel: channel)
        writer.finish(root: try FlickrXMLMapper.map(bytes, rule: rule, into: writer))
        let parsed = clock.now
        _ = try replayAll(channel, into: sink).get()
        return (parsed - started, clock.now - parsed)
    }

    /// The document, handed to the parsing thread (it is read only, and outlives the thread:
    /// ``map(_:rule:into:)`` waits for the last chunk).
    private struct Input: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }

    /// A chunk of tape: `count` bytes at `base`, malloc'd by the writer, freed by the reader.
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

    enum Op: UInt8 {
        case name = 1, begin, end, done, fail
    }

    static func code(_ p: FlickrXMLPlacement) -> UInt8 {
        switch p {
        case .root: 0
        case .field: 1
        case .fieldOverAttribute: 2
        case .newList: 3
        case .newListOverAttribute: 4
        case .listFromField: 5
        case .append: 6
        }
    }

    static func placement(_ code: UInt8) -> FlickrXMLPlacement? {
        switch code {
        case 0: .root
        case 1: .field
        case 2: .fieldOverAttribute
        case 3: .newList
        case 4: .newListOverAttribute
        case 5: .listFromField
        case 6: .append
        default: nil
        }
    }

    /// The parsing thread's sink: records on the tape, written straight into a malloc'd chunk
    /// (held through a pointer, as ``FlickrXMLMapper``'s state: a class property would pay an
    /// exclusivity check on every write).
    final class Writer: FlickrXMLSink {
        private struct Tape {
            var base: UnsafeMutableRawPointer
            var used = 0
            var capacity: Int
            /// The fill at which the chunk goes over: ``firstChunkBytes``, then ``chunkBytes``.
            var handOver = FlickrXMLTape.firstChunkBytes
        }

        private let channel: Channel
        private let tape: UnsafeMutablePointer<Tape>
        private var names = 0

        init(channel: Channel) {
            self.channel = channel
            tape = .allocate(capacity: 1)
            tape.initialize(to: Tape(base: .allocate(byteCount: FlickrXMLTape.chunkBytes, alignment: 8), capacity: FlickrXMLTape.chunkBytes))
        }

        deinit {
            tape.pointee.base.deallocate()
            tape.deinitialize(count: 1)
            tape.deallocate()
        }

        /// Room for `n` more bytes in the chunk (a record larger than a chunk gets a larger one).
        @inline(__always) private func reserve(_ n: Int) {
            guard tape.pointee.used + n > tape.pointee.capacity else { return }
            let capacity = max(tape.pointee.capacity * 2, tape.pointee.used + n)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            grown.copyMemory(from: tape.pointee.base, byteCount: tape.pointee.used)
            tape.pointee.base.deallocate()
            tape.pointee.base = grown
            tape.pointee.capacity = capacity
        }

        @inline(__always) private func byte(_ b: UInt8) {
            reserve(1)
            tape.pointee.base.storeBytes(of: b, toByteOffset: tape.pointee.used, as: UInt8.self)
            tape.pointee.used += 1
        }

        @inline(__always) private func int(_ v: Int) {
            reserve(4)
            tape.pointee.base.storeBytes(of: Int32(truncatingIfNeeded: v), toByteOffset: tape.pointee.used, as: Int32.self)
            tape.pointee.used += 4
        }

        @inline(__always) private func bytes(_ b: UnsafeRawBufferPointer) {
            int(b.count)
            reserve(b.count)
            if let source = b.baseAddress, b.count > 0 {
                (tape.pointee.base + tape.pointee.used).copyMemory(from: source, byteCount: b.count)
            }
            tape.pointee.used += b.count
        }

        /// Hands the chunk over when it is full (records never span chunks), or at the end.
        @inline(__always) private func recordDone(last: Bool = false) {
            guard last || tape.pointee.used >= tape.pointee.handOver else { return }
            channel.put(Chunk(base: tape.pointee.base, count: tape.pointee.used), last: last)
            tape.pointee.base = .allocate(byteCount: FlickrXMLTape.chunkBytes, alignment: 8)
            tape.pointee.used = 0
            tape.pointee.capacity = FlickrXMLTape.chunkBytes
            tape.pointee.handOver = FlickrXMLTape.chunkBytes
        }

        func makeName(_ name: String) -> Int {
            byte(Op.name.rawValue)
            var text = name
            text.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
            recordDone()
            names += 1
            return names - 1
        }

        /// One reservation per element, then plain stores: this runs for every element on the
        /// parsing thread, the slower of the two. Values go as libxml2 gave them (`&#38;` still
        /// encoded; the replay's ``FlickrXMLAttributes`` decodes, on the building thread).
        func begin(element: Int, attributes: FlickrXMLSinkAttributes) {
            let count = attributes.count
            let ranges = attributes.valueRanges
            @inline(__always) func value(_ i: Int) -> (UnsafePointer<CChar>?, Int) {
                guard let ranges, let start = ranges[3 * i], let end = ranges[3 * i + 1] else { return (nil, 0) }
                return (start, end - start)
            }
            var size = 9
            for i in 0..<count { size += 8 + value(i).1 }
            reserve(size)
            var at = tape.pointee.base + tape.pointee.used
            at.storeBytes(of: Op.begin.rawValue, as: UInt8.self)
            at.storeBytes(of: Int32(truncatingIfNeeded: element), toByteOffset: 1, as: Int32.self)
            at.storeBytes(of: Int32(truncatingIfNeeded: count), toByteOffset: 5, as: Int32.self)
            at += 9
            for i in 0..<count {
                let (start, length) = value(i)
                at.storeBytes(of: Int32(truncatingIfNeeded: attributes.tokens[i]), as: Int32.self)
                at.storeBytes(of: Int32(truncatingIfNeeded: length), toByteOffset: 4, as: Int32.self)
                if let start, length > 0 { (at + 8).copyMemory(from: start, byteCount: length) }
                at += 8 + length
            }
            tape.pointee.used += size
            recordDone()
        }

        func end(element: Int, text: UnsafeRawBufferPointer?, emptyList: Int?, placement: FlickrXMLPlacement) {
            byte(Op.end.rawValue)
            int(element)
            byte(FlickrXMLTape.code(placement))
            int(emptyList ?? -1)
            if let text { bytes(text) } else { int(-1) }
            recordDone()
        }

        func finish(root: String) {
            byte(Op.done.rawValue)
            var text = root
            text.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
            recordDone(last: true)
        }

        func finish(error: FlickrParseError) {
            byte(Op.fail.rawValue)
            int(error.line ?? 0)
            var text = error.message
            text.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
            recordDone(last: true)
        }
    }

    /// The Lua thread's reader: replays records into the sink.
    struct Replay: ~Copyable {
        let sink: any FlickrXMLSink
        /// The sink's token of each writer token (the sink makes names of its own too, `_text`).
        private var names: [Int] = []
        /// One element's attribute tokens and, in libxml2's layout (name, value start, value
        /// end), their values on the tape: rewritten for every element, so plain buffers (grown
        /// when an element has more attributes than any before) rather than arrays, whose
        /// appends cost a uniqueness check each.
        private var tokens: UnsafeMutableBufferPointer<Int>
        private var triples: UnsafeMutableBufferPointer<UnsafePointer<CChar>?>

        init(sink: any FlickrXMLSink) {
            self.sink = sink
            tokens = .allocate(capacity: 32)
            triples = .allocate(capacity: 96)
        }

        deinit {
            tokens.deallocate()
            triples.deallocate()
        }

        /// Room for `count` attributes.
        private mutating func reserve(_ count: Int) {
            guard count > tokens.count else { return }
            tokens.deallocate()
            triples.deallocate()
            tokens = .allocate(capacity: count)
            triples = .allocate(capacity: 3 * count)
        }

        /// Replays one chunk; the outcome once the tape says done or fail, else nil.
        mutating func play(_ chunk: Chunk) -> Result<String, FlickrParseError>? {
            let raw = UnsafeRawBufferPointer(start: chunk.base, count: chunk.count)
            do {
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
                        let text = String(decoding: slice(int()), as: UTF8.self)
                        names.append(sink.makeName(text))
                    case .begin?:
                        let element = names[int()]
                        let count = int()
                        reserve(count)
                        for i in 0..<count {
                            let token = int()
                            tokens[i] = token >= 0 ? names[token] : -1
                            let length = int()
                            let start = (chunk.base + at).assumingMemoryBound(to: CChar.self)
                            at += length
                            triples[3 * i] = nil
                            triples[3 * i + 1] = UnsafePointer(start)
                            triples[3 * i + 2] = UnsafePointer(start + length)
                        }
                        let raw = FlickrXMLAttributes(base: triples.baseAddress, count: count)
                        sink.begin(element: element, attributes: FlickrXMLSinkAttributes(tokens: UnsafeBufferPointer(rebasing: tokens[..<count]), raw: raw))
                    case .end?:
                        let element = names[int()]
                        let placement = FlickrXMLTape.placement(raw[at]) ?? .field
                        at += 1
                        let empty = int()
                        let length = int()
                        sink.end(element: element, text: length >= 0 ? slice(length) : nil, emptyList: empty >= 0 ? names[empty] : nil,
                                 placement: placement)
                    case .done?:
                        return .success(String(decoding: slice(int()), as: UTF8.self))
                    case .fail?:
                        let line = int()
                        let message = String(decoding: slice(int()), as: UTF8.self)
                        return .failure(FlickrParseError(message: message, line: line > 0 ? line : nil))
                    case nil:
                        return .failure(FlickrParseError(message: "XMLTape: unknown record \(raw[at - 1])"))
                    }
                }
                return nil
            }
        }
    }
}
