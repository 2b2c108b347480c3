/// A Flickr-style photo list for the mapping tests of large documents (FlickrProtocolTests and
/// FlickrLuaTests): one photo per line, so that a test can put what it needs between photos (a
/// comment, CDATA, an error).
public enum PhotoListXML {
    /// The XML declaration, `<rsp stat="ok">` and `<photos page="1">`, each on a line of its own.
    public static let head = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photos page=\"1\">\n"
    /// Closes the list, then an empty element after it, then the document.
    public static let tail = "</photos>\n<empty/>\n</rsp>\n"

    /// One line per photo in `range`: attributes with an entity and a non-ASCII letter, and a
    /// child element whose text has an entity.
    public static func photos(_ range: Range<Int>) -> String {
        range.map { "\t<photo id=\"\($0)\" title=\"t &amp; \($0) caf\u{e9}\" ispublic=\"1\"><tag>x\($0) &lt;</tag></photo>\n" }.joined()
    }

    /// A whole list of `count` photos.
    public static func document(photos count: Int) -> String {
        head + photos(0..<count) + tail
    }
}
