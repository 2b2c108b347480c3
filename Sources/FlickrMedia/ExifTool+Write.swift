import Foundation

extension ExifTool {
    /// One tag to write, as ExifTool names it with its group (`XMP-dc:Title`, `IPTC:Keywords`,
    /// `ExifIFD:DateTimeOriginal`): several assignments of a list tag make its items, in order;
    /// an empty value deletes the tag.
    public struct Assignment: Sendable, Hashable {
        public var tag: String
        public var value: String

        public init(_ tag: String, _ value: String) {
            (self.tag, self.value) = (tag, value)
        }
    }

    /// Writes `assignments` into the file at `path` (a local path without a newline), in place:
    /// ExifTool writes the new file beside it and renames it over, so a kill leaves the old file
    /// or the new one. A path that does not exist and ends in `.xmp` becomes a new XMP sidecar
    /// holding the XMP assignments. IPTC is written as UTF-8; values too long for IPTC are cut
    /// at its limits. Control characters other than tab, line feed and carriage return (which no
    /// XMP packet can hold) are left out of values.
    public func write(_ path: String, _ assignments: [Assignment]) throws(Failure) {
        guard !path.contains("\n") else { throw Failure(description: "\(path): a file name with a line break cannot be handed to exiftool") }
        // `-ec`: values are C-escaped, so that a value's line breaks and backslashes pass intact
        // through the one-argument-a-line protocol (ExifTool unescapes them as it writes).
        let arguments = ["-overwrite_original", "-m", "-ec", "-charset", "filename=utf8", "-codedcharacterset=utf8"]
            + assignments.map { "-" + $0.tag + "=" + Self.cEscaped($0.value) } + [path]
        let answer = try exchange(arguments)
        guard answer.contains("1 image files updated") || answer.contains("1 image files created")
                || answer.contains("1 image files unchanged") else {
            let said = answer.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
            throw Failure(description: "\(path): exiftool wrote nothing (\(said.isEmpty ? "no answer" : said))")
        }
    }

    /// Writes a copy of the file at `source` with no metadata at all to `destination` (which must
    /// not exist): what is left is the image data, so two files whose copies are equal hold the
    /// same pixels, whatever metadata each carried.
    public func writeWithoutMetadata(_ source: String, to destination: String) throws(Failure) {
        guard !source.contains("\n"), !destination.contains("\n") else {
            throw Failure(description: "\(source): a file name with a line break cannot be handed to exiftool")
        }
        let answer = try exchange(["-m", "-charset", "filename=utf8", "-all=", "-o", destination, source])
        // "copied" when the file had no metadata to leave out.
        guard answer.contains("1 image files created") || answer.contains("1 image files copied") else {
            throw Failure(description: "\(source): exiftool made no copy without metadata (\(answer.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
    }

    /// Reads the tags named (with their groups, as `-G1` names them: `XMP-dc:Title`) of the
    /// file at `path`, each as its text or list of texts, unconverted (`-n`).
    public func readTags(_ path: String, _ tags: [String]) throws(Failure) -> [String: [String]] {
        guard !path.contains("\n") else { throw Failure(description: "\(path): a file name with a line break cannot be handed to exiftool") }
        let text = try exchange(["-json", "-n", "-G1", "-struct", "-charset", "filename=utf8"] + tags.map { "-" + $0 } + [path])
        guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], let object = array.first else {
            throw Failure(description: "\(path): exiftool read nothing (\(text.isEmpty ? "no answer" : text.prefix(200)))")
        }
        var out: [String: [String]] = [:]
        for (key, value) in object where key != "SourceFile" {
            let values = (value as? [Any]) ?? [value]
            out[key] = values.map { ($0 as? String) ?? ($0 as? NSNumber)?.stringValue ?? "\($0)" }
        }
        return out
    }

    /// `s` with its backslashes and line breaks C-escaped (as `-ec` reads them), without what
    /// XMP cannot hold.
    static func cEscaped(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
