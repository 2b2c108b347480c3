/// The sections of lua/editor/definitions.lua, the hand-written part of the LuaCATS definitions
/// (``LuaDefinitions``): a line `--@@ NAME [ARG…]` starts a section that runs to the next one;
/// the lines before the first section are the template's own notes.
struct DefinitionsTemplate: Sendable {
    struct Section: Sendable {
        let name: String
        let arguments: [String]
        /// The section's lines, each ending in a newline; empty for a section without lines.
        let text: String
    }

    let sections: [Section]

    init(_ text: String) {
        var sections: [Section] = []
        var current: (name: String, arguments: [String], lines: [Substring])?
        func close() {
            guard let current else { return }
            let body = current.lines.map { $0 + "\n" }.joined()
            sections.append(Section(name: current.name, arguments: current.arguments, text: body))
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("--@@ ") {
                close()
                let words = line.dropFirst(5).split(separator: " ").map(String.init)
                current = (words.first ?? "", Array(words.dropFirst()), [])
            } else {
                current?.lines.append(line)
            }
        }
        // The file's final newline leaves an empty last line, which is not part of the section.
        if current?.lines.last?.isEmpty == true { current?.lines.removeLast() }
        close()
        self.sections = sections
    }

    /// The text of the first section called `name` (empty when there is none; a test checks
    /// that every section LuaDefinitions reads is there).
    func section(_ name: String) -> String {
        sections.first { $0.name == name }?.text ?? ""
    }
}
