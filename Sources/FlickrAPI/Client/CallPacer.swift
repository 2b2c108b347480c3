/// Paces API calls beyond one process: every REST call, upload and replacement asks it before
/// each attempt (retries included), and reports a 429's `Retry-After`. The jobs module provides
/// one shared by every process of the machine through SQLite (`SharedBudget`); FlickrAPI only
/// defines the hook.
package protocol CallPacer: Sendable {
    /// Returns when one more call by `apiKey` may be sent (it is then counted).
    func acquire(apiKey: String) async throws
    /// Flickr answered 429: no call by `apiKey` before `seconds` have passed.
    func backOff(apiKey: String, seconds: Double) async
}
