import CSentioLinearAlgebra

/// A dense, column-major matrix of `Double`, the layout BLAS and LAPACK expect.
///
/// Element `(i, j)` lives at `storage[i + j * rows]`. Products, cross-products and solves call
/// OpenBLAS (CBLAS) and LAPACKE; see `Matrix+LinearAlgebra.swift`.
public struct Matrix: Sendable, Equatable, CustomStringConvertible {
    public let rows: Int
    public let columns: Int
    /// Column-major elements, `rows * columns` of them.
    public var storage: [Double]

    /// A `rows` x `columns` matrix filled with `value`.
    public init(rows: Int, columns: Int, repeating value: Double = 0) {
        precondition(rows >= 0 && columns >= 0, "matrix dimensions must be non-negative")
        self.rows = rows
        self.columns = columns
        self.storage = Array(repeating: value, count: rows * columns)
    }

    /// A matrix over existing column-major storage.
    public init(rows: Int, columns: Int, columnMajor storage: [Double]) {
        precondition(storage.count == rows * columns, "storage has \(storage.count) elements, expected \(rows * columns)")
        self.rows = rows
        self.columns = columns
        self.storage = storage
    }

    /// A matrix from its rows (convenient in tests and examples).
    public init(_ rowArrays: [[Double]]) {
        let r = rowArrays.count
        let c = rowArrays.first?.count ?? 0
        precondition(rowArrays.allSatisfy { $0.count == c }, "all rows must have the same length")
        var s = [Double](repeating: 0, count: r * c)
        for i in 0..<r { for j in 0..<c { s[i + j * r] = rowArrays[i][j] } }
        self.init(rows: r, columns: c, columnMajor: s)
    }

    /// A matrix whose columns are the given arrays (a design matrix from feature columns).
    public init(columns columnArrays: [[Double]]) {
        let c = columnArrays.count
        let r = columnArrays.first?.count ?? 0
        precondition(columnArrays.allSatisfy { $0.count == r }, "all columns must have the same length")
        self.init(rows: r, columns: c, columnMajor: Array(columnArrays.joined()))
    }

    /// The n x n identity.
    public static func identity(_ n: Int) -> Matrix {
        var m = Matrix(rows: n, columns: n)
        for i in 0..<n { m[i, i] = 1 }
        return m
    }

    @inlinable
    public subscript(row: Int, column: Int) -> Double {
        get {
            precondition(row >= 0 && row < rows && column >= 0 && column < columns, "matrix index out of range")
            return storage[row + column * rows]
        }
        set {
            precondition(row >= 0 && row < rows && column >= 0 && column < columns, "matrix index out of range")
            storage[row + column * rows] = newValue
        }
    }

    /// Column `j` as an array.
    public func column(_ j: Int) -> [Double] { Array(storage[(j * rows)..<((j + 1) * rows)]) }

    /// The transpose.
    public var transposed: Matrix {
        var t = Matrix(rows: columns, columns: rows)
        for j in 0..<columns { for i in 0..<rows { t.storage[j + i * columns] = storage[i + j * rows] } }
        return t
    }

    public var description: String {
        (0..<rows).map { i in (0..<columns).map { j in "\(self[i, j])" }.joined(separator: " ") }
            .joined(separator: "\n")
    }
}

/// Why a linear-algebra operation could not give a trustworthy answer.
public enum LinearAlgebraError: Error, Equatable, CustomStringConvertible {
    /// The least-squares design matrix has rank `rank` < `columns` (collinear or constant regressors).
    case rankDeficient(rank: Int, columns: Int)
    /// The matrix is not positive definite: the leading minor of order `order` is not positive.
    case notPositiveDefinite(order: Int)
    /// The system is singular or its reciprocal condition number `reciprocalCondition` is below the threshold.
    case illConditioned(reciprocalCondition: Double)
    /// Dimensions do not agree.
    case dimensionMismatch(String)
    /// Input contains NaN or infinity.
    case nonFiniteInput
    /// LAPACK reported an illegal argument (a bug in the caller).
    case lapackFailure(routine: String, info: Int32)

    public var description: String {
        switch self {
        case let .rankDeficient(rank, columns):
            return "design matrix is rank deficient (rank \(rank) of \(columns) columns): regressors are collinear or constant"
        case let .notPositiveDefinite(order):
            return "matrix is not positive definite (leading minor of order \(order) is not positive)"
        case let .illConditioned(rcond):
            return "matrix is singular or ill-conditioned (reciprocal condition number \(rcond))"
        case let .dimensionMismatch(what):
            return "dimension mismatch: \(what)"
        case .nonFiniteInput:
            return "input contains NaN or infinity"
        case let .lapackFailure(routine, info):
            return "LAPACK \(routine) failed with info = \(info)"
        }
    }
}
