import FlickrCommandLine
import FlickrProtocol
import FlickrTestSupport
import Testing

/// Texts laid out at the window's width: never wider, words never split.
@Suite("Text at the terminal's width", .tags(.unit))
struct TextLayoutTests {
    /// Every help text there is: each method's, each group's, the overview's, each subcommand's.
    static var texts: [String] {
        MethodCatalog.shared.methods.map(\.helpText) + MethodCatalog.shared.groups.compactMap { try? MethodCatalog.shared.helpTopic($0.name).text }
            + CommandLineSpec.subcommands.map(\.helpText) + [CommandLineSpec.usage]
    }

    @Test("At 30, 40, 80 and 120 columns no line is wider, and every word printed is a whole word of the text (a cut word ends in …)",
          arguments: [30, 40, 80, 120])
    func neverWiderWordsWhole(width: Int) {
        for text in Self.texts {
            let fitted = TextLayout.fit(text, width: width)
            let wide = Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
            for line in fitted.split(separator: "\n") {
                #expect(line.count <= width, "\(line.count) > \(width): \(line)")
                for word in line.split(separator: " ") where !wide.contains(String(word)) {
                    #expect(word.hasSuffix("…") && wide.contains { $0.hasPrefix(word.dropLast()) }, "'\(word)' is not a word of the text")
                }
            }
            // Nothing lost: the same words in the same order.
            let words = { (s: String) in s.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { $0.hasSuffix("…") ? String($0.dropLast()) : String($0) } }
            let (a, b) = (words(text), words(fitted))
            #expect(a.count == b.count && zip(a, b).allSatisfy { $0.hasPrefix($1) }, "words lost or reordered at \(width)")
        }
    }

    @Test("A table row's continuation lines stay under its text column; a line that fits is left as it is")
    func tableRows() {
        let row = "  --budget N/SECONDS      calls per API key shared by every flickr process (default 3500/3600 for Flickr)"
        let fitted = TextLayout.fit(row, width: 60).split(separator: "\n")
        #expect(fitted.count > 1 && fitted.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 26)) && !$0.hasPrefix(String(repeating: " ", count: 27)) },
                "\(fitted)")
        #expect(TextLayout.fit("short line", width: 40) == "short line")
    }
}
