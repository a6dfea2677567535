import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serializes the *opening* of stores in one directory across processes (`flock` on the directory).
///
/// Several processes creating the same new file at once can deadlock inside SQLite: one switches the
/// file to WAL (needs an exclusive lock) while another holds a read lock and waits to migrate, and both
/// wait out the busy timeout (seen as a 10 s "locked" failure under load). Holding this lock while one
/// process checks, opens and migrates the file removes the race. It is released as soon as opening is
/// done, so readers and writers afterwards run concurrently as WAL allows.
///
/// The lock is taken on the directory, never on the database file: closing any descriptor of the
/// database file would drop SQLite's own POSIX locks held by this process.
struct OpeningLock {
    private let descriptor: Int32

    /// Blocks until the lock on the directory containing `path` is held. If the directory cannot be
    /// opened (it may not exist yet; opening will then fail with a clear error), no lock is taken.
    init(forFileAt path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        }
    }

    /// Releases the lock; call exactly once.
    func release() {
        if descriptor >= 0 {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }
}
