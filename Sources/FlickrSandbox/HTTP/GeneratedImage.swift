/// The images the sandbox serves for a seeded photo, which has no file of its own: of the format
/// and the dimensions its `getSizes` states, deterministic, and small whatever the size (a
/// 6000×4000 JPEG is 94 KB, a PNG of it 9 KB), so that a tool that reads an image's header or
/// decodes it gets what Flickr's answers promise.
enum GeneratedImage {
    /// A mid-grey baseline JPEG of `width × height` (1…65535): every 8×8 block is DC-only (DC
    /// difference 0, end of block), two bits a block with one-code Huffman tables.
    static func jpeg(width: Int, height: Int) -> [UInt8] {
        let w = min(max(width, 1), 65_535), h = min(max(height, 1), 65_535)
        var b: [UInt8] = [0xFF, 0xD8]
        b += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)  // quantisation table
        b += [0xFF, 0xC0, 0x00, 0x0B, 0x08] + be16(h) + be16(w) + [0x01, 0x01, 0x11, 0x00]  // SOF0, one grey component
        b += [0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]  // DC: one code, category 0
        b += [0xFF, 0xC4, 0x00, 0x14, 0x10, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]  // AC: one code, end of block
        b += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]  // SOS
        let blocks = ((w + 7) / 8) * ((h + 7) / 8)
        let bits = 2 * blocks
        b += [UInt8](repeating: 0, count: bits / 8)  // zero bits only: no 0xFF to stuff
        if bits % 8 != 0 { b.append(UInt8(0xFF >> (bits % 8))) }  // the last bits, padded with ones
        b += [0xFF, 0xD9]
        return b
    }

    /// A black 1-bit greyscale PNG of `width × height`. Its pixel rows (a filter byte and
    /// ⌈width/8⌉ bytes, all zero) are compressed as one literal and runs of 258 at distance 1
    /// with deflate's fixed codes: 13 bits for every 258 bytes.
    static func png(width: Int, height: Int) -> [UInt8] {
        let w = max(width, 1), h = max(height, 1)
        var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        b += chunk("IHDR", be32(w) + be32(h) + [1, 0, 0, 0, 0])  // 1 bit, greyscale, no interlace
        let raw = h * (1 + (w + 7) / 8)
        b += chunk("IDAT", zlibZeros(raw))
        b += chunk("IEND", [])
        return b
    }

    /// A GIF of `width × height` (1…65535), one colour: its pixels as LZW codes of 9 bits,
    /// restarted before the table would grow past them.
    static func gif(width: Int, height: Int) -> [UInt8] {
        let w = min(max(width, 1), 65_535), h = min(max(height, 1), 65_535)
        var b = Array("GIF89a".utf8) + le16(w) + le16(h) + [0xF0, 0, 0] + [0x80, 0x80, 0x80, 0, 0, 0]  // 2-colour table
        b += [0x2C] + le16(0) + le16(0) + le16(w) + le16(h) + [0x00, 0x08]  // image descriptor, LZW minimum 8
        var bits = BitWriter()
        let clear = 256, end = 257
        var pixels = w * h
        while pixels > 0 {
            bits.write(clear, count: 9)
            // After a clear each code adds a table entry: 254 codes keep the table under 512.
            let run = min(pixels, 254)
            for _ in 0..<run { bits.write(0, count: 9) }
            pixels -= run
        }
        bits.write(end, count: 9)
        let data = bits.finish()
        var i = 0
        while i < data.count {
            let n = min(255, data.count - i)
            b.append(UInt8(n))
            b += data[i..<(i + n)]
            i += n
        }
        b += [0x00, 0x3B]
        return b
    }

    /// Bits packed from the least significant end (deflate's and GIF's order).
    struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var filled = 0

        mutating func write(_ value: Int, count: Int) {
            current |= UInt32(value) << UInt32(filled)
            filled += count
            while filled >= 8 {
                bytes.append(UInt8(current & 0xFF))
                current >>= 8
                filled -= 8
            }
        }

        /// A Huffman code: its bits go most significant first.
        mutating func writeCode(_ code: Int, count: Int) {
            var reversed = 0
            for i in 0..<count where code & (1 << i) != 0 { reversed |= 1 << (count - 1 - i) }
            write(reversed, count: count)
        }

        mutating func finish() -> [UInt8] {
            if filled > 0 { bytes.append(UInt8(current & 0xFF)) }
            current = 0
            filled = 0
            return bytes
        }
    }

    /// A zlib stream of `count` zero bytes: one fixed-code deflate block.
    static func zlibZeros(_ count: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)   // final block
        bits.write(1, count: 2)   // fixed Huffman codes
        var left = count
        if left > 0 {
            bits.writeCode(0x30, count: 8)  // literal 0
            left -= 1
        }
        while left >= 3 {
            let run = min(258, left)
            writeLength(run, into: &bits)
            bits.write(0, count: 5)  // distance code 0: distance 1
            left -= run
        }
        for _ in 0..<left { bits.writeCode(0x30, count: 8) }
        bits.writeCode(0, count: 7)   // end of block (256)
        // Adler-32 of zeros: a stays 1, b grows by 1 a byte.
        let adler = UInt32(count % 65_521) << 16 | 1
        return [0x78, 0x01] + bits.finish() + be32(Int(adler))
    }

    /// Deflate's fixed code for a match length 3…258, with its extra bits.
    static func writeLength(_ length: Int, into bits: inout BitWriter) {
        if length == 258 {
            bits.writeCode(0b1100_0101, count: 8)  // 285
            return
        }
        // (first code, base length, extra bits) by group, per RFC 1951 3.2.5.
        let groups: [(Int, Int, Int)] = [(257, 3, 0), (265, 11, 1), (269, 19, 2), (273, 35, 3), (277, 67, 4), (281, 131, 5)]
        var (code, base, extra) = groups[0]
        for g in groups where length >= g.1 { (code, base, extra) = g }
        let offset = length - base
        let symbol = code + offset >> extra
        if symbol <= 279 {
            bits.writeCode(symbol - 256, count: 7)
        } else {
            bits.writeCode(0b1100_0000 + (symbol - 280), count: 8)
        }
        if extra > 0 { bits.write(offset & ((1 << extra) - 1), count: extra) }
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
