/// SHA-1 (FIPS 180-4), used only to build name-based UUIDs (RFC 9562 version 5).
///
/// SHA-1 is broken for collision resistance; here it only maps a name to a stable identifier, which
/// is exactly what UUIDv5 specifies. Foundation on Linux offers neither SHA-1 nor UUIDv5, hence this
/// small implementation. Verified against the FIPS 180-4 / RFC 3174 test vectors in the tests.
///
/// No heap allocation besides the returned array of ``digest(_:)``: whole blocks are compressed straight from the
/// message's bytes, the padded tail in a 128-byte buffer on the stack (``digest(bytes:)`` returns the digest as a
/// value). A live session hashes one signal id per bar this way.
public enum SHA1 {
    /// The five 32-bit words of a SHA-1 state (and of a digest, big-endian words).
    public typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32)

    static let initialState: Words = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)

    /// The 20-byte SHA-1 digest of `message`.
    public static func digest(_ message: some Collection<UInt8>) -> [UInt8] {
        let h: Words
        if let words = message.withContiguousStorageIfAvailable({ digest(bytes: UnsafeRawBufferPointer($0)) }) {
            h = words
        } else {
            h = Array(message).withUnsafeBytes { digest(bytes: $0) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return out
    }

    /// The SHA-1 digest of `bytes` as five big-endian words (digest byte `4i + j` is byte `j`, most significant
    /// first, of word `i`). Allocation-free.
    public static func digest(bytes: UnsafeRawBufferPointer) -> Words {
        var h = initialState
        let count = bytes.count
        let whole = count / 64
        for b in 0..<whole { compress(&h, bytes.baseAddress! + 64 * b) }
        // The tail and padding: 0x80, zeros to 56 mod 64, then the bit length as a big-endian 64-bit integer.
        let rest = count - 64 * whole
        let bitLength = UInt64(count) &* 8
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
            let t = tail.baseAddress!
            tail.initializeMemory(as: UInt8.self, repeating: 0)
            if rest > 0 { t.copyMemory(from: bytes.baseAddress! + 64 * whole, byteCount: rest) }
            t.storeBytes(of: 0x80, toByteOffset: rest, as: UInt8.self)
            let blocks = rest < 56 ? 1 : 2
            t.storeBytes(of: bitLength.bigEndian, toByteOffset: 64 * blocks - 8, as: UInt64.self)
            compress(&h, UnsafeRawPointer(t))
            if blocks == 2 { compress(&h, UnsafeRawPointer(t + 64)) }
        }
        return h
    }

    /// One SHA-1 compression of the 64-byte block at `block` into `h`.
    @inline(__always)
    static func compress(_ h: inout Words, _ block: UnsafeRawPointer) {
        // The message schedule as a ring of 16 words (w[i] for i ≥ 16 needs only the 16 before it).
        var w: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &w) { raw in
            let w = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for i in 0..<16 { w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)) }
            var (a, b, c, d, e) = h
            @inline(__always) func schedule(_ i: Int) -> UInt32 {
                if i < 16 { return w[i] }
                let x = rotateLeft(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15], 1)
                w[i & 15] = x
                return x
            }
            @inline(__always) func round(_ f: UInt32, _ k: UInt32, _ wi: UInt32) {
                let temp = rotateLeft(a, 5) &+ f &+ e &+ k &+ wi
                e = d
                d = c
                c = rotateLeft(b, 30)
                b = a
                a = temp
            }
            for i in 0..<20 { round((b & c) | (~b & d), 0x5A82_7999, schedule(i)) }
            for i in 20..<40 { round(b ^ c ^ d, 0x6ED9_EBA1, schedule(i)) }
            for i in 40..<60 { round((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, schedule(i)) }
            for i in 60..<80 { round(b ^ c ^ d, 0xCA62_C1D6, schedule(i)) }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }
    }

    @inline(__always) static func rotateLeft(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}

/// Name-based UUIDs, version 5 (RFC 9562 §5.5, formerly RFC 4122 §4.3): SHA-1 of namespace ‖ name,
/// truncated to 16 bytes, with the version nibble set to 5 and the variant bits to `10`.
public enum NameBasedUUID {
    /// The RFC 4122 URL namespace, `6ba7b811-9dad-11d1-80b4-00c04fd430c8`.
    public static let urlNamespace: [UInt8] = [
        0x6B, 0xA7, 0xB8, 0x11, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8,
    ]
    /// The RFC 4122 DNS namespace, `6ba7b810-9dad-11d1-80b4-00c04fd430c8`.
    public static let dnsNamespace: [UInt8] = [
        0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8,
    ]

    /// The version-5 UUID of `name` (UTF-8) in `namespace` (16 bytes), as 16 bytes.
    public static func version5Bytes(namespace: [UInt8], name: String) -> [UInt8] {
        precondition(namespace.count == 16, "a UUID namespace has 16 bytes")
        var hash = SHA1.digest(namespace + Array(name.utf8))
        hash.removeLast(4)
        hash[6] = (hash[6] & 0x0F) | 0x50
        hash[8] = (hash[8] & 0x3F) | 0x80
        return hash
    }

    /// The version-5 UUID of `name` in `namespace`, in lowercase 8-4-4-4-12 text form (as Python's `uuid.uuid5`).
    public static func version5(namespace: [UInt8], name: String) -> String {
        format(version5Bytes(namespace: namespace, name: name))
    }

    /// The version-5 UUID whose hashed message (namespace ‖ name, already concatenated) is `message`, written as
    /// its 36 lowercase 8-4-4-4-12 text bytes at `out` (room for 36 bytes). Allocation-free: the same bytes as
    /// ``version5(namespace:name:)`` of that namespace and name.
    public static func writeVersion5(message: UnsafeRawBufferPointer, to out: UnsafeMutablePointer<UInt8>) {
        let h = SHA1.digest(bytes: message)
        // Bytes 0..<16 of the digest: words 0...3, big-endian.
        var bytes: (UInt32, UInt32, UInt32, UInt32) = (h.0.bigEndian, h.1.bigEndian, h.2.bigEndian, h.3.bigEndian)
        withUnsafeMutableBytes(of: &bytes) { b in
            b[6] = (b[6] & 0x0F) | 0x50
            b[8] = (b[8] & 0x3F) | 0x80
            let hex: StaticString = "0123456789abcdef"
            let digits = hex.utf8Start
            var k = 0
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    out[k] = UInt8(ascii: "-")
                    k += 1
                }
                out[k] = digits[Int(b[i] >> 4)]
                out[k + 1] = digits[Int(b[i] & 0x0F)]
                k += 2
            }
        }
    }

    /// 16 bytes as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase.
    public static func format(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16, "a UUID has 16 bytes")
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
