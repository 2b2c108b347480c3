/// One field of a group's change as people name it (`title`, `date_taken`, `privacy`, …) with
/// typed values: what `flickr edit plan --json` and Lua's plan table show (LUA-API.md).
public struct EditFieldChange: Sendable, Hashable {
    /// A field's value, typed.
    public enum Value: Sendable, Hashable {
        case text(String)
        case integer(Int)
        /// Set ids or tags.
        case list([String])
        case geo(latitude: Double, longitude: Double, accuracy: Int)
    }

    /// `title`, `description`, `date_taken`, `date_taken_granularity`, `privacy`, `license`,
    /// `safety`, `content_type`, `geo`, `sets` or `tags`.
    public var field: String
    /// The group it is written with (``EditField``).
    public var group: EditField
    /// Nil: none (no location, a content type not known).
    public var from: Value?
    public var to: Value?

    /// The fields a group's change from `from` to `to` changes, in order.
    public static func changes(from: EditValue, to: EditValue) -> [EditFieldChange] {
        let group = to.field
        func change(_ field: String, _ a: Value?, _ b: Value?) -> EditFieldChange { EditFieldChange(field: field, group: group, from: a, to: b) }
        func geo(_ g: GeoPoint?) -> Value? { g.map { .geo(latitude: $0.latitude, longitude: $0.longitude, accuracy: $0.accuracy) } }
        switch (from, to) {
        case let (.meta(t0, d0), .meta(t1, d1)):
            return (t0 == t1 ? [] : [change("title", .text(t0), .text(t1))]) + (d0 == d1 ? [] : [change("description", .text(d0), .text(d1))])
        case let (.dates(a, g0), .dates(b, g1)):
            return [change("date_taken", .text(a), .text(b))] + (g0 == g1 ? [] : [change("date_taken_granularity", .integer(g0), .integer(g1))])
        case let (.perms(a), .perms(b)): return [change("privacy", .text(a.description), .text(b.description))]
        case let (.license(a), .license(b)): return [change("license", .integer(a), .integer(b))]
        case (.safety, .safety): return [change("safety", .text(from.description), .text(to.description))]
        case let (.contentType(a), .contentType(b)):
            return [change("content_type", a == nil ? nil : .text(from.description), b == nil ? nil : .text(to.description))]
        case let (.geo(a), .geo(b)): return [change("geo", geo(a), geo(b))]
        case let (.sets(a), .sets(b)): return [change("sets", .list(a.sorted()), .list(b.sorted()))]
        case let (.tags(a), .tags(b)): return [change("tags", .list(a), .list(b))]
        default: return [change(group.rawValue, .text(from.description), .text(to.description))]
        }
    }

    /// Every field `change` changes, group by group.
    public static func changes(of change: EditChange) -> [EditFieldChange] {
        change.targets.flatMap { changes(from: change.pre.value($0.field), to: $0) }
    }

    /// As a JSON object: `field`, `group`, and `from`/`to` when not none (a location as
    /// `{lat, lon, accuracy}`).
    public var json: [String: Any] {
        func any(_ v: Value) -> Any {
            switch v {
            case .text(let s): s
            case .integer(let n): n
            case .list(let l): l
            case let .geo(lat, lon, accuracy): ["lat": lat, "lon": lon, "accuracy": accuracy] as [String: Any]
            }
        }
        var o: [String: Any] = ["field": field, "group": group.rawValue]
        if let from { o["from"] = any(from) }
        if let to { o["to"] = any(to) }
        return o
    }
}
