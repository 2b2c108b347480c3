/// A small cache keyed by the address of an element or attribute name.
///
/// libxml2 interns names in its dictionary, so during one parse a name always arrives as the
/// same pointer: the first time it is seen, `make` turns it into whatever the consumer needs
/// (a Swift String, a Lua string, per-name list facts); later it is a pointer comparison. Open
/// addressing with linear probing; when full (hundreds of distinct names), `slot` returns -1
/// and the caller converts the name itself.
package struct InternedNames<Payload> {
    @usableFromInline var pointers: [UnsafeRawPointer?]
    @usableFromInline var payloads: [Payload?]

    /// `capacity` must be a power of two.
    package init(capacity: Int = 256) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        pointers = Array(repeating: nil, count: capacity)
        payloads = Array(repeating: nil, count: capacity)
    }

    /// The slot of the name at `p`, made with `make` when new; -1 when the table is full.
    @inlinable @inline(__always)
    package mutating func slot(_ p: UnsafePointer<CChar>, make: (UnsafePointer<CChar>) -> Payload) -> Int {
        let key = UnsafeRawPointer(p)
        let mask = pointers.count - 1
        var i = Int(truncatingIfNeeded: (UInt(bitPattern: p) &* 0x9E37_79B9_7F4A_7C15) >> 56) & mask
        for _ in 0..<pointers.count {
            guard let occupant = pointers[i] else {
                pointers[i] = key
                payloads[i] = make(p)
                return i
            }
            if occupant == key { return i }
            i = (i + 1) & mask
        }
        return -1
    }

    /// The payload of a slot returned by ``slot(_:make:)``.
    @inlinable @inline(__always)
    package subscript(slot: Int) -> Payload { payloads[slot]! }
}
