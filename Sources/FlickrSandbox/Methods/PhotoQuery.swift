import Foundation
import FlickrProtocol

/// The filters and sort order of `flickr.photos.search` (and of the other photo lists, which
/// accept a subset of them).
struct PhotoQuery: Sendable {
    var owner: String?
    var tags: [String] = []
    var tagModeAll = false
    var machineTags: [String] = []
    var machineTagModeAll = false
    var textWords: [String] = []
    var excludedWords: [String] = []
    var minUpload: Int?
    var maxUpload: Int?
    var minTaken: Int?
    var maxTaken: Int?
    var licenses: Set<Int>?
    var privacy: Int?
    var media: String?
    var contentTypes: Set<Int>?
    var safeSearch: Int?
    var sort = "date-posted-desc"

    /// True when the query names something to search for (Flickr refuses parameterless searches).
    var hasCriteria: Bool {
        owner != nil || !tags.isEmpty || !machineTags.isEmpty || !textWords.isEmpty || !excludedWords.isEmpty
            || minUpload != nil || maxUpload != nil || minTaken != nil || maxTaken != nil || licenses != nil
    }

    static let sorts: Set<String> = [
        "date-posted-asc", "date-posted-desc", "date-taken-asc", "date-taken-desc",
        "interestingness-desc", "interestingness-asc", "relevance",
    ]

    /// Reads the query from a call's arguments.
    init(_ call: MethodCall) {
        if let t = call.string("tags") {
            tags = t.split(separator: ",").map { TagString.clean(String($0)) }.filter { !$0.isEmpty }
        }
        tagModeAll = call.string("tag_mode")?.lowercased() == "all"
        if let m = call.string("machine_tags") {
            machineTags = m.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty }
        }
        machineTagModeAll = call.string("machine_tag_mode")?.lowercased() == "all"
        if let text = call.string("text") {
            for word in text.lowercased().split(separator: " ") {
                if word.hasPrefix("-"), word.count > 1 { excludedWords.append(String(word.dropFirst())) } else {
                    textWords.append(String(word))
                }
            }
        }
        minUpload = call.string("min_upload_date").flatMap(SandboxDates.parse)
        maxUpload = call.string("max_upload_date").flatMap(SandboxDates.parse)
        minTaken = call.string("min_taken_date").flatMap(SandboxDates.parse)
        maxTaken = call.string("max_taken_date").flatMap(SandboxDates.parse)
        if let l = call.string("license") {
            licenses = Set(l.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        }
        privacy = call.int("privacy_filter")
        media = call.string("media")?.lowercased()
        if let c = call.string("content_types") ?? call.string("content_type") {
            contentTypes = Set(c.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        }
        safeSearch = call.int("safe_search")
        if let s = call.string("sort")?.lowercased(), Self.sorts.contains(s) { sort = s }
    }

    /// Whether `photo` matches every filter (`checkText` false: except `text=`, which the
    /// search index has already applied).
    func matches(_ photo: SandboxPhoto, checkText: Bool = true) -> Bool {
        if let owner, photo.owner != owner { return false }
        if !tags.isEmpty {
            // A photo has at most 75 tags: a scan beats building a set for every photo.
            var found = 0
            for wanted in tags {
                var has = false
                for tag in photo.tags where tag.clean == wanted {
                    has = true
                    break
                }
                if has { found += 1 } else if tagModeAll { return false }
            }
            if found == 0 { return false }
        }
        if !machineTags.isEmpty {
            let machine = photo.tags.filter(\.isMachineTag)
            let hit: (String) -> Bool = { pattern in machine.contains { Self.machineTag($0.clean, matches: pattern) } }
            if machineTagModeAll ? !machineTags.allSatisfy(hit) : !machineTags.contains(where: hit) { return false }
        }
        if checkText, !textWords.isEmpty || !excludedWords.isEmpty, !matchesText(Self.searchText(of: photo)) { return false }
        if let minUpload, photo.datePosted < minUpload { return false }
        if let maxUpload, photo.datePosted > maxUpload { return false }
        if minTaken != nil || maxTaken != nil {
            let taken = SandboxDates.parse(photo.dateTaken) ?? photo.datePosted
            if let minTaken, taken < minTaken { return false }
            if let maxTaken, taken > maxTaken { return false }
        }
        if let licenses, !licenses.contains(photo.license) { return false }
        if let privacy {
            switch privacy {
            case 1: if !photo.isPublic { return false }
            case 2: if photo.isPublic || !photo.isFriend || photo.isFamily { return false }
            case 3: if photo.isPublic || photo.isFriend || !photo.isFamily { return false }
            case 4: if photo.isPublic || !photo.isFriend || !photo.isFamily { return false }
            case 5: if photo.isPublic || photo.isFriend || photo.isFamily { return false }
            default: break
            }
        }
        switch media {
        case "photos": if photo.media != "photo" { return false }
        case "videos": if photo.media != "video" { return false }
        default: break
        }
        if let contentTypes, !contentTypes.isEmpty {
            // 4 = photos and screenshots, 5 = screenshots and other, 6 = photos and other, 7 = all.
            var allowed = Set<Int>()
            for c in contentTypes {
                switch c {
                case 1, 2, 3: allowed.insert(c)
                case 4: allowed.formUnion([1, 2])
                case 5: allowed.formUnion([2, 3])
                case 6: allowed.formUnion([1, 3])
                case 7: allowed.formUnion([1, 2, 3])
                default: break
                }
            }
            if !allowed.isEmpty, !allowed.contains(photo.contentType) { return false }
        }
        if let safeSearch, safeSearch >= 1, safeSearch <= 3, photo.safetyLevel > safeSearch { return false }
        return true
    }

    /// What `text=` searches in a photo: title, description and tags, lowercased.
    static func searchText(of photo: SandboxPhoto) -> String {
        (photo.title + " " + photo.description).lowercased() + " "
            + photo.tags.map { $0.clean + " " + $0.raw.lowercased() }.joined(separator: " ")
    }

    /// Whether a photo's ``searchText(of:)`` has every word and none of the excluded ones.
    func matchesText(_ haystack: String) -> Bool {
        var haystack = haystack
        return haystack.withUTF8 { text in
            for word in textWords where !Self.contains(text, word) { return false }
            for word in excludedWords where Self.contains(text, word) { return false }
            return true
        }
    }

    /// Whether `word`'s UTF-8 bytes occur in `text` (a plain byte scan: both are lowercased
    /// already, and this runs for every row of a text search).
    static func contains(_ text: UnsafeBufferPointer<UInt8>, _ word: String) -> Bool {
        let needle = Array(word.utf8)
        guard let first = needle.first, needle.count <= text.count else { return needle.isEmpty }
        var i = 0
        let last = text.count - needle.count
        while i <= last {
            if text[i] == first {
                var j = 1
                while j < needle.count, text[i + j] == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }

    /// Machine tag patterns: `ns:`, `ns:pred=`, `ns:pred=value`, `*:pred=value`, `ns:*=value`,
    /// `*:*=value`, `ns:pred` (any value) — with `*` as a wildcard part.
    static func machineTag(_ clean: String, matches pattern: String) -> Bool {
        guard let (ns, pred, value) = TagString.machineTagParts(clean) else { return false }
        let p = pattern.replacingOccurrences(of: "\"", with: "")
        guard let colon = p.firstIndex(of: ":") else { return false }
        let pns = String(p[..<colon])
        let rest = p[p.index(after: colon)...]
        let ppred: String
        var pvalue: String? = nil
        if let eq = rest.firstIndex(of: "=") {
            ppred = String(rest[..<eq])
            let v = String(rest[rest.index(after: eq)...])
            pvalue = v.isEmpty ? nil : TagString.clean(v)
        } else {
            ppred = String(rest)
        }
        if pns != "*", !pns.isEmpty, pns != ns.lowercased() { return false }
        if ppred != "*", !ppred.isEmpty, ppred != pred.lowercased() { return false }
        if let pvalue, pvalue != "*", pvalue != TagString.clean(value) { return false }
        return true
    }

    /// The ids of the photos of `table` that match the query and `include` accepts (who may
    /// see what, list-specific conditions), in the query's order. The search index narrows the
    /// candidates first, so a search over 100,000 photos reads only the photos that can match.
    func search(_ table: PhotoTable, where include: (SandboxPhoto) -> Bool = { _ in true }) -> [String] {
        let index = table.index
        var hits: [(key: Int, id: String)] = []
        for r in candidateRows(in: index) {
            let row = index.rows[r]
            guard let photo = table[row.id], matches(photo, checkText: false), include(photo) else { continue }
            hits.append((sortKey(row), row.id))
        }
        let descending = sort.hasSuffix("-desc") || sort == "relevance"
        hits.sort { a, b in
            if a.key != b.key { return descending ? a.key > b.key : a.key < b.key }
            return descending ? (a.id.utf8.count, a.id) > (b.id.utf8.count, b.id) : (a.id.utf8.count, a.id) < (b.id.utf8.count, b.id)
        }
        return hits.map(\.id)
    }

    /// The rows of `index` whose owner, clean tags and dates allow a match: a necessary
    /// condition only (``matches(_:)`` decides).
    func candidateRows(in index: PhotoSearchIndex) -> [Int] {
        var ownerNumber: Int32?
        if let owner {
            guard let n = index.ownerNumber(owner) else { return [] }
            ownerNumber = n
        }
        var tagNumbers: [Int32] = []
        for tag in tags {
            if let n = index.tagNumber(tag) { tagNumbers.append(n) } else if tagModeAll { return [] }
        }
        if !tags.isEmpty, tagNumbers.isEmpty { return [] }
        var out: [Int] = []
        for r in index.rows.indices {
            let row = index.rows[r]
            guard row.owner >= 0, ownerNumber == nil || row.owner == ownerNumber else { continue }
            if let minUpload, row.posted < minUpload { continue }
            if let maxUpload, row.posted > maxUpload { continue }
            if let minTaken, row.taken < minTaken { continue }
            if let maxTaken, row.taken > maxTaken { continue }
            if !textWords.isEmpty || !excludedWords.isEmpty, !matchesText(row.text) { continue }
            if !tagNumbers.isEmpty {
                let carried = index.tags(ofRow: r)
                if tagModeAll {
                    guard tagNumbers.allSatisfy(carried.contains) else { continue }
                } else {
                    guard tagNumbers.contains(where: carried.contains) else { continue }
                }
            }
            out.append(r)
        }
        return out
    }

    /// The number the query's order sorts by, from a search row.
    func sortKey(_ row: PhotoSearchIndex.Row) -> Int {
        switch sort {
        case "date-taken-asc", "date-taken-desc": return row.taken
        case "interestingness-desc", "interestingness-asc", "relevance": return row.views
        default: return row.posted
        }
    }

    /// The number the query's order sorts by.
    func sortKey(_ p: SandboxPhoto) -> Int {
        switch sort {
        case "date-taken-asc", "date-taken-desc": return SandboxDates.parse(p.dateTaken) ?? p.datePosted
        case "interestingness-desc", "interestingness-asc", "relevance": return p.views
        default: return p.datePosted
        }
    }

    /// Sorts `photos` by the query's order (stable on id).
    func sorted(_ photos: [SandboxPhoto]) -> [SandboxPhoto] {
        func taken(_ p: SandboxPhoto) -> Int { SandboxDates.parse(p.dateTaken) ?? p.datePosted }
        switch sort {
        case "date-posted-asc": return photos.sorted { ($0.datePosted, $0.id) < ($1.datePosted, $1.id) }
        case "date-taken-asc": return photos.sorted { (taken($0), $0.id) < (taken($1), $1.id) }
        case "date-taken-desc": return photos.sorted { (taken($0), $0.id) > (taken($1), $1.id) }
        case "interestingness-desc", "relevance": return photos.sorted { ($0.views, $0.id) > ($1.views, $1.id) }
        case "interestingness-asc": return photos.sorted { ($0.views, $0.id) < ($1.views, $1.id) }
        default: return photos.sorted { ($0.datePosted, $0.id) > ($1.datePosted, $1.id) }
        }
    }
}
