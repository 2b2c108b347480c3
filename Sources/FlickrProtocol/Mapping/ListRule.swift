/// Decides which child elements map to lists.
///
/// ObjectiveFlickr turned `<photos><photo/>…</photos>` into an array because the parent is the
/// child's plural, and left the rest to chance: `<activity>` holding one `<event>` gave a map, two
/// gave an array. This rule keeps the plural test (with irregular plurals) and adds pairs learned
/// from the catalog's example responses, where a child is seen repeating under a parent, so
/// `item.activity.event` is a list every time. Repeated elements always become lists regardless.
public struct ListRule: Sendable {
    /// Parent → children that are lists under it.
    public private(set) var learned: [String: Set<String>]

    /// A rule with only the plural test (and repetition).
    public static let pluralOnly = ListRule(learned: [:])

    /// A rule with these learned parent → children pairs, beside the plural test.
    public init(learned: [String: Set<String>]) {
        self.learned = learned
    }

    /// Irregular plurals seen in Flickr responses (plural → singular).
    static let irregular: [String: String] = ["people": "person", "children": "child", "men": "man",
                                              "women": "woman", "data": "datum", "indices": "index"]

    /// True when `parent` is the plural of `child`: photos/photo, sizes/size, boxes/box,
    /// galleries/gallery, people/person.
    public static func isPlural(parent: String, child: String) -> Bool {
        let p = parent.utf8, c = child.utf8
        if p.count == c.count + 1, parent.hasSuffix("s"), parent.hasPrefix(child) { return true }
        if p.count == c.count + 2, parent.hasSuffix("es"), parent.hasPrefix(child) { return true }
        if parent.hasSuffix("ies"), child.hasSuffix("y"), p.count == c.count + 2,
           parent.dropLast(3) == child.dropLast(1) { return true }
        return irregular[parent] == child
    }

    /// Whether `child` under `parent` is mapped to a list even when it occurs once.
    @inline(__always)
    public func isList(parent: String, child: String) -> Bool {
        Self.isPlural(parent: parent, child: child) || (learned[parent]?.contains(child) ?? false)
    }

    /// The list child known for a plural `parent`, so that an empty `<photos total="0"/>` still
    /// maps to `photos.photo = []`. Only plural parents with exactly one known list child qualify:
    /// a `<photoset>` from getList has no photos inside, and an empty list there would mislead.
    public func emptyListChild(of parent: String) -> String? {
        guard let set = learned[parent], set.count == 1, let child = set.first,
              Self.isPlural(parent: parent, child: child) else { return nil }
        return child
    }

    /// Records every (parent, child) pair of `tree` where the child is a list, plus plural pairs.
    /// `name` is the element name of `tree` itself.
    public mutating func learn(from tree: FlickrNode, name: String) {
        guard case .map(let m) = tree else { return }
        for (key, value) in m {
            switch value {
            case .list(let items):
                learned[name, default: []].insert(key)
                for item in items { learn(from: item, name: key) }
            case .map:
                if Self.isPlural(parent: name, child: key) { learned[name, default: []].insert(key) }
                learn(from: value, name: key)
            case .string:
                break
            }
        }
    }
}
