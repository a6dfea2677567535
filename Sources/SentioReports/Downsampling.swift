/// Indices of the points to draw when a series has more points than a chart can show.
///
/// The series is cut into `(limit − 2) / 2` buckets of consecutive points (one per pixel column at the
/// usual chart width); each bucket contributes the index of its minimum and of its maximum, in time order,
/// and the first and last points are always kept. So every local extreme that could be seen survives, the
/// global minimum and maximum in particular, and the count never exceeds `limit`. Non-finite values are
/// skipped (a gap in the data is a gap in the drawing anyway). With `values.count <= limit` every index is
/// returned.
/// Reference: the min/max ("M4" without first/last per bucket) aggregation of Jugel et al., "M4: A
/// Visualization-Oriented Time Series Data Aggregation", PVLDB 7(10), 2014.
/// - Precondition: `limit >= 4`.
public func downsampleIndices(_ values: [Double], limit: Int) -> [Int] {
    precondition(limit >= 4, "a downsampling limit below 4 cannot keep first, last, min and max")
    let n = values.count
    if n <= limit { return Array(0..<n) }
    let buckets = (limit - 2) / 2
    var kept: [Int] = [0]
    kept.reserveCapacity(limit)
    for b in 0..<buckets {
        // Bucket b covers [1 + b·m/buckets, 1 + (b+1)·m/buckets) of the interior m = n − 2 points.
        let lower = 1 + b * (n - 2) / buckets
        let upper = 1 + (b + 1) * (n - 2) / buckets
        var minIndex = -1, maxIndex = -1
        for i in lower..<upper where values[i].isFinite {
            if minIndex < 0 || values[i] < values[minIndex] { minIndex = i }
            if maxIndex < 0 || values[i] > values[maxIndex] { maxIndex = i }
        }
        guard minIndex >= 0 else { continue }
        if minIndex == maxIndex {
            kept.append(minIndex)
        } else {
            kept.append(min(minIndex, maxIndex))
            kept.append(max(minIndex, maxIndex))
        }
    }
    kept.append(n - 1)
    return kept
}
