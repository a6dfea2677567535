import CSentioLinearAlgebra

// LAPACKE's `lapack_int` is a C macro and does not import; on this platform it is `int` (Int32).
private let columnMajor = Int32(LAPACK_COL_MAJOR)

extension Matrix {
    /// The matrix product `A B`, by BLAS `dgemm`.
    ///
    /// - Precondition: `lhs.columns == rhs.rows`.
    public static func * (lhs: Matrix, rhs: Matrix) -> Matrix {
        precondition(lhs.columns == rhs.rows, "product of \(lhs.rows)x\(lhs.columns) and \(rhs.rows)x\(rhs.columns)")
        var c = Matrix(rows: lhs.rows, columns: rhs.columns)
        guard lhs.rows > 0, rhs.columns > 0, lhs.columns > 0 else { return c }
        lhs.storage.withUnsafeBufferPointer { a in
            rhs.storage.withUnsafeBufferPointer { b in
                c.storage.withUnsafeMutableBufferPointer { cc in
                    cblas_dgemm(
                        CblasColMajor, CblasNoTrans, CblasNoTrans,
                        Int32(lhs.rows), Int32(rhs.columns), Int32(lhs.columns),
                        1.0, a.baseAddress, Int32(max(1, lhs.rows)),
                        b.baseAddress, Int32(max(1, rhs.rows)),
                        0.0, cc.baseAddress, Int32(max(1, lhs.rows)))
                }
            }
        }
        return c
    }

    /// The matrix-vector product `A x`, by BLAS `dgemv`.
    public static func * (lhs: Matrix, x: [Double]) -> [Double] {
        precondition(lhs.columns == x.count, "product of \(lhs.rows)x\(lhs.columns) matrix and \(x.count)-vector")
        var y = [Double](repeating: 0, count: lhs.rows)
        guard lhs.rows > 0, lhs.columns > 0 else { return y }
        lhs.storage.withUnsafeBufferPointer { a in
            x.withUnsafeBufferPointer { xx in
                y.withUnsafeMutableBufferPointer { yy in
                    cblas_dgemv(
                        CblasColMajor, CblasNoTrans, Int32(lhs.rows), Int32(lhs.columns), 1.0,
                        a.baseAddress, Int32(max(1, lhs.rows)), xx.baseAddress, 1, 0.0, yy.baseAddress, 1)
                }
            }
        }
        return y
    }

    /// `Aᵀ x`, by BLAS `dgemv`.
    public func transposeTimes(_ x: [Double]) -> [Double] {
        precondition(rows == x.count, "transpose product of \(rows)x\(columns) matrix and \(x.count)-vector")
        var y = [Double](repeating: 0, count: columns)
        guard rows > 0, columns > 0 else { return y }
        storage.withUnsafeBufferPointer { a in
            x.withUnsafeBufferPointer { xx in
                y.withUnsafeMutableBufferPointer { yy in
                    cblas_dgemv(
                        CblasColMajor, CblasTrans, Int32(rows), Int32(columns), 1.0,
                        a.baseAddress, Int32(max(1, rows)), xx.baseAddress, 1, 0.0, yy.baseAddress, 1)
                }
            }
        }
        return y
    }

    /// The cross-product (Gram matrix) `AᵀA`, by BLAS `dsyrk`, with both triangles filled.
    public func crossProduct() -> Matrix {
        var c = Matrix(rows: columns, columns: columns)
        guard rows > 0, columns > 0 else { return c }
        storage.withUnsafeBufferPointer { a in
            c.storage.withUnsafeMutableBufferPointer { cc in
                cblas_dsyrk(
                    CblasColMajor, CblasUpper, CblasTrans, Int32(columns), Int32(rows), 1.0,
                    a.baseAddress, Int32(max(1, rows)), 0.0, cc.baseAddress, Int32(columns))
            }
        }
        c.symmetrizeFromUpper()
        return c
    }

    /// Copies the upper triangle into the lower one.
    mutating func symmetrizeFromUpper() {
        let n = rows
        for j in 0..<n { for i in (j + 1)..<max(j + 1, n) { storage[i + j * n] = storage[j + i * n] } }
    }

    /// Solves `A x = b` for symmetric positive-definite `A` (Cholesky, LAPACK `dposv`).
    ///
    /// - Throws: `LinearAlgebraError.notPositiveDefinite` when the factorization breaks down,
    ///   `.nonFiniteInput` for NaN/inf.
    public func solvePositiveDefinite(_ b: [Double]) throws -> [Double] {
        guard rows == columns else { throw LinearAlgebraError.dimensionMismatch("dposv needs a square matrix, got \(rows)x\(columns)") }
        guard b.count == rows else { throw LinearAlgebraError.dimensionMismatch("right-hand side has \(b.count) rows, matrix \(rows)") }
        guard storage.allSatisfy(\.isFinite), b.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFiniteInput }
        var a = storage
        var x = b
        let n = Int32(rows)
        let info = LAPACKE_dposv(columnMajor, Int8(UInt8(ascii: "U")), n, 1, &a, max(1, n), &x, max(1, n))
        if info > 0 { throw LinearAlgebraError.notPositiveDefinite(order: Int(info)) }
        if info < 0 { throw LinearAlgebraError.lapackFailure(routine: "dposv", info: info) }
        return x
    }

    /// The inverse of a symmetric positive-definite matrix (LAPACK `dpotrf` + `dpotri`).
    public func inversePositiveDefinite() throws -> Matrix {
        guard rows == columns else { throw LinearAlgebraError.dimensionMismatch("inverse needs a square matrix, got \(rows)x\(columns)") }
        guard storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFiniteInput }
        var a = self
        let n = Int32(rows)
        var info = LAPACKE_dpotrf(columnMajor, Int8(UInt8(ascii: "U")), n, &a.storage, max(1, n))
        if info > 0 { throw LinearAlgebraError.notPositiveDefinite(order: Int(info)) }
        if info < 0 { throw LinearAlgebraError.lapackFailure(routine: "dpotrf", info: info) }
        info = LAPACKE_dpotri(columnMajor, Int8(UInt8(ascii: "U")), n, &a.storage, max(1, n))
        if info > 0 { throw LinearAlgebraError.notPositiveDefinite(order: Int(info)) }
        if info < 0 { throw LinearAlgebraError.lapackFailure(routine: "dpotri", info: info) }
        a.symmetrizeFromUpper()
        return a
    }
}

/// The result of a least-squares fit `min ‖X β − y‖₂`.
public struct LeastSquaresSolution: Sendable, Equatable {
    /// The coefficients β, one per column of X.
    public var coefficients: [Double]
    /// The residual sum of squares ‖X β − y‖².
    public var residualSumOfSquares: Double
    /// The numerical rank of X found by the SVD.
    public var rank: Int
    /// Singular values of X, largest first.
    public var singularValues: [Double]
}

extension Matrix {
    /// Least squares by the SVD (LAPACK `dgelsd`), with a rank check.
    ///
    /// Singular values below `relativeTolerance x σ_max` count as zero. A rank-deficient design is an
    /// error rather than a minimum-norm answer, because a regression user wants to know that two
    /// regressors are collinear.
    ///
    /// - Throws: `LinearAlgebraError.rankDeficient`, `.nonFiniteInput`, `.dimensionMismatch`.
    public func leastSquares(_ y: [Double], relativeTolerance: Double = 1e-12) throws -> LeastSquaresSolution {
        guard y.count == rows else { throw LinearAlgebraError.dimensionMismatch("y has \(y.count) rows, X has \(rows)") }
        guard rows >= columns, columns > 0 else { throw LinearAlgebraError.rankDeficient(rank: min(rows, columns), columns: columns) }
        guard storage.allSatisfy(\.isFinite), y.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFiniteInput }
        var a = storage
        var b = y
        var s = [Double](repeating: 0, count: columns)
        var rank: Int32 = 0
        let info = LAPACKE_dgelsd(
            columnMajor, Int32(rows), Int32(columns), 1, &a, Int32(rows), &b, Int32(rows), &s,
            relativeTolerance, &rank)
        if info < 0 { throw LinearAlgebraError.lapackFailure(routine: "dgelsd", info: info) }
        if info > 0 || Int(rank) < columns { throw LinearAlgebraError.rankDeficient(rank: Int(rank), columns: columns) }
        var rss = 0.0
        for i in columns..<rows { rss += b[i] * b[i] }
        return LeastSquaresSolution(coefficients: Array(b[0..<columns]), residualSumOfSquares: rss, rank: Int(rank), singularValues: s)
    }
}
