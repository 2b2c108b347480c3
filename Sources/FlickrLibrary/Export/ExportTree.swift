import Foundation

/// How `flickr export` lays its tree out.
public enum ExportLayout: String, Sendable, CaseIterable, Codable {
    /// A folder per set, named by its title; a photo in several sets is a hard link in each;
    /// photos in no set under `Not in a set/`.
    case set
    /// `YYYY/MM-DD/` of the date taken, each photo once.
    case date
    /// Every photo in the export's folder itself.
    case flat
}

/// Where each photo of an export goes: its relative paths, the first its copy and the others
/// hard links to it. A photo's file is named `DATE TITLE (ID).EXT` (``ExportName``-safe; the
/// id keeps names apart in any folder, whatever the titles).
enum ExportTree {
    static let notInASet = "Not in a set"
    /// Names the gallery (``ExportGallery``) keeps for itself in the export's folder.
    static let reserved = [notInASet, ExportGallery.folder, ExportGallery.index]

    /// The paths of every photo of `photos`, by id. `setTitles` names sets by id (the backup's
    /// set files); a set it lacks is named as the photos' sidecars name it.
    static func paths(_ photos: [ExportPhoto], by layout: ExportLayout, setTitles: [String: String]) -> [String: [String]] {
        var out: [String: [String]] = [:]
        let folders = layout == .set ? setFolders(photos, setTitles: setTitles) : [:]
        for p in photos {
            let name = fileName(p)
            switch layout {
            case .flat: out[p.id] = [name]
            case .date: out[p.id] = [dateFolder(p) + "/" + name]
            case .set:
                let sets = p.sets.compactMap { folders[$0.id] }
                out[p.id] = (sets.isEmpty ? [notInASet] : sets).map { $0 + "/" + name }
            }
        }
        return out
    }

    /// `2019-07-02 Harbour at dawn (52000000001).jpg`; `2019-07-02 (52000000001).jpg` without a
    /// title.
    static func fileName(_ p: ExportPhoto) -> String {
        let suffix = " (\(p.id))" + (p.fileExtension.isEmpty ? "" : "." + p.fileExtension)
        return ExportName.make(p.title.isEmpty ? p.day : p.day + " " + p.title, suffix: suffix)
    }

    /// `2019/07-02`; `undated` without a date taken.
    static func dateFolder(_ p: ExportPhoto) -> String {
        let day = p.day
        guard day != "undated" else { return day }
        return String(day.prefix(4)) + "/" + String(day.dropFirst(5))
    }

    /// Each set's folder name: its title made safe (its id when the title is empty); sets whose
    /// names are equal ignoring case (or equal to `Not in a set`, `gallery` or `index.html`)
    /// each get ` (SET_ID)`.
    static func setFolders(_ photos: [ExportPhoto], setTitles: [String: String]) -> [String: String] {
        var titles: [String: String] = [:]
        for p in photos {
            for s in p.sets where titles[s.id] == nil { titles[s.id] = setTitles[s.id] ?? s.title }
        }
        let plain = titles.mapValues { $0.isEmpty ? "" : ExportName.make($0) }
        var sharing = Dictionary(reserved.map { (ExportName.caseKey($0), 1) }, uniquingKeysWith: +)
        for (_, name) in plain where !name.isEmpty { sharing[ExportName.caseKey(name), default: 0] += 1 }
        var out: [String: String] = [:]
        for (id, name) in plain {
            if name.isEmpty {
                out[id] = ExportName.make(id)
            } else if sharing[ExportName.caseKey(name), default: 0] > 1 {
                out[id] = ExportName.make(titles[id]!, suffix: " (\(id))")
            } else {
                out[id] = name
            }
        }
        return out
    }
}
