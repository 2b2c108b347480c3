import Foundation

extension FlickrNode {
    /// The value as an integer (`"15849"` → 15849), attribute or element text alike; nil when
    /// it is not a whole number.
    public var int: Int? { string.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    /// The value as a number (`"35.012345"`, `"-2"`); nil when it is not one.
    public var double: Double? {
        string.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A flag as Flickr sends it: `"1"` / `"0"` (`ispublic="1"`, JSON `true` maps to `"1"`),
    /// also `"true"` / `"false"` in any case; nil for anything else.
    public var bool: Bool? { string.flatMap(Self.flag) }

    /// A date as Flickr sends it: a Unix timestamp (`dateupload="1700000000"`, `lastupdate`,
    /// `posted`) or a MySQL datetime `YYYY-MM-DD HH:MM:SS` (`datetaken`, `taken`), read as UTC
    /// (Flickr's taken dates carry no time zone), or a day `YYYY-MM-DD`; nil for anything else,
    /// `0000-00-00 00:00:00` included. See ``FlickrDateFormat``.
    public var date: Date? { string.flatMap(FlickrDateFormat.date(fromAny:)) }

    /// `"1"`/`"0"`/`"true"`/`"false"` → a Bool (the rule of ``bool``).
    static func flag(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true": true
        case "0", "false": false
        default: nil
        }
    }
}
