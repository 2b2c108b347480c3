/// One fuzz target: a function that must survive any bytes (no crash, no hang, no leak under
/// the sanitizers) and checks a property that must hold for every input. A broken property
/// is a crash on purpose (`FuzzCheck.require`), so that libFuzzer keeps the input.
public struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz` and `flickr-fuzz` use (and the corpus folder's).
    public let name: String
    public let run: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Every target, by name.
    public static let all: [FuzzTarget] = [xml, json, multipart, oauthHeader, tagString, commandLine, lua]

    /// The target called `name`.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// The property checks of the targets.
public enum FuzzCheck {
    /// Stops the process when a property fails: libFuzzer records the input as a crash.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz property failed: " + message()) }
    }
}
