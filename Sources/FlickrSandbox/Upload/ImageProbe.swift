/// Recognises an upload's file type and reads its pixel size from the first bytes.
enum ImageProbe {
    struct Result: Sendable {
        /// `jpg`, `png`, `gif`, …
        var format: String
        var media: String
        var width: Int?
        var height: Int?
    }

    /// nil when the bytes are no image or video Flickr would take ("Filetype was not recognised").
    static func probe(_ b: [UInt8]) -> Result? {
        func be16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) << 8 | Int(b[i + 1]) : 0 }
        func be32(_ i: Int) -> Int { i + 3 < b.count ? be16(i) << 16 | be16(i + 2) : 0 }
        func le16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i + 1]) << 8 | Int(b[i]) : 0 }
        func starts(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + sig.count && Array(b[offset..<(offset + sig.count)]) == sig
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            var r = Result(format: "jpg", media: "photo")
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { break }
                let marker = b[i + 1]
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = be16(i + 2)
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    r.height = be16(i + 5)
                    r.width = be16(i + 7)
                    break
                }
                guard length >= 2 else { break }
                i += 2 + length
            }
            return r
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return Result(format: "png", media: "photo", width: be32(16), height: be32(20))
        }
        if starts(Array("GIF8".utf8)) { return Result(format: "gif", media: "photo", width: le16(6), height: le16(8)) }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return Result(format: "tif", media: "photo") }
        if starts(Array("BM".utf8)), b.count > 26 {
            return Result(format: "bmp", media: "photo", width: le16(18), height: le16(22))
        }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return Result(format: "webp", media: "photo") }
        if starts(Array("RIFF".utf8)), starts(Array("AVI ".utf8), at: 8) { return Result(format: "avi", media: "video") }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = b.count >= 12 ? String(decoding: b[8..<12], as: UTF8.self) : ""
            if ["heic", "heix", "mif1", "msf1", "avif"].contains(brand) { return Result(format: "heic", media: "photo") }
            return Result(format: brand == "qt  " ? "mov" : "mp4", media: "video")
        }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return Result(format: "mpg", media: "video") }
        return nil
    }
}
