import Foundation

extension SandboxDates {
    /// Unix time of an English textual datetime, as Flickr documents `photos.recentlyUpdated`'s
    /// `min_date` ("a Unix timestamp or any English textual datetime description"): the forms
    /// people write, in UTC — `now`, `today`, `yesterday`, `tomorrow`; `3 days ago`, `-2 weeks`,
    /// `+1 hour`, `last week`; `May 1 2019`, `May 1, 2019`, `1 May 2019`, `2019/05/01`,
    /// `05/01/2019` (month first), each with an optional `HH:MM[:SS]`. Nil for anything else.
    static func english(_ text: String, now: Int) -> Int? {
        let words = text.lowercased().replacingOccurrences(of: ",", with: " ").split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        let midnight = (now / 86_400) * 86_400
        switch words.joined(separator: " ") {
        case "now": return now
        case "today", "midnight": return midnight
        case "yesterday": return midnight - 86_400
        case "tomorrow": return midnight + 86_400
        default: break
        }
        if let shift = relative(words) { return now + shift }
        return calendarDate(words)
    }

    static let units: [String: Int] = ["sec": 1, "second": 1, "min": 60, "minute": 60, "hour": 3_600, "day": 86_400,
                                       "week": 604_800, "fortnight": 1_209_600, "month": 2_592_000, "year": 31_536_000]

    /// `3 days ago`, `-2 weeks`, `+1 hour`, `1 day`, `last week`, `next month`: seconds from now
    /// (a month is 30 days, a year 365).
    static func relative(_ words: [String]) -> Int? {
        func unit(_ w: String) -> Int? { units[w] ?? (w.hasSuffix("s") ? units[String(w.dropLast())] : nil) }
        if words.count == 2, let u = unit(words[1]) {
            switch words[0] {
            case "last": return -u
            case "next": return u
            default: if let n = Int(words[0]) { return n * u }
            }
        }
        if words.count == 3, words[2] == "ago", let n = Int(words[0]), let u = unit(words[1]) { return -n * u }
        return nil
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// `may 1 2019 [hh:mm[:ss]]`, `1 may 2019 …`, `2019/05/01 …`, `05/01/2019 …`.
    static func calendarDate(_ words: [String]) -> Int? {
        var rest = words
        var seconds = 0
        if let last = rest.last, last.contains(":") {
            let hms = last.split(separator: ":").map { Int($0) }
            guard (2...3).contains(hms.count), hms.allSatisfy({ $0 != nil }) else { return nil }
            let h = hms[0]!, m = hms[1]!, s = hms.count == 3 ? hms[2]! : 0
            guard (0..<24).contains(h), (0..<60).contains(m), (0..<60).contains(s) else { return nil }
            seconds = h * 3_600 + m * 60 + s
            rest.removeLast()
        }
        func month(_ w: String) -> Int? { months.firstIndex { w.hasPrefix($0) && w.count >= 3 }.map { $0 + 1 } }
        var ymd: (Int, Int, Int)?
        switch rest.count {
        case 3:
            if let m = month(rest[0]), let d = Int(rest[1]), let y = Int(rest[2]) { ymd = (y, m, d) }
            if let d = Int(rest[0]), let m = month(rest[1]), let y = Int(rest[2]) { ymd = (y, m, d) }
        case 1:
            let parts = rest[0].split(separator: "/").compactMap { Int($0) }
            if parts.count == 3 { ymd = parts[0] > 31 ? (parts[0], parts[1], parts[2]) : (parts[2], parts[0], parts[1]) }
        default: break
        }
        guard let (y, m, d) = ymd, (1...12).contains(m), (1...31).contains(d), y >= 1 else { return nil }
        // A day the month lacks (February 30) is no date.
        let t = days(fromCivil: y, m, d) * 86_400
        guard civil(fromDays: t / 86_400) == (y, m, d) else { return nil }
        return t + seconds
    }
}
