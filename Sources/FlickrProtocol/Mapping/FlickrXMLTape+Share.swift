import Synchronization

extension FlickrXMLTape {
    /// How large the calling thread's share of a document is: learned from the speeds the two
    /// threads showed in the documents mapped before, one model per kind of sink.
    ///
    /// For a document of B bytes, the parsing thread parses (1 - s)·B at ``parse`` nanoseconds
    /// a byte, while the calling thread parses s·B at ``callerParse`` and then replays the whole
    /// at ``replay`` (the first part's replay overlapping the parsing thread's work). The two
    /// end together at s = (parse - replay) / (parse - replay + callerParse); with both threads
    /// at one speed that is the (P - R)/(2P - R) of ``treeCallerShare``.
    ///
    /// Why learn: the threads' speeds are not the machine's constants. On this VM the host runs
    /// one vCPU at about half speed while the other is busy, in spells of minutes: the parsing
    /// thread's part of the 1.1 MB list of scripts/bench then took 6.7-6.9 ms where it takes
    /// 3.4-3.7 (the split taken every time), and the whole document as long as on one thread.
    /// With the speeds seen, the share grows when the parsing thread is the slow one and shrinks
    /// when the calling thread is. A value type, unit-tested apart from the threads
    /// (FlickrProtocolTests' TapeShareTests).
    package struct ShareModel: Sendable, Equatable {
        /// The share before every speed has been seen once (the fixed share measured for this
        /// kind of sink: ``treeCallerShare``, ``tableCallerShare``).
        package let prior: Double
        /// Nanoseconds per document byte of the parsing thread's parse (its wait for the other
        /// part's verdict left out), the calling thread's parse, and the calling thread's replay;
        /// nil until seen.
        package private(set) var parse: Double?
        package private(set) var callerParse: Double?
        package private(set) var replay: Double?

        /// The weight of the newest document in each speed: a spell of a slow vCPU shows in
        /// the share within a few documents, one document's noise moves it little.
        package static let weight = 0.3
        /// The share stays within these bounds: some share always, so that a large list is
        /// always cut and both parsers' speeds keep being seen; never most of the document,
        /// since the calling thread also replays the whole.
        package static let bounds: ClosedRange<Double> = 0.05...0.6

        /// A model that gives `prior` until it has seen each speed.
        package init(prior: Double) {
            self.prior = prior
        }

        /// The share for the next document.
        package var share: Double {
            guard let parse, let callerParse, let replay else { return prior }
            let lead = parse - replay
            let s = lead > 0 ? lead / (lead + callerParse) : 0
            return min(max(s, Self.bounds.lowerBound), Self.bounds.upperBound)
        }

        /// Moves each speed toward what one document showed (nil: not seen in it; the first
        /// sight of a speed is taken as it is).
        package mutating func learn(parse p: Double? = nil, callerParse c: Double? = nil, replay r: Double? = nil) {
            func blend(_ old: Double?, _ new: Double?) -> Double? {
                guard let new, new.isFinite, new > 0 else { return old }
                guard let old else { return new }
                return old + Self.weight * (new - old)
            }
            parse = blend(parse, p)
            callerParse = blend(callerParse, c)
            replay = blend(replay, r)
        }
    }

    /// The models in use in this process: for a ``FlickrXMLSink`` tree and for other sinks (Lua
    /// tables), whose replays differ in speed. Shared by every document mapped, on any thread.
    package static let shareModels = Mutex([ShareModel(prior: treeCallerShare), ShareModel(prior: tableCallerShare)])

    /// The index of `sink`'s model in ``shareModels``.
    package static func shareModelIndex(for sink: any FlickrXMLSink) -> Int {
        sink is FlickrTreeSink ? 0 : 1
    }

    /// The calling thread's share of the parse for `sink`, as its model gives it now.
    package static func callerShare(for sink: any FlickrXMLSink) -> Double {
        let index = shareModelIndex(for: sink)
        return shareModels.withLock { $0[index].share }
    }

    /// Teaches model `index` what one document showed (see ``ShareModel/learn(parse:callerParse:replay:)``).
    static func learn(_ index: Int, parse: Double? = nil, callerParse: Double? = nil, replay: Double? = nil) {
        shareModels.withLock { $0[index].learn(parse: parse, callerParse: callerParse, replay: replay) }
    }

    /// Nanoseconds per byte of `duration` over `bytes` (nil for no bytes).
    static func nanosecondsPerByte(_ duration: Duration, _ bytes: Int) -> Double? {
        bytes > 0 ? duration / .nanoseconds(1) / Double(bytes) : nil
    }
}
