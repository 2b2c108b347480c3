/// A call budget that cannot be built: not `N/SECONDS`, or not positive.
public struct CallBudgetError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
