import CReadlineShim

/// Lays out a progress line for the terminal it is drawn on, so that redrawing it with `\r`
/// keeps it on one row: a line as wide as the terminal (or wider) wraps, and every redraw of
/// a wrapped line leaves a row behind in the scrollback.
enum ProgressLayout {
    /// The width of the terminal standard error is, read at each frame so that a resize is
    /// followed at once (80 when standard error is not a terminal).
    static var stderrColumns: Int { Int(frl_columns_of(2)) }

    /// The first of `variants` (widest first) that fits in a terminal `columns` wide, drawn with
    /// the widest bar between `bars.upperBound` and `bars.lowerBound` cells that fits; the last
    /// variant cut to the width when none fits. A variant is given the bar width it is to use.
    /// The line is kept under the width (a character in the last column leaves some terminals
    /// about to wrap).
    static func fit(columns: Int, bars: ClosedRange<Int>, _ variants: [(Int) -> String]) -> String {
        let limit = max(1, columns - 1)
        for variant in variants {
            for width in bars.reversed() {
                let line = variant(width)
                if line.count <= limit { return line }
            }
        }
        return String((variants.last?(bars.lowerBound) ?? "").prefix(limit))
    }
}
