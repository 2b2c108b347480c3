/// A call budget that cannot be built: not `N/SECONDS`, or not positive.
public struct CallBudgetError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the budget, for a person.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
