import Foundation

/// Flickr's date taken: `YYYY-MM-DD HH:MM:SS` with no time zone, and its granularity (0 to the
/// second, 4 the month, 6 the year, 8 circa). Edits shift it or set it, and refuse what Flickr
/// refuses: a date before 1900 or in the future.
public enum TakenDate {
    /// The calendar dates are read and written in: Gregorian, UTC (Flickr's dates have no zone,
    /// so none is applied).
    static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    /// `2019-07-02 14:03:00` → seconds (as if UTC), or nil.
    static func seconds(_ text: String) -> Int? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).map(String.init)
        guard digits.count >= 3, let y = Int(digits[0]), let m = Int(digits[1]), let d = Int(digits[2]) else { return nil }
        let h = digits.count > 3 ? Int(digits[3]) ?? 0 : 0, mi = digits.count > 4 ? Int(digits[4]) ?? 0 : 0
        let s = digits.count > 5 ? Int(digits[5]) ?? 0 : 0
        guard (1...12).contains(m), (1...31).contains(d), (0...23).contains(h), (0...59).contains(mi), (0...59).contains(s),
              let date = calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: mi, second: s)),
              calendar.component(.day, from: date) == d else { return nil }
        return Int(date.timeIntervalSince1970)
    }

    /// Seconds → `YYYY-MM-DD HH:MM:SS`.
    static func text(_ seconds: Int) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// `--set-taken`: `2019-07-02 14:03[:00]` or `2019-07-02T14:03:00` (to the second), `2019-07-02`
    /// (the day, midnight), `2019-07` (granularity 4), `2019` (granularity 6), `circa 2019` (8).
    public static func parse(_ given: String) throws(EditSpecError) -> (taken: String, granularity: Int) {
        var body = given.trimmingCharacters(in: .whitespaces)
        var granularity = 0
        if body.lowercased().hasPrefix("circa ") {
            body = String(body.dropFirst(6)).trimmingCharacters(in: .whitespaces)
            granularity = 8
        }
        let parts = body.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == "T" || $0 == ":" }).map(String.init)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }), let first = parts.first, first.count == 4 else {
            throw EditSpecError("--set-taken: '\(given)' is not a date (2019-07-02 14:03:00, 2019-07-02, 2019-07, 2019, circa 2019)")
        }
        var filled = parts
        switch parts.count {
        case 1: filled += ["01", "01"]; granularity = max(granularity, 6)
        case 2: filled += ["01"]; if granularity == 0 { granularity = 4 }
        case 3, 5, 6: break
        default: throw EditSpecError("--set-taken: '\(given)' is not a date (2019-07-02 14:03:00, 2019-07-02, 2019-07, 2019, circa 2019)")
        }
        if granularity == 8 { filled = [parts[0], "01", "01"] }
        guard let seconds = seconds(filled.joined(separator: " ")) else {
            throw EditSpecError("--set-taken: '\(given)' is not a date of the calendar")
        }
        return (Self.text(seconds), granularity)
    }

    /// A shift of the date taken: `+3h`, `-1d2h`, `+90m`, `+30s`, `+2w` (weeks, days, hours,
    /// minutes, seconds, in that order). Returns seconds.
    public static func shift(_ given: String) throws(EditSpecError) -> Int {
        let text = given.trimmingCharacters(in: .whitespaces)
        guard let sign = text.first, sign == "+" || sign == "-" else {
            throw EditSpecError("--shift-taken: '\(given)' needs a sign and units, e.g. +3h, -1d2h, +90m")
        }
        var total = 0, number = "", seen: [Character] = []
        let units: [Character: Int] = ["w": 604_800, "d": 86_400, "h": 3_600, "m": 60, "s": 1]
        let order: [Character] = ["w", "d", "h", "m", "s"]
        for c in text.dropFirst() {
            if c.isNumber {
                number.append(c)
            } else if let unit = units[c], let n = Int(number), !seen.contains(c),
                      seen.last.map({ order.firstIndex(of: $0)! < order.firstIndex(of: c)! }) ?? true {
                total += n * unit
                seen.append(c)
                number = ""
            } else {
                throw EditSpecError("--shift-taken: '\(given)' is not a duration: digits then w, d, h, m or s, largest first (+3h, -1d2h)")
            }
        }
        guard number.isEmpty, !seen.isEmpty, total > 0 else {
            throw EditSpecError("--shift-taken: '\(given)' is not a duration: digits then w, d, h, m or s, largest first (+3h, -1d2h)")
        }
        return sign == "-" ? -total : total
    }

    /// `taken` moved by `seconds` as far as its granularity knows it, the granularity kept. A
    /// date to the second moves by `seconds`. A date known only to the month (4) or the year (6,
    /// or circa: 8) stands for that whole month or year: its middle is moved, and the date moves
    /// by as many whole months or years as the middle crossed — so `-9h` leaves "March 2019" as
    /// it is, and only a shift that carries it past half the unit moves it to another.
    static func shifted(_ taken: String, by seconds: Int, granularity: Int = 0) -> String? {
        guard let s = self.seconds(taken) else { return nil }
        let unit: Calendar.Component
        switch granularity {
        case 4: unit = .month
        case 6, 8: unit = .year
        default: return text(s + seconds)
        }
        let date = Date(timeIntervalSince1970: Double(s))
        guard let interval = calendar.dateInterval(of: unit, for: date),
              let landed = calendar.dateInterval(of: unit, for: interval.start.addingTimeInterval(interval.duration / 2 + Double(seconds))),
              let units = calendar.dateComponents([unit], from: interval.start, to: landed.start).value(for: unit)
        else { return nil }
        // Whole units: the day and time within the month or year stay as they were.
        guard units != 0, let moved = calendar.date(byAdding: unit, value: units, to: date) else { return taken }
        return text(Int(moved.timeIntervalSince1970))
    }

    /// What a granularity says is known of a date: `second`, `month`, `year`, `circa`.
    public static func granularityName(_ granularity: Int) -> String {
        switch granularity {
        case 4: "month"
        case 6: "year"
        case 8: "circa"
        case 0: "second"
        default: "granularity \(granularity)"
        }
    }

    /// Why Flickr would refuse `taken` as a date taken, or nil: before 1900 or in the future.
    static func refusal(_ taken: String, now: Date = Date()) -> String? {
        guard let s = seconds(taken) else { return "'\(taken)' is not a date" }
        if s < -2_208_988_800 { return "date taken \(taken) is before 1900" }
        if s > Int(now.timeIntervalSince1970) + 86_400 { return "date taken \(taken) is in the future" }
        return nil
    }
}
