import Foundation

/// Flickr's two date forms: Unix seconds (posted, lastupdate) and MySQL datetimes (taken),
/// converted without a formatter (UTC, proleptic Gregorian).
enum SandboxDates {
    /// `YYYY-MM-DD HH:MM:SS` for Unix time `t`.
    static func format(_ t: Int) -> String {
        let days = Int((Double(t) / 86_400).rounded(.down))
        let secs = t - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(y)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(m) + "-" + two(d) + " "
            + two(secs / 3600) + ":" + two(secs / 60 % 60) + ":" + two(secs % 60)
    }

    /// Unix time of a `YYYY-MM-DD[ HH:MM:SS]` datetime, or of a plain integer; nil if neither.
    static func parse(_ s: String) -> Int? {
        let trimmed = s.trimmingCharacters(in: .whitespaces)
        if let n = Int(trimmed) { return n }
        let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard let datePart = parts.first else { return nil }
        let ymd = datePart.split(separator: "-").compactMap { Int($0) }
        guard ymd.count == 3, (1...12).contains(ymd[1]), (1...31).contains(ymd[2]) else { return nil }
        var seconds = 0
        if parts.count > 1 {
            let hms = parts[1].split(separator: ":").compactMap { Int($0) }
            guard !hms.isEmpty, hms.count <= 3 else { return nil }
            seconds = hms[0] * 3600 + (hms.count > 1 ? hms[1] * 60 : 0) + (hms.count > 2 ? hms[2] : 0)
        }
        return days(fromCivil: ymd[0], ymd[1], ymd[2]) * 86_400 + seconds
    }

    // Howard Hinnant's days-from-civil algorithms.
    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
