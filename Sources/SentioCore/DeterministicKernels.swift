/// Allocation-free kernels over caller-owned buffers whose every result is the same bits on every CPU.
///
/// OpenBLAS chooses its kernels by the CPU it detects (`OPENBLAS_CORETYPE` forces one): the Prescott, Sandybridge
/// and Haswell kernels of `dsyrk` sum the same products in different orders and blocks, so a Gram matrix, and every
/// number computed from it, differed in its last bits from machine to machine (and with it a signal at a threshold).
/// The kernels here fix the order of every sum in the source: each output element is a left-to-right sum over the
/// observations, in their order, with no fused multiply-add (Swift never contracts `a * b + c`). The compiler may
/// vectorize *across* output elements, which leaves each element's operation sequence unchanged.
public enum DeterministicKernels {
    /// Upper triangle of `C = A Aᵀ = Σᵣ aᵣ aᵣᵀ`, the sum of the outer products of the `count` columns `aᵣ` (each of
    /// length `dimension`) of the column-major matrix at `a`.
    ///
    /// `C[i + j·dimension] = ((0 + a₀ᵢa₀ⱼ) + a₁ᵢa₁ⱼ) + … + a₍count−1₎ᵢ a₍count−1₎ⱼ` for `i ≤ j`, summed in the order of
    /// the columns (recursive summation: `|error| ≤ γ_count · Σᵣ |aᵣᵢ aᵣⱼ|`, `γₙ = n·u/(1 − n·u)`, Higham, *Accuracy
    /// and Stability of Numerical Algorithms*, 2nd ed., §3.1). Used for Gram matrices of observations stored one per
    /// column (equivalently: row-major observations of `dimension` variables). Only `C[i + j·dimension]` with
    /// `i ≤ j` is written. Replaces BLAS `dsyrk`, whose summation order depends on the CPU.
    /// - Parameters:
    ///   - a: `dimension × count` column-major matrix, leading dimension `dimension`.
    ///   - c: `dimension × dimension` column-major output, leading dimension `dimension`.
    public static func sumOfOuterProducts(
        columnsOf a: UnsafePointer<Double>, dimension: Int, count: Int, into c: UnsafeMutablePointer<Double>
    ) {
        precondition(dimension > 0 && count >= 0)
        // Constant dimensions let the optimizer unroll the lane loops (the signal model's k = 5 regressors give 6;
        // callgrind, 6×120 window: 14.5k instructions against 29.2k for the plain loop and 9.5k for OpenBLAS's
        // dsyrk; 4×60: 5.4k, 8.7k and 3.2k).
        switch dimension {
        case 2: sumOfOuterProductsInLanes(a, 2, count, c)
        case 3: sumOfOuterProductsInLanes(a, 3, count, c)
        case 4: sumOfOuterProductsInLanes(a, 4, count, c)
        case 5: sumOfOuterProductsInLanes(a, 5, count, c)
        case 6: sumOfOuterProductsInLanes(a, 6, count, c)
        case 7: sumOfOuterProductsInLanes(a, 7, count, c)
        case 8: sumOfOuterProductsInLanes(a, 8, count, c)
        default:
            for j in 0..<dimension {
                for i in 0...j { c[i &+ j &* dimension] = 0 }
            }
            for r in 0..<count {
                let column = a + r &* dimension
                for j in 0..<dimension {
                    let aj = column[j]
                    let cj = c + j &* dimension
                    for i in 0...j { cj[i] += column[i] * aj }
                }
            }
        }
    }

    /// ``sumOfOuterProducts(columnsOf:dimension:count:into:)`` for `dimension ≤ 8`: column `j` of `C` accumulates in
    /// the lanes of one `SIMD8` (lane `i` is `C[i, j]`), so each element sees exactly the scalar loop's operations
    /// in the same order (lane-wise multiply, then add; no fused multiply-add), in registers instead of memory.
    @inline(__always)
    static func sumOfOuterProductsInLanes(
        _ a: UnsafePointer<Double>, _ dimension: Int, _ count: Int, _ c: UnsafeMutablePointer<Double>
    ) {
        var sums = (SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>(),
                    SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>())
        withUnsafeMutableBytes(of: &sums) { raw in
            let column = raw.baseAddress!.assumingMemoryBound(to: SIMD8<Double>.self)
            for r in 0..<count {
                let row = a + r &* dimension
                var v = SIMD8<Double>(repeating: 0)
                for i in 0..<dimension { v[i] = row[i] }
                for j in 0..<dimension { column[j] = column[j] + v * SIMD8(repeating: v[j]) }
            }
            for j in 0..<dimension {
                for i in 0...j { c[i &+ j &* dimension] = column[j][i] }
            }
        }
    }
}
