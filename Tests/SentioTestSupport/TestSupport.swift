import Foundation
import Testing

/// Shared helpers for Sentio's tests: tolerance comparisons, fixture files, seeded randomness.

/// The repository's `Tests/Fixtures` directory.
public let fixturesDirectory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

/// The repository root.
public let repositoryRoot: URL = fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()

/// Path of a fixture file under `Tests/Fixtures`.
public func fixturePath(_ name: String) -> String { fixturesDirectory.appendingPathComponent(name).path }

/// Reads a fixture as text.
public func fixtureText(_ name: String) throws -> String {
    try String(contentsOfFile: fixturePath(name), encoding: .utf8)
}

/// A CSV fixture with a header row: column name -> values. Empty cells and `nan` read as `.nan`.
public func loadNumericCSV(_ name: String) throws -> [String: [Double]] {
    let lines = try fixtureText(name).split(whereSeparator: \.isNewline)
    guard let header = lines.first else { return [:] }
    let names = header.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    var columns = [[Double]](repeating: [], count: names.count)
    for line in lines.dropFirst() {
        let cells = line.split(separator: ",", omittingEmptySubsequences: false)
        for (j, cell) in cells.enumerated() where j < names.count {
            columns[j].append(Double(cell) ?? .nan)
        }
    }
    return Dictionary(uniqueKeysWithValues: zip(names, columns))
}

/// Relative difference `|a − b| / max(|a|, |b|, floor)`; 0 when both are NaN.
public func relativeDifference(_ a: Double, _ b: Double, floor: Double = 1e-300) -> Double {
    if a.isNaN && b.isNaN { return 0 }
    if a == b { return 0 }
    return abs(a - b) / max(abs(a), abs(b), floor)
}

/// Records an issue when `actual` and `expected` differ by more than `relative` (relative to the
/// larger magnitude) and more than `absolute`. NaN matches only NaN.
public func expectClose(
    _ actual: Double, _ expected: Double, relative: Double = 1e-9, absolute: Double = 0,
    _ comment: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    if actual.isNaN || expected.isNaN {
        #expect(actual.isNaN == expected.isNaN, "\(comment()) actual \(actual), expected \(expected)", sourceLocation: sourceLocation)
        return
    }
    let diff = abs(actual - expected)
    let ok = diff <= absolute || relativeDifference(actual, expected) <= relative
    #expect(ok, "\(comment()) actual \(actual), expected \(expected), diff \(diff)", sourceLocation: sourceLocation)
}

/// Element-wise `expectClose` over two arrays of equal length; reports the first few mismatches only.
public func expectClose(
    _ actual: [Double], _ expected: [Double], relative: Double = 1e-9, absolute: Double = 0,
    _ comment: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual.count == expected.count, "\(comment()) lengths \(actual.count) vs \(expected.count)", sourceLocation: sourceLocation)
    var failures = 0
    for i in 0..<min(actual.count, expected.count) {
        let a = actual[i], e = expected[i]
        let ok: Bool
        if a.isNaN || e.isNaN { ok = a.isNaN == e.isNaN } else {
            ok = abs(a - e) <= absolute || relativeDifference(a, e) <= relative
        }
        if !ok {
            failures += 1
            if failures <= 5 {
                Issue.record("\(comment()) index \(i): actual \(a), expected \(e)", sourceLocation: sourceLocation)
            }
        }
    }
    if failures > 5 { Issue.record("\(comment()) \(failures) mismatches in all", sourceLocation: sourceLocation) }
}

/// SplitMix64: a small, fast, seedable generator so that every random test is reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal deviate (Box–Muller).
    public mutating func nextGaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// A path in a fresh temporary directory, removed by the caller if it wishes.
public func temporaryDirectory(_ label: String = "sentio-tests") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
