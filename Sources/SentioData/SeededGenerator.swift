#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// xoshiro256** (Blackman & Vigna 2018, https://prng.di.unimi.it/), seeded through SplitMix64.
///
/// Deterministic on every platform, unlike `SystemRandomNumberGenerator`; used by the synthetic market so a seed
/// always produces the same bytes.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    private var spareGaussian: Double? = nil

    /// Seeds the four state words with successive SplitMix64 outputs of `seed` (never all zero).
    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    /// A generator for an independent sub-stream `stream` of `seed` (a different SplitMix64 starting point).
    public init(seed: UInt64, stream: UInt64) {
        self.init(seed: seed ^ (stream &+ 1) &* 0xD1B5_4A32_D192_ED03)
    }

    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in (0, 1]: 53 random bits.
    @inline(__always)
    public mutating func nextUnitInterval() -> Double {
        Double((next() >> 11) + 1) * 0x1p-53
    }

    /// Standard normal variate (Box–Muller; the second value of each pair is kept for the next call).
    @inline(__always)
    public mutating func nextGaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        let u1 = nextUnitInterval(), u2 = nextUnitInterval()
        let radius = (-2 * log(u1)).squareRoot()
        let angle = 2 * Double.pi * u2
        spareGaussian = radius * sin(angle)
        return radius * cos(angle)
    }
}
