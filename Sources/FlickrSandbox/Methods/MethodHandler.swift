/// A method implementation: the state store (shared by every call) and the call. Runs
/// synchronously (state access is short). It throws ``APIFailure`` for Flickr errors; anything
/// else becomes 106 "Write operation failed".
typealias MethodHandler = @Sendable (SandboxStore, MethodCall) throws -> MethodPayload
