#if canImport(Glibc)
import Glibc
#endif

/// Creates an array of `count` doubles whose every element `body` must initialize.
///
/// For large arrays (≥ 4 MiB) on Linux the storage is first advised `MADV_HUGEPAGE`, as NumPy does
/// for its large allocations: with transparent huge pages in `madvise` mode, filling a fresh
/// 80 MB output otherwise costs ~20,000 page faults, more than computing a cheap indicator.
/// The advice is only a hint; results never depend on it.
///
/// - Parameters:
///   - count: number of elements.
///   - body: writes all `count` elements of the buffer.
public func makeDoubleArray(count: Int, _ body: (UnsafeMutableBufferPointer<Double>) -> Void) -> [Double] {
    [Double](unsafeUninitializedCapacity: count) { buffer, initializedCount in
        adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
        body(buffer)
        initializedCount = count
    }
}

/// Advises the 2 MiB-aligned interior of `region` as `MADV_HUGEPAGE` when it spans at least 4 MiB.
@inline(never)
func adviseHugePages(_ region: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
    let hugePage = 2 << 20
    guard let base = region.baseAddress, region.count >= 2 * hugePage else { return }
    let start = (Int(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
    let end = (Int(bitPattern: base) + region.count) & ~(hugePage - 1)
    guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
    _ = madvise(pointer, end - start, MADV_HUGEPAGE)
    #endif
}
