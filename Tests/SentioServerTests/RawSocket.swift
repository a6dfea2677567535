import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain blocking TCP client on 127.0.0.1 (POSIX sockets), for clients that misbehave in ways an HTTP or
/// WebSocket library will not: header floods, never reading. Every read and write has a timeout (a hang guard,
/// not a measurement). Use it off the Swift concurrency pool (``offPool(_:)``): it blocks its thread.
final class RawSocket: @unchecked Sendable {
    let descriptor: Int32

    /// How a read to the end of the connection ended.
    enum End: Equatable { case closed, reset, timedOut }

    /// - Parameters:
    ///   - receiveBuffer: `SO_RCVBUF` before connecting (a small window makes a non-reading client fill up fast).
    init(port: Int, receiveBuffer: Int? = nil, timeoutSeconds: Int = 30) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        if let receiveBuffer {
            var size = Int32(receiveBuffer)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw HarnessError("connect to port \(port): \(message)")
        }
    }

    deinit { close(descriptor) }

    /// Sends all of `bytes`; `false` when the peer closed or reset the connection first (or the write timed out).
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Reads until `marker` has been received (returns everything read), or the connection ends first (`nil`).
    func read(until marker: String) -> [UInt8]? {
        var received: [UInt8] = []
        let needle = Array(marker.utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, 1, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            received.append(chunk[0])
            if received.count >= needle.count && Array(received.suffix(needle.count)) == needle { return received }
        }
    }

    /// Reads until the peer closes (end of file), resets the connection, or the timeout passes without data.
    func readToEnd() -> (bytes: [UInt8], end: End) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if n > 0 {
                received.append(contentsOf: chunk[0..<n])
                continue
            }
            if n == 0 { return (received, .closed) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return (received, .timedOut)
            default: return (received, .reset)
            }
        }
    }
}

/// Runs blocking work on its own thread (not on the Swift concurrency pool, which the in-process server needs).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The status codes of the HTTP/1.1 responses in `bytes` (each `HTTP/1.1 NNN` at the start of a line).
func responseStatuses(_ bytes: [UInt8]) -> [Int] {
    let text = String(decoding: bytes, as: UTF8.self)
    var statuses: [Int] = []
    for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) where line.hasPrefix("HTTP/1.1 ") {
        if let code = Int(line.dropFirst(9).prefix(3)) { statuses.append(code) }
    }
    return statuses
}
