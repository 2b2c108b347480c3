import FlickrAPI

/// Any job, run or undone by the engine of its stored kind: the one place in the engine that maps
/// a ``JobKind`` to its runner (``RetagRunner``, ``EditRunner``, ``PushRunner``) and its undo planner
/// (``RetagPlanner``, ``EditPlanner``). The command line's and Lua's front ends configure this one
/// value; a new kind of job adds a case here.
public struct JobRunner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// How the job runs (``RunSettings``), handed to its kind's runner.
    public var settings = RunSettings()

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// Applies or resumes `job` with its kind's runner, holding `lock` (taken here when nil).
    public func run(_ job: String, lock: RunnerLock? = nil, progress: @Sendable (JobProgress) -> Void = { _ in },
                    notice: @Sendable @escaping (String) -> Void = { _ in },
                    shouldStop: @Sendable @escaping () -> Bool = { false }) async throws -> JobOutcome {
        switch try store.kind(of: job) {
        case .retag:
            var runner = RetagRunner(client: client, store: store)
            runner.settings = settings
            return try await runner.run(job, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
        case .edit:
            var runner = EditRunner(client: client, store: store)
            runner.settings = settings
            return try await runner.run(job, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
        case .push:
            var runner = PushRunner(client: client, store: store)
            runner.settings = settings
            return try await runner.run(job, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
        }
    }

    /// Plans the undo of `job` with its kind's planner (reads only; the undo is a job of the
    /// same kind, named in its `undo_of`).
    public func planUndo(of job: String, force: Bool = false) async throws -> PlannedUndo {
        switch try store.kind(of: job) {
        case .retag: .retag(try await RetagPlanner(client: client, store: store).planUndo(of: job, force: force))
        case .edit: .edit(try await EditPlanner(client: client, store: store).planUndo(of: job, force: force))
        case .push: .push(try PushPlanner.planUndo(of: job, store: store))
        }
    }
}

/// An undo as its kind's planner made it.
public enum PlannedUndo: Sendable {
    case retag(RetagPlanner.Result)
    case edit(EditPlanner.Result)
    case push(PushPlanner.Result)

    /// The undo job's id.
    public var job: String {
        switch self {
        case .retag(let r): r.job
        case .edit(let r): r.job
        case .push(let r): r.job ?? ""
        }
    }

    /// Photos it will change.
    public var photos: Int {
        switch self {
        case .retag(let r): r.changed
        case .edit(let r): r.changed
        case .push(let r): r.changed
        }
    }

    /// Nothing to change and nothing in conflict: there is nothing to undo.
    public var isEmpty: Bool {
        switch self {
        case .retag(let r): r.changed == 0 && r.conflicts == 0
        case .edit(let r): r.changed == 0 && r.conflicts == 0
        case .push(let r): r.changed == 0 && r.reported == 0
        }
    }
}
