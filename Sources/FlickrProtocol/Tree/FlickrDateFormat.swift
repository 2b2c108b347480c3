import Foundation

/// The three ways Flickr writes a date, in arguments and in answers.
///
/// Which one a method wants is per argument (Flickr's reference says it in each description):
/// `min_upload_date` of `flickr.photos.search` is a Unix timestamp, `min_taken_date` a MySQL
/// datetime, the `date` of `flickr.interestingness.getList` a day. Answers use the same forms:
/// `dateupload`, `lastupdate`, `posted` are timestamps; `datetaken`, `taken` are datetimes.
///
/// Flickr keeps a taken date as the camera wrote it, without a time zone. This type reads and
/// writes datetimes and days in UTC, so that a date written and read back is the same `Date`.
public enum FlickrDateFormat: String, Sendable, Hashable, CaseIterable {
    /// Whole seconds since 1970-01-01 00:00:00 UTC: `1700000000`.
    case unixTimestamp
    /// A MySQL datetime, `YYYY-MM-DD HH:MM:SS`, in UTC: `2023-11-14 22:13:20`.
    case mysqlDateTime
    /// A day, `YYYY-MM-DD`, in UTC: `2023-11-14`.
    case day

    /// `date` written in this form (a timestamp rounds down to the whole second).
    public func string(from date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        switch self {
        case .unixTimestamp:
            return String(seconds)
        case .mysqlDateTime, .day:
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let rest = seconds - days * 86_400
            let (y, m, d) = Self.civil(fromDays: days)
            let dayText = Self.pad(y, 4) + "-" + Self.pad(m, 2) + "-" + Self.pad(d, 2)
            guard self == .mysqlDateTime else { return dayText }
            return dayText + " " + Self.pad(rest / 3600, 2) + ":" + Self.pad(rest % 3600 / 60, 2) + ":" + Self.pad(rest % 60, 2)
        }
    }

    /// The date `string` holds in this form; nil when it is not one (Flickr's
    /// `0000-00-00 00:00:00`, an unknown date, is nil too).
    public func date(from string: String) -> Date? {
        let s = string.trimmingCharacters(in: .whitespaces)
        switch self {
        case .unixTimestamp:
            guard let n = Int64(s) else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(n))
        case .mysqlDateTime:
            let parts = s.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let day = Self.day(parts[0]) else { return nil }
            let hms = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
                  let h = Int(hms[0]), let mi = Int(hms[1]), let sec = Int(hms[2]),
                  (0..<24).contains(h), (0..<60).contains(mi), (0..<61).contains(sec) else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(day * 86_400 + Int64(h * 3600 + mi * 60 + sec)))
        case .day:
            guard let day = Self.day(Substring(s)) else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(day * 86_400))
        }
    }

    /// The date in whichever form `string` is written: digits are a Unix timestamp,
    /// `YYYY-MM-DD HH:MM:SS` a MySQL datetime, `YYYY-MM-DD` a day; nil for anything else.
    public static func date(fromAny string: String) -> Date? {
        for format in allCases { if let d = format.date(from: string) { return d } }
        return nil
    }

    /// Days since 1970-01-01 of `YYYY-MM-DD`, checked (month 1–12, the month's own last day).
    private static func day(_ text: Substring) -> Int64? {
        let f = text.split(separator: "-", omittingEmptySubsequences: false)
        guard f.count == 3, f[0].count == 4, f[1].count == 2, f[2].count == 2,
              f.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int64(f[0]), let m = Int64(f[1]), let d = Int64(f[2]),
              (1...12).contains(m), d >= 1 else { return nil }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let lengths: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard d <= lengths[Int(m - 1)] else { return nil }
        return days(fromCivil: y, m, d)
    }

    /// Howard Hinnant's days_from_civil (proleptic Gregorian).
    private static func days(fromCivil year: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Howard Hinnant's civil_from_days.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
