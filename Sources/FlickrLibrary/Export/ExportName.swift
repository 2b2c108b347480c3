import Foundation

/// File and folder names an export writes, safe on every file system people copy an archive
/// to (ext4, APFS, NTFS, exFAT, FAT32 through a USB stick, SMB shares):
/// - no `<>:"/\|?*` and no control character (each becomes `_`);
/// - no leading dot (a hidden file), no trailing dot or space (Windows drops them);
/// - no Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9), with or without an extension;
/// - at most 255 bytes of UTF-8, cut on a character, keeping what ends the name;
/// - in NFC, so that a name typed on one system matches the one listed on another.
///
/// Names equal ignoring case are told apart by the caller (``ExportTree``), since it knows what
/// tells them apart (a set's id, a photo's).
enum ExportName {
    static let limit = 255
    static let forbidden = Set("<>:\"/\\|?*".unicodeScalars)
    static let devices: Set<String> = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    /// `text` made safe to stand in a name (not yet cut to length).
    static func clean(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.precomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || forbidden.contains(scalar) {
                out.append("_")
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// A whole name: `stem` (cut to fit) followed by `suffix` (kept whole: ` (ID).jpg`, ` (SET_ID)`),
    /// cleaned, with no leading dot, no trailing dot or space, no device name.
    static func make(_ stem: String, suffix: String = "") -> String {
        let tail = clean(suffix)
        var head = clean(stem)
        // Spaces and dots at the end of the stem only matter when nothing follows it.
        if tail.isEmpty { while let last = head.last, last == "." || last == " " { head.removeLast() } }
        while head.utf8.count + tail.utf8.count > limit, !head.isEmpty { head.removeLast() }
        var name = head + tail
        while let last = name.last, last == "." || last == " " { name.removeLast() }
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        if name.isEmpty { name = "_" }
        let base = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? name
        if devices.contains(base.trimmingCharacters(in: .whitespaces).uppercased()) { name = "_" + name }
        while name.utf8.count > limit { name.removeLast() }
        return name
    }

    /// The key two names share when a case-insensitive file system (APFS, NTFS, exFAT) would
    /// take them for one.
    static func caseKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive], locale: nil)
    }
}
