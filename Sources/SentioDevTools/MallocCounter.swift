import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Counting allocations

/// Counts `malloc`/`calloc`/`realloc`/`memalign`-family calls through glibc's allocation hooks.
///
/// Since glibc 2.34 the hooks (`__malloc_hook`, `__realloc_hook`, `__memalign_hook`) only work when
/// `libc_malloc_debug.so` is preloaded, so the benchmark re-runs itself in a child process with
/// `LD_PRELOAD=libc_malloc_debug.so.0` and counts there (the timing runs in the parent, without the debug
/// library). Every heap allocation of the process goes through these entry points: Swift objects, array and
/// string buffers (swift_slowAlloc → malloc/aligned allocation) and C code such as OpenBLAS. (The Swift
/// runtime's own `_swift_allocObject` hook is not usable on Swift 6.3 for Linux: installing it routes
/// retains through an adapter that faults on small strings, swiftlang/swift#88924.)
enum MallocCounter {
    typealias MallocHook = @convention(c) (Int, UnsafeRawPointer?) -> UnsafeMutableRawPointer?
    typealias ReallocHook = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?) -> UnsafeMutableRawPointer?
    typealias MemalignHook = @convention(c) (Int, Int, UnsafeRawPointer?) -> UnsafeMutableRawPointer?
    typealias LibcMalloc = @convention(c) (Int) -> UnsafeMutableRawPointer?
    typealias LibcRealloc = @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?
    typealias LibcMemalign = @convention(c) (Int, Int) -> UnsafeMutableRawPointer?

    /// The environment variable that marks the counting child.
    static let childEnvironmentKey = "SENTIO_BENCH_COUNT_ALLOCATIONS"

    /// Where glibc's malloc debug library lives on Debian/Ubuntu (x86-64 and arm64) and elsewhere.
    static let debugLibraryCandidates = [
        "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0", "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
        "/lib/aarch64-linux-gnu/libc_malloc_debug.so.0", "/usr/lib/aarch64-linux-gnu/libc_malloc_debug.so.0",
        "/lib64/libc_malloc_debug.so.0", "/usr/lib64/libc_malloc_debug.so.0",
    ]

    static var debugLibrary: String? { debugLibraryCandidates.first { FileManager.default.fileExists(atPath: $0) } }

    struct Hooks {
        let malloc: UnsafeMutablePointer<MallocHook?>
        let realloc: UnsafeMutablePointer<ReallocHook?>
        let memalign: UnsafeMutablePointer<MemalignHook?>
    }

    /// Installs the counting hooks; `nil` if the hooks or libc's entry points cannot be found.
    static func install() -> Hooks? {
        typealias VersionedSymbol = @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>, UnsafePointer<CChar>
        ) -> UnsafeMutableRawPointer?
        // The hooks are compatibility symbols (`__malloc_hook@GLIBC_2.2.5`): plain dlsym does not see them.
        guard let handle = dlopen(nil, RTLD_NOW), let dlvsymAddress = dlsym(handle, "dlvsym") else { return nil }
        let dlvsym = unsafeBitCast(dlvsymAddress, to: VersionedSymbol.self)
        func hook(_ name: String) -> UnsafeMutableRawPointer? {
            for version in ["GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"] {
                if let address = dlvsym(handle, name, version) { return address }
            }
            return nil
        }
        guard let mallocSlot = hook("__malloc_hook"), let reallocSlot = hook("__realloc_hook"),
            let memalignSlot = hook("__memalign_hook"),
            let libcMalloc = dlsym(handle, "__libc_malloc"), let libcRealloc = dlsym(handle, "__libc_realloc"),
            let libcMemalign = dlsym(handle, "__libc_memalign")
        else { return nil }
        realMalloc = unsafeBitCast(libcMalloc, to: LibcMalloc.self)
        realRealloc = unsafeBitCast(libcRealloc, to: LibcRealloc.self)
        realMemalign = unsafeBitCast(libcMemalign, to: LibcMemalign.self)
        mallocCount = 0
        let hooks = Hooks(
            malloc: mallocSlot.assumingMemoryBound(to: MallocHook?.self),
            realloc: reallocSlot.assumingMemoryBound(to: ReallocHook?.self),
            memalign: memalignSlot.assumingMemoryBound(to: MemalignHook?.self))
        hooks.malloc.pointee = countingMalloc
        hooks.realloc.pointee = countingRealloc
        hooks.memalign.pointee = countingMemalign
        return hooks
    }

    static func uninstall(_ hooks: Hooks) {
        hooks.malloc.pointee = nil
        hooks.realloc.pointee = nil
        hooks.memalign.pointee = nil
    }
}

nonisolated(unsafe) var mallocCount = 0
nonisolated(unsafe) private var realMalloc: MallocCounter.LibcMalloc?
nonisolated(unsafe) private var realRealloc: MallocCounter.LibcRealloc?
nonisolated(unsafe) private var realMemalign: MallocCounter.LibcMemalign?

private let countingMalloc: MallocCounter.MallocHook = { size, _ in
    mallocCount &+= 1
    return realMalloc!(size)
}
private let countingRealloc: MallocCounter.ReallocHook = { pointer, size, _ in
    mallocCount &+= 1
    return realRealloc!(pointer, size)
}
private let countingMemalign: MallocCounter.MemalignHook = { alignment, size, _ in
    mallocCount &+= 1
    return realMemalign!(alignment, size)
}
