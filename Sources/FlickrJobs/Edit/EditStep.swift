/// One photo of an edit job: the pre-image read at plan time and, per group the job changes,
/// the value it wants.
public struct EditChange: Sendable, Hashable, Codable {
    public var pre: PhotoMetadata
    /// One value per group changed, in ``EditField`` order.
    public var targets: [EditValue]

    public init(pre: PhotoMetadata, targets: [EditValue]) {
        self.pre = pre
        self.targets = targets.sorted { $0.field < $1.field }
    }

    /// The groups it changes.
    public var fields: [EditField] { targets.map(\.field) }

    /// The calls apply costs when nothing stands in the way: one per group, one per set joined
    /// or left.
    public var calls: Int {
        targets.reduce(0) { n, target in n + EditWrite(field: target.field, from: pre.value(target.field), to: target, on: pre).calls.count }
    }
}

/// The next write for one photo, decided from what the job planned and what the photo holds
/// now: a pure function (the state machine's transition), tested apart from any I/O.
///
/// Group by group, in order: a group already holding its target is done; a group still holding
/// its pre-image (or, for sets and tags, lying between the pre-image and the target: a partial
/// write of ours) is written; a group holding anything else was changed by someone since the
/// plan — a conflict, never overwritten. A conflict in one group does not stop the others.
public enum EditStep: Sendable, Hashable {
    /// Every group that can be written holds its target; `conflicts` lists those that could not.
    case done(conflicts: [EditConflict])
    case write(EditWrite)

    /// `current` is the photo as read now; nil trusts the pre-image (the job has not written it
    /// yet and the conflict check was made by other means).
    public static func next(_ change: EditChange, current: PhotoMetadata?) -> EditStep {
        let now = current ?? change.pre
        var conflicts: [EditConflict] = []
        for target in change.targets {
            let field = target.field
            let before = change.pre.value(field)
            // getInfo does not say a photo's content type: unknown in a read, it is taken to be
            // as the plan read it (setContentType is idempotent, so a second write does no harm).
            let value = field == .contentType && now.contentType == nil ? before : now.value(field)
            if value.matches(target) { continue }
            guard Self.isOurs(value, before: before, target: target) else {
                conflicts.append(EditConflict(field: field, found: value, planned: before))
                continue
            }
            return .write(EditWrite(field: field, from: value, to: target, on: now))
        }
        return .done(conflicts: conflicts)
    }

    /// Whether `value` is the pre-image or a partial step of ours toward `target`.
    static func isOurs(_ value: EditValue, before: EditValue, target: EditValue) -> Bool {
        if value.matches(before) { return true }
        switch (value, before, target) {
        case let (.sets(now), .sets(pre), .sets(wanted)):
            // Each set either as before or as wanted.
            return now.isSubset(of: pre.union(wanted)) && pre.intersection(wanted).isSubset(of: now)
        default:
            return false
        }
    }
}

/// A group changed on Flickr since the plan: what was found and what the plan had read.
public struct EditConflict: Sendable, Hashable, Codable, CustomStringConvertible {
    public var field: EditField
    public var found: EditValue
    public var planned: EditValue

    public init(field: EditField, found: EditValue, planned: EditValue) {
        (self.field, self.found, self.planned) = (field, found, planned)
    }

    public var description: String { "\(field.rawValue) changed since the plan (\(planned) → \(found))" }
}

/// The write of one group: its Flickr calls.
public struct EditWrite: Sendable, Hashable {
    public var field: EditField
    /// What the group holds when the write is sent (sets: which to join and leave).
    public var from: EditValue
    public var to: EditValue
    /// The tag group's write, by the one tag writer of every job (``TagWrite``): it never
    /// removes a tag the owner did not add.
    public private(set) var tagWrite: TagWrite?

    /// The write of `field` from `from` to `to` on `photo` as last read (its tags, with their
    /// authors and ids, decide how the tag group is written).
    public init(field: EditField, from: EditValue, to: EditValue, on photo: PhotoMetadata) {
        (self.field, self.from, self.to) = (field, from, to)
        if case .tags(let raws) = to { tagWrite = TagWrite.toward(raws, tags: photo.tags, owner: photo.owner) }
    }

    /// The calls, in order: method and arguments (the runner adds `photo_id` to each but
    /// `removeTag`, which names its tag by id alone).
    public var calls: [(method: String, arguments: [String: String])] {
        switch to {
        case .meta(let title, let description):
            return [("flickr.photos.setMeta", ["title": title, "description": description])]
        case .dates(let taken, let granularity):
            return [("flickr.photos.setDates", ["date_taken": taken, "date_taken_granularity": String(granularity)])]
        case .perms(let p):
            return [("flickr.photos.setPerms", ["is_public": p.isPublic ? "1" : "0", "is_friend": p.isFriend ? "1" : "0",
                                                "is_family": p.isFamily ? "1" : "0"])]
        case .license(let id):
            return [("flickr.photos.licenses.setLicense", ["license_id": String(id)])]
        case .safety(let level):
            return [("flickr.photos.setSafetyLevel", ["safety_level": String(level)])]
        case .contentType(let type):
            return [("flickr.photos.setContentType", ["content_type": String(type ?? 1)])]
        case .geo(let point?):
            return [("flickr.photos.geo.setLocation", ["lat": String(point.latitude), "lon": String(point.longitude),
                                                       "accuracy": String(point.accuracy)])]
        case .geo(nil):
            return [("flickr.photos.geo.removeLocation", [:])]
        case .sets(let wanted):
            guard case .sets(let now) = from else { return [] }
            // Joins before leaves: cut off between them, the photo is in both sets, never in neither.
            return wanted.subtracting(now).sorted().map { ("flickr.photosets.addPhoto", ["photoset_id": $0]) }
                + now.subtracting(wanted).sorted().map { ("flickr.photosets.removePhoto", ["photoset_id": $0]) }
        case .tags:
            return tagWrite?.requests(photo: nil) ?? []
        }
    }
}

import FlickrProtocol
