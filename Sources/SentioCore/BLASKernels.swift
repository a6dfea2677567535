import CSentioLinearAlgebra

/// Allocation-free BLAS kernels over caller-owned buffers, for streaming code that must not
/// allocate (``Matrix``'s operations return new matrices).
public enum BLASKernels {
    /// Upper triangle of `C = A Aᵀ = Σᵣ aᵣ aᵣᵀ`, the sum of the outer products of the `count`
    /// columns `aᵣ` (each of length `dimension`) of the column-major matrix at `a`, by BLAS `dsyrk`.
    ///
    /// Used for Gram matrices of observations stored one per column (equivalently: row-major
    /// observations of `dimension` variables). Only `C[i + j·dimension]` with `i ≤ j` is written.
    /// - Parameters:
    ///   - a: `dimension × count` column-major matrix, leading dimension `dimension`.
    ///   - c: `dimension × dimension` column-major output, leading dimension `dimension`.
    public static func sumOfOuterProducts(
        columnsOf a: UnsafePointer<Double>, dimension: Int, count: Int, into c: UnsafeMutablePointer<Double>
    ) {
        precondition(dimension > 0 && count >= 0)
        cblas_dsyrk(
            CblasColMajor, CblasUpper, CblasNoTrans, Int32(dimension), Int32(count), 1.0,
            a, Int32(dimension), 0.0, c, Int32(dimension))
    }
}
