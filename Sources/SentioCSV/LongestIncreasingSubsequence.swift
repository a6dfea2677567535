/// The rows lenient readers keep when timestamps are out of order.
public enum LongestIncreasingSubsequence {
    /// The indices (ascending) of a longest strictly increasing subsequence of `values`.
    ///
    /// Among all longest ones, the one whose index list is lexicographically smallest (it prefers earlier rows:
    /// a row is dropped in favour of a later one only when keeping it would cost more rows). O(n log n): `after[i]`
    /// is the length of the longest strictly increasing subsequence starting at `i` (patience sorting from the
    /// right), then a forward pass takes the earliest row that can still start a longest completion.
    public static func indices(_ values: [Int64]) -> [Int] {
        let n = values.count
        guard n > 0 else { return [] }
        // after[i] = 1 + max(after[j]) over j > i with values[j] > values[i].
        // From the right, "increasing after i" is "decreasing towards i"; tails[k] = the largest value that
        // starts an increasing run of length k + 1 among the rows seen so far (tails is decreasing).
        var after = [Int](repeating: 0, count: n)
        var tails: [Int64] = []
        tails.reserveCapacity(64)
        for i in stride(from: n - 1, through: 0, by: -1) {
            let v = values[i]
            // First k with tails[k] <= v (tails decreasing): runs of length k + 1 cannot be extended by v.
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if tails[middle] > v { low = middle + 1 } else { high = middle }
            }
            if low == tails.count { tails.append(v) } else { tails[low] = v }
            after[i] = low + 1
        }
        var needed = tails.count
        var last = Int64.min
        var lastTaken = false
        var kept: [Int] = []
        kept.reserveCapacity(needed)
        for i in 0..<n where needed > 0 {
            if after[i] == needed, !lastTaken || values[i] > last {
                kept.append(i)
                last = values[i]
                lastTaken = true
                needed -= 1
            }
        }
        return kept
    }
}
