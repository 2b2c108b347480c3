/// A set's order and primary photo, as an edit job found them before it first took a photo
/// out of the set: what its undo puts back.
public struct SetOrder: Sendable, Hashable, Codable {
    public var photos: [String]
    public var primary: String?

    public init(photos: [String], primary: String?) {
        self.photos = photos
        self.primary = primary
    }

    /// The order to give a set holding `current`: the photos it held `before`, in that order,
    /// then those it gained since, in their current order. A pure function.
    public static func restored(_ before: [String], current: [String]) -> [String] {
        let members = Set(current)
        let known = Set(before)
        return before.filter { members.contains($0) } + current.filter { !known.contains($0) }
    }
}
