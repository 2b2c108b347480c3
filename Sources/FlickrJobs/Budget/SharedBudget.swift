import FlickrAPI
import FlickrProtocol
import Foundation
import GRDB
import Synchronization

/// One budget per API key for every process on the machine, kept in the job database: each
/// call (retries included) is recorded in a sliding window, calls are spaced evenly (no
/// opening burst), and a 429's `Retry-After` holds every process back. Waiting happens
/// outside any transaction.
public final class SharedBudget: CallPacer {
    public let budget: CallBudget
    /// The job database's path, and the database once opened.
    private let path: String
    private let opened = Mutex<JobStore?>(nil)
    /// Slack for the time between stamping a call here and Flickr receiving it (a loaded
    /// machine can stall a process for most of a second in between; against an hour it is
    /// nothing).
    static let margin = 1.0

    /// A budget kept in the job database at `path`, opened (created) at the first call: a
    /// process that makes no call never touches it (opening it took ~2 ms of a 9 ms `flickr -e ''`).
    /// A database that cannot be opened fails the call with the reason (the next call tries again).
    public init(budget: CallBudget, path: String) {
        self.budget = budget
        self.path = path
    }

    /// The database, opened on first use. Opened under the lock: calls that start together
    /// wait for the one that opens it instead of opening it twice.
    func store() throws(JobError) -> JobStore {
        let result: Result<JobStore, JobError> = opened.withLock { opened in
            if let opened { return .success(opened) }
            do throws(JobError) {
                let store = try JobStore(path: path)
                opened = store
                return .success(store)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    public func acquire(apiKey: String) async throws {
        while true {
            let wait = try admit(apiKey: apiKey)
            guard let wait else { return }
            try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)) + 1))
        }
    }

    public func backOff(apiKey: String, seconds: Double) async {
        let until = Date().timeIntervalSince1970 + max(1, seconds)
        try? store().write { db in
            try db.execute(sql: "INSERT INTO budget_block (api_key, until) VALUES (?, ?) ON CONFLICT(api_key) DO UPDATE SET until = max(until, excluded.until)",
                           arguments: [apiKey, until])
        }
    }

    /// Seconds between calls as paced: the window (with its margin) shared evenly.
    public var secondsPerCall: Double { (budget.seconds + Self.margin) / Double(budget.calls) }

    /// Records a call now and returns nil, or returns how long to wait first. One
    /// transaction, so that processes sharing the database take turns; the time is read once
    /// the transaction holds the lock, so waiting for it never back-dates a call.
    func admit(apiKey: String) throws(JobError) -> Double? {
        let window = budget.seconds + Self.margin
        let spacing = secondsPerCall
        return try store().write { db -> Double? in
            let now = Date().timeIntervalSince1970
            try db.execute(sql: "DELETE FROM budget_call WHERE api_key = ? AND t <= ?", arguments: [apiKey, now - window])
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MIN(t) AS oldest, MAX(t) AS last FROM budget_call WHERE api_key = ?",
                                       arguments: [apiKey])
            let count: Int = row?["n"] ?? 0
            var allowed = 0.0
            if let last: Double = row?["last"] { allowed = max(allowed, last + spacing) }
            if count >= budget.calls, let oldest: Double = row?["oldest"] { allowed = max(allowed, oldest + window) }
            if let until = try Double.fetchOne(db, sql: "SELECT until FROM budget_block WHERE api_key = ?", arguments: [apiKey]) {
                allowed = max(allowed, until)
            }
            guard allowed <= now else { return allowed - now }
            try db.execute(sql: "INSERT INTO budget_call (api_key, t) VALUES (?, ?)", arguments: [apiKey, now])
            return nil
        }
    }
}
