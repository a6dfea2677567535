import Foundation
import SentioCore

/// A 64-bit fingerprint of a file's bytes, used to recognise a file that was already imported.
///
/// The hash is XXH64 with seed 0 (Yann Collet's xxHash, https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md),
/// written as 16 lowercase hex digits — the same text `xxhsum -H1 FILE` prints. It is not cryptographic: it
/// detects an unchanged file, not a malicious one. At several GB/s it costs little next to parsing the file.
public enum ContentFingerprint {
    /// The fingerprint of the file at `path`.
    ///
    /// - Throws: the file-system error when the file cannot be read.
    public static func ofFile(atPath path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        return of(data)
    }

    /// The fingerprint of `bytes`.
    public static func of(_ bytes: Data) -> String {
        hex(bytes.withUnsafeBytes { xxh64($0, seed: 0) })
    }

    /// The fingerprint of bar data: XXH64 chained over each series' symbol (UTF-8) and the raw little-endian
    /// bytes of its columns, in order. Equal series give equal fingerprints on any machine of the same byte order;
    /// used as the input fingerprint of a backtest run.
    public static func of(series: [OHLCVSeries]) -> String {
        var hash: UInt64 = 0
        for item in series {
            hash = Array(item.symbol.utf8).withUnsafeBytes { xxh64($0, seed: hash) }
            hash = item.timestamps.withUnsafeBytes { xxh64($0, seed: hash) }
            for column in [item.open, item.high, item.low, item.close, item.volume] {
                hash = column.withUnsafeBytes { xxh64($0, seed: hash) }
            }
        }
        return hex(hash)
    }

    /// Formats a hash as 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static let prime1: UInt64 = 11_400_714_785_074_694_791
    private static let prime2: UInt64 = 14_029_467_366_897_019_727
    private static let prime3: UInt64 = 1_609_587_929_392_839_161
    private static let prime4: UInt64 = 9_650_029_242_287_828_579
    private static let prime5: UInt64 = 2_870_177_450_012_600_261

    @inline(__always)
    private static func rotateLeft(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        rotateLeft(accumulator &+ lane &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func mergeRound(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        (accumulator ^ round(0, lane)) &* prime1 &+ prime4
    }

    /// XXH64 of `buffer` (spec sections 2.1–2.6): four lanes over 32-byte stripes, then the tail, then avalanche.
    static func xxh64(_ buffer: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        let length = buffer.count
        var offset = 0
        var hash: UInt64
        @inline(__always) func read64(_ at: Int) -> UInt64 {
            UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        if length >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            while offset + 32 <= length {
                v1 = round(v1, read64(offset))
                v2 = round(v2, read64(offset + 8))
                v3 = round(v3, read64(offset + 16))
                v4 = round(v4, read64(offset + 24))
                offset += 32
            }
            hash = rotateLeft(v1, 1) &+ rotateLeft(v2, 7) &+ rotateLeft(v3, 12) &+ rotateLeft(v4, 18)
            hash = mergeRound(hash, v1)
            hash = mergeRound(hash, v2)
            hash = mergeRound(hash, v3)
            hash = mergeRound(hash, v4)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(length)
        while offset + 8 <= length {
            hash ^= round(0, read64(offset))
            hash = rotateLeft(hash, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= length {
            let word = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            hash ^= UInt64(word) &* prime1
            hash = rotateLeft(hash, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < length {
            hash ^= UInt64(buffer[offset]) &* prime5
            hash = rotateLeft(hash, 11) &* prime1
            offset += 1
        }
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }
}
