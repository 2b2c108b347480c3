/// Lays text out at a width when it is printed: every line longer than the width is broken at
/// spaces, its continuation lines indented as the line was (two more when it is a table row —
/// `  name  text` — so the text column stays readable); a word is never split, and one longer
/// than the width on its own ends in `…`. Lines that fit are left as they are.
public enum TextLayout {
    /// `text` at `width` columns (counted in characters; at least 20).
    public static func fit(_ text: String, width: Int) -> String {
        let width = max(20, width)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { fit(line: String($0), width: width) }
            .joined(separator: "\n")
    }

    static func fit(line: String, width: Int) -> String {
        guard line.count > width else { return line }
        let indent = String(line.prefix { $0 == " " })
        // The words, each with the spaces before it as written (a table row's column gap kept).
        var tokens: [(gap: String, word: String)] = []
        var gap = "", word = ""
        for c in line.dropFirst(indent.count) {
            if c == " " {
                if !word.isEmpty { tokens.append((gap, word)); (gap, word) = ("", "") }
                gap.append(c)
            } else {
                word.append(c)
            }
        }
        if !word.isEmpty { tokens.append((gap, word)) }
        // A table row (`  --name VALUE   help`): continuation lines start under the text column.
        var continuation = indent
        if let split = tokens.firstIndex(where: { $0.gap.count >= 2 }) {
            let column = indent.count + tokens[..<split].reduce(0) { $0 + $1.gap.count + $1.word.count } + tokens[split].gap.count
            if column < width / 2 { continuation = String(repeating: " ", count: column) }
        }
        var out: [String] = []
        var current = indent
        var empty = true
        for token in tokens {
            let room = width - continuation.count
            let piece = token.word.count > room ? String(token.word.prefix(max(1, room - 1))) + "…" : token.word
            if !empty, current.count + token.gap.count + piece.count > width {
                out.append(current)
                (current, empty) = (continuation, true)
            }
            current += (empty ? "" : token.gap) + piece
            empty = false
        }
        if !empty { out.append(current) }
        return out.joined(separator: "\n")
    }
}
