import SentioCore
import SentioTestSupport
import Testing

@Suite("Matrix over BLAS/LAPACK")
struct MatrixTests {
    @Test func productMatchesHandComputation() {
        let a = Matrix([[1, 2, 3], [4, 5, 6]])
        let b = Matrix([[7, 8], [9, 10], [11, 12]])
        let c = a * b
        #expect(c == Matrix([[58, 64], [139, 154]]))
        #expect(a * [1, 1, 1] == [6, 15])
        #expect(a.transposeTimes([1, 1]) == [5, 7, 9])
        #expect(a.transposed == Matrix([[1, 4], [2, 5], [3, 6]]))
    }

    @Test func crossProductIsSymmetricAndEqualsTransposeProduct() {
        var rng = SplitMix64(seed: 7)
        let x = Matrix(rows: 50, columns: 4, columnMajor: (0..<200).map { _ in rng.nextGaussian() })
        let g = x.crossProduct()
        let reference = x.transposed * x
        expectClose(g.storage, reference.storage, relative: 1e-12, absolute: 1e-12)
        for i in 0..<4 { for j in 0..<4 { #expect(g[i, j] == g[j, i]) } }
    }

    @Test func leastSquaresRecoversExactCoefficients() throws {
        var rng = SplitMix64(seed: 11)
        let n = 100
        let x1 = (0..<n).map { _ in rng.nextGaussian() }
        let x2 = (0..<n).map { _ in rng.nextGaussian() }
        let y = (0..<n).map { 1.5 + 2 * x1[$0] - 0.5 * x2[$0] }
        let x = Matrix(columns: [Array(repeating: 1, count: n), x1, x2])
        let fit = try x.leastSquares(y)
        expectClose(fit.coefficients, [1.5, 2, -0.5], relative: 1e-12)
        #expect(fit.residualSumOfSquares < 1e-20)
        #expect(fit.rank == 3)
    }

    @Test func leastSquaresMatchesNormalEquations() throws {
        var rng = SplitMix64(seed: 3)
        let n = 80
        let x = Matrix(rows: n, columns: 3, columnMajor: (0..<(3 * n)).map { _ in rng.nextGaussian() })
        let y = (0..<n).map { _ in rng.nextGaussian() }
        let fit = try x.leastSquares(y)
        let normal = try x.crossProduct().solvePositiveDefinite(x.transposeTimes(y))
        expectClose(fit.coefficients, normal, relative: 1e-10)
        let residuals = zip(x * fit.coefficients, y).map { $1 - $0 }
        expectClose(fit.residualSumOfSquares, residuals.reduce(0) { $0 + $1 * $1 }, relative: 1e-10)
    }

    @Test func collinearDesignIsATypedError() {
        let x = Matrix(columns: [[1, 1, 1, 1], [1, 2, 3, 4], [2, 4, 6, 8]])
        #expect(throws: LinearAlgebraError.rankDeficient(rank: 2, columns: 3)) {
            try x.leastSquares([1, 2, 3, 5])
        }
    }

    @Test func nonPositiveDefiniteAndNonFiniteAreTypedErrors() {
        let singular = Matrix([[1, 2], [2, 4]])
        #expect(throws: LinearAlgebraError.notPositiveDefinite(order: 2)) { try singular.solvePositiveDefinite([1, 1]) }
        #expect(throws: LinearAlgebraError.nonFiniteInput) { try Matrix([[1, .nan], [0, 1]]).solvePositiveDefinite([1, 1]) }
    }

    @Test func positiveDefiniteInverse() throws {
        let a = Matrix([[4, 1], [1, 3]])
        let inv = try a.inversePositiveDefinite()
        expectClose((a * inv).storage, Matrix.identity(2).storage, relative: 1e-14, absolute: 1e-15)
    }
}

@Suite("Rolling moments")
struct RollingMomentsTests {
    /// A million-bar random walk at a high level (where naive running sums drift) against a direct
    /// two-pass computation per window, checked at scattered windows to keep the test fast.
    @Test func millionBarSeriesDoesNotDrift() {
        var rng = SplitMix64(seed: 42)
        let n = 1_000_000, w = 50
        var level = 1e6
        var xs = [Double](repeating: 0, count: n)
        for i in 0..<n { level += rng.nextGaussian(); xs[i] = level }
        var moments = RollingMoments(window: w)
        var worstMean = 0.0, worstVar = 0.0
        for i in 0..<n {
            moments.push(xs[i])
            guard i >= w - 1, i % 997 == 0 || i == n - 1 else { continue }
            let window = xs[(i - w + 1)...i]
            let mu = window.reduce(0, +) / Double(w)
            let v = window.reduce(0) { $0 + ($1 - mu) * ($1 - mu) } / Double(w - 1)
            worstMean = max(worstMean, relativeDifference(moments.mean, mu))
            worstVar = max(worstVar, relativeDifference(moments.variance(ddof: 1), v))
        }
        #expect(worstMean < 1e-13)
        #expect(worstVar < 1e-7, "variance relative error \(worstVar)")
    }

    @Test func partialWindowAndReset() {
        var m = RollingMoments(window: 3)
        m.push(1); m.push(2)
        #expect(!m.isFull)
        #expect(m.mean == 1.5)
        m.push(3); m.push(10)
        #expect(m.isFull)
        expectClose(m.mean, 5, relative: 1e-15)
        expectClose(m.variance(ddof: 1), 19, relative: 1e-14)  // window {2, 3, 10}
        m.reset()
        #expect(m.count == 0)
    }
}

@Suite("Civil dates")
struct CivilDateTests {
    @Test func roundTripsOverFourCenturies() {
        for d in stride(from: -150_000, through: 150_000, by: 7) {
            #expect(CivilDate(daysSinceEpoch: d).daysSinceEpoch == d)
        }
    }

    @Test func knownDates() {
        #expect(CivilDate(year: 2008, month: 1, day: 1)!.daysSinceEpoch == 13879)
        #expect(CivilDate(year: 2024, month: 2, day: 30) == nil)
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2024, month: 1, day: 31)!.addingMonths(1).description == "2024-02-29")
        #expect(iso8601(epochSeconds: 1_760_956_200) == "2025-10-20T10:30:00Z")
        #expect(iso8601(epochSeconds: -1) == "1969-12-31T23:59:59Z")
        #expect(CivilDate(iso: "2025-10-20")!.weekday == 0)  // a Monday
    }
}
