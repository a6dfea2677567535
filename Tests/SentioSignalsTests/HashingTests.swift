import Testing
@testable import SentioSignals

@Suite("SHA-1 and UUIDv5")
struct HashingTests {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

    // FIPS 180-4 / RFC 3174 test vectors.
    @Test func fipsVectors() {
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func paddingBoundaries() {
        // 55, 56 and 64 bytes straddle the one-block/two-block padding boundary (values from Python hashlib.sha1).
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 55))) == "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 56))) == "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 64))) == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    @Test func uuid5MatchesPython() {
        // Python: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org") (its documentation's example).
        #expect(NameBasedUUID.version5(namespace: NameBasedUUID.dnsNamespace, name: "python.org")
            == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
        // Python: uuid.uuid5(uuid.NAMESPACE_URL, "sentio:signal:TQQQ:2025-10-20T10:30:00Z").
        #expect(Signal.idName(symbol: "TQQQ", timestamp: 1_760_956_200) == "sentio:signal:TQQQ:2025-10-20T10:30:00Z")
        #expect(NameBasedUUID.version5(namespace: NameBasedUUID.urlNamespace, name: "sentio:signal:TQQQ:2025-10-20T10:30:00Z")
            == "a6ec49a7-f5fe-5157-9696-6cf50b42d010")
    }
}
