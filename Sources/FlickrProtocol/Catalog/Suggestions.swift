/// "Did you mean …?": the candidates closest to a word a person mistyped, for every place that
/// looks a name up (methods, arguments, help, profiles).
package enum Suggestions {
    /// Up to `limit` candidates nearest `word`, nearest first: case-insensitive edit distance
    /// within about a third of the word's length, then candidates that contain the word or that
    /// the word contains (a shortened or extended name). Empty when nothing is close.
    package static func closest(to word: String, among candidates: some Sequence<String>, limit: Int = 3) -> [String] {
        let target = Array(word.lowercased().utf8)
        guard !target.isEmpty else { return [] }
        let allowed = max(2, target.count / 3)
        var scored: [(distance: Int, name: String)] = []
        for candidate in candidates {
            let lower = candidate.lowercased()
            let other = Array(lower.utf8)
            if abs(other.count - target.count) <= allowed, let d = distance(target, other, within: allowed) {
                scored.append((d, candidate))
            } else if target.count >= 3, lower.contains(word.lowercased()) || word.lowercased().contains(lower) {
                // A part of the name: ranked after every near spelling.
                scored.append((allowed + 1 + abs(other.count - target.count), candidate))
            }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        var seen = Set<String>()
        var out: [String] = []
        for (_, name) in scored where out.count < limit && seen.insert(name).inserted { out.append(name) }
        return out
    }

    /// " (did you mean a, b?)", or "" when there is nothing to suggest.
    package static func phrase(_ names: [String]) -> String {
        names.isEmpty ? "" : " (did you mean \(names.joined(separator: ", "))?)"
    }

    /// Edit distance of two byte strings (insertions, deletions, substitutions, and swaps of
    /// neighbours: photo_di → photo_id is one edit), or nil once it must exceed `limit` (a row
    /// whose every entry is over the limit ends the work early).
    static func distance(_ a: [UInt8], _ b: [UInt8], within limit: Int) -> Int? {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) <= limit ? max(a.count, b.count) : nil }
        var older = [Int](repeating: 0, count: b.count + 1)   // row i − 2, for swaps
        var previous = Array(0...b.count)                      // row i − 1
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                var d = min(previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, older[j - 2] + 1) }
                current[j] = d
                rowMinimum = min(rowMinimum, d)
            }
            if rowMinimum > limit { return nil }
            (older, previous, current) = (previous, current, older)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
