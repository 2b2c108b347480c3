import Foundation
import GRDB

/// What a job plans for one photo, whatever the job's kind: a retag's ``PhotoChange`` or an
/// edit's ``EditChange``. The journal stores it as JSON beside the photo's status.
public protocol JobChange: Sendable, Hashable, Codable {
    /// The photo it changes.
    var photoID: String { get }
    /// The photo's `lastupdate` when the plan read it (the conflict check compares with it).
    var lastUpdate: Int { get }
}

extension PhotoChange: JobChange {
    public var photoID: String { pre.photoID }
    public var lastUpdate: Int { pre.lastUpdate }
}

extension EditChange: JobChange {
    public var photoID: String { pre.photoID }
    public var lastUpdate: Int { pre.lastUpdate }
}

/// One photo of a job, with its journal entry.
public struct JournalEntry<Change: JobChange>: Sendable, Hashable {
    public var seq: Int
    public var change: Change
    public var status: PhotoStatus
    /// The write under way (`setTags …`, `meta: flickr.photos.setMeta`), while writing; `settle`
    /// on a photo whose failure a resume settles by reading first.
    public var intent: String?
    public var detail: String?

    /// Whether a run still has work on it: never touched, cut off while writing, or failed
    /// at run time (not refused at plan time).
    var isPending: Bool { status == .planned || status == .writing || (status == .failed && intent != nil) }
}

extension JournalEntry {
    /// A photo's row (`seq`, `change`, `status`, `intent`, `detail`), its change read as `Change`.
    init(row: Row) throws {
        self.init(seq: row["seq"], change: try JSONDecoder().decode(Change.self, from: Data((row["change"] as String).utf8)),
                  status: PhotoStatus(rawValue: row["status"]) ?? .planned, intent: row["intent"], detail: row["detail"])
    }
}

/// A photo of a retag job (or of its undo).
public typealias JobPhoto = JournalEntry<PhotoChange>
/// A photo of an edit job (or of its undo).
public typealias EditJobPhoto = JournalEntry<EditChange>

extension JobStore {
    /// The photos of a job in plan order, their changes read as `Change`.
    func entries<Change: JobChange>(of job: String, as: Change.Type) throws(JobError) -> [JournalEntry<Change>] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT seq, change, status, intent, detail FROM photo WHERE job = ? ORDER BY seq",
                             arguments: [job]).map { try JournalEntry<Change>(row: $0) }
        }
    }

    /// The photos of a retag job in plan order.
    public func photos(of job: String) throws(JobError) -> [JobPhoto] { try entries(of: job, as: PhotoChange.self) }

    /// The photos of an edit job in plan order.
    public func editPhotos(of job: String) throws(JobError) -> [EditJobPhoto] { try entries(of: job, as: EditChange.self) }
}
