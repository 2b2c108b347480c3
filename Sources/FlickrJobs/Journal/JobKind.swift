/// What a job changes, stored with it: an undo has the kind of the job it takes back (an undo
/// of an edit job is an `edit` job whose `undoOf` names that job), so a job's kind is read from
/// its own row, never from another's.
public enum JobKind: String, Sendable, Codable, CaseIterable {
    /// Tags only (`flickr retag`): ``RetagPlanner``, ``RetagRunner``.
    case retag
    /// Any group of a photo's metadata (`flickr edit`): ``EditPlanner``, ``EditRunner``.
    case edit
    /// Photo folders kept in step with Flickr (`flickr push`): ``PushPlanner``, ``PushRunner``.
    case push
}
