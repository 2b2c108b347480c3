/// A photo of the sandbox world: a ``SandboxPhotoRecord`` behind a copy-on-write reference.
///
/// A photo has some thirty fields; a search over 100,000 photos reads each one out of the
/// table, and a plain struct would copy (and retain) every field every time. Here a copy is one
/// retain, and a change copies the record. Fields read and write as on the record
/// (`photo.title = …`), through dynamic member lookup.
@dynamicMemberLookup
struct SandboxPhoto: Codable, Sendable, Hashable {
    /// The record, shared between copies. Immutable: a change makes a new box, so reads need
    /// neither exclusivity checks nor copies (a search reads a dozen fields of 100,000 photos;
    /// a change copies one record).
    private final class Box: Sendable {
        let record: SandboxPhotoRecord
        init(_ record: SandboxPhotoRecord) { self.record = record }
    }

    private var box: Box

    init(_ record: SandboxPhotoRecord) { box = Box(record) }

    /// The whole record (a copy).
    var record: SandboxPhotoRecord {
        get { box.record }
        set { box = Box(newValue) }
    }

    subscript<T>(dynamicMember field: WritableKeyPath<SandboxPhotoRecord, T>) -> T {
        get { box.record[keyPath: field] }
        set {
            var changed = box.record
            changed[keyPath: field] = newValue
            box = Box(changed)
        }
    }

    init(from decoder: any Decoder) throws {
        box = Box(try SandboxPhotoRecord(from: decoder))
    }

    func encode(to encoder: any Encoder) throws { try box.record.encode(to: encoder) }

    static func == (a: SandboxPhoto, b: SandboxPhoto) -> Bool { a.box === b.box || a.box.record == b.box.record }

    func hash(into hasher: inout Hasher) { box.record.hash(into: &hasher) }
}
