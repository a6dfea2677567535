import ArgumentParser
import Foundation
import Sentio
import SentioBench

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio-dev ws-load`: the WebSocket load client of `Benchmarks/serve/run.sh`.
///
/// Opens `--clients` WebSocket connections to `/ws/signals` (plain sockets, one reader thread polling them all,
/// frames parsed by hand: the client costs microseconds per message, so the times are the server's), then for each
/// of `--steps` rounds POSTs one new step (a bar for every served symbol, a day after the newest one) and records,
/// per client, when the `signal_update` of `--symbol` at that timestamp arrived. Prints p50/p99/max of the time
/// from just before the POST to the *last* client's update (over rounds) and to each delivery, and the server's
/// RSS (`/proc/PID/status` VmRSS) before and with the clients.
struct WSLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ws-load",
        abstract: "WebSocket load client: N clients on /ws/signals (or the investing app's /api/v1/ws); time from POSTing a step to the last client's signal_update (quote_updated); server RSS.",
        discussion: "Needs SENTIO_INGEST_TOKEN (the server's). Each round waits at most 10 s for its updates; a round some client missed is reported.")

    @OptionGroup var load: LoadOptions

    @Option(help: "The symbol whose signal_update is timed.")
    var symbol = "TQQQ"

    var url: String { load.url }
    var clients: Int { load.clients }
    var steps: Int { load.steps }
    var pid: Int32? { load.pid }
    var interval: Double { load.interval }

    @Option(name: .customLong("investing-token"), help: ArgumentHelp("Load the investing app's WebSocket instead: each client connects to /api/v1/ws with this Apple identity token (of a signed-in user), subscribes to quotes of --symbol, and the round's time is to its quote_updated.", valueName: "JWT"))
    var investingToken: String?

    func run() throws {
        guard let token = ProcessInfo.processInfo.environment["SENTIO_INGEST_TOKEN"], !token.isEmpty else {
            throw ValidationError("SENTIO_INGEST_TOKEN must be set (the server's ingestion token)")
        }
        let endpoint = try Endpoint(url)
        // The served symbols, their prices and the newest timestamp.
        let (status, body) = try endpoint.http("GET", "/api/v1/signals")
        guard status == 200, let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let signals = json["signals"] as? [[String: Any]], !signals.isEmpty
        else { throw ValidationError("GET /api/v1/signals: status \(status), no signals") }
        var prices: [(String, Double)] = []
        var newest: Int64 = 0
        for s in signals {
            guard let sym = s["symbol"] as? String, let price = s["price"] as? Double, let ts = s["timestamp"] as? String,
                  let t = parseTimestamp(ts) else { continue }
            prices.append((sym, price))
            newest = max(newest, t)
        }
        guard prices.contains(where: { $0.0 == symbol }) else { throw ValidationError("--symbol \(symbol) is not served") }
        let rssBefore = rss()

        // Investing: the welcome and the ack come before the rounds; the timed message is the round's quote_updated,
        // whose timestamp is written with microseconds.
        let path = investingToken.map { "/api/v1/ws?token=\($0)&device_type=ios&app_version=bench" } ?? "/ws/signals"
        let subscribe = investingToken == nil ? nil : #"{"type":"subscribe","channels":["quotes"],"symbols":["\#(symbol)"]}"#
        let reader = try FanoutReader(endpoint: endpoint, paths: Array(repeating: path, count: clients), hello: subscribe)
        let readerThread = Thread { reader.loop() }
        readerThread.start()
        defer { reader.stop() }
        // Every client has its snapshot (one message per served symbol) before the rounds start.
        let snapshotDeadline = monotonicNanoseconds() + 60_000_000_000
        while reader.messagesEach() < (investingToken == nil ? prices.count : 2) {
            guard monotonicNanoseconds() < snapshotDeadline else {
                throw ValidationError("the clients did not all get their snapshot within 60 s")
            }
            usleep(10_000)
        }
        let rssWith = rss()

        var rounds: [Double] = [], deliveries: [Double] = []
        for k in 1...steps {
            let t = newest + Int64(k) * 86_400
            let stamp = iso8601(epochSeconds: t)
            var lines = ""
            for (sym, price) in prices {
                let close = price * (k % 2 == 0 ? 1.002 : 0.998)
                lines += "{\"symbol\":\"\(sym)\",\"timestamp\":\"\(stamp)\",\"open\":\(price),\"high\":\(max(price, close) * 1.001),"
                    + "\"low\":\(min(price, close) * 0.999),\"close\":\(close),\"volume\":1000000}\n"
            }
            let timed = investingToken == nil ? stamp : String(stamp.dropLast()) + ".000000"
            reader.arm(target: "\"\(timed)\"", symbol: "\"\(symbol)\"")
            let start = monotonicNanoseconds()
            let (postStatus, postBody) = try endpoint.http(
                "POST", "/api/v1/bars", body: lines, headers: ["Authorization: Bearer \(token)", "Content-Type: application/x-ndjson"])
            guard postStatus == 200 else { throw ValidationError("POST /api/v1/bars: \(postStatus) \(postBody)") }
            let arrivals = reader.wait(until: start + 10_000_000_000)
            if arrivals.count < clients { print("round \(k): only \(arrivals.count) of \(clients) clients got the update within 10 s") }
            if let last = arrivals.max() { rounds.append(Double(last - start) / 1e6) }
            deliveries += arrivals.map { Double($0 - start) / 1e6 }
            if interval > 0 { usleep(UInt32(interval * 1_000_000)) }
        }
        func percentile(_ xs: [Double], _ p: Double) -> Double { nearestRankPercentile(xs.sorted(), p / 100) ?? .nan }
        func ms(_ x: Double) -> String { String(format: "%.2f", x) }
        let timedMessage = investingToken == nil ? "signal_update" : "quote_updated"
        print("== \(clients) clients on \(path.split(separator: "?")[0]), \(prices.count) symbols, \(rounds.count) rounds; closed by the server: \(reader.closedCount())")
        print("== POST step → last client's \(symbol) \(timedMessage) (ms): p50 \(ms(percentile(rounds, 50)))  p99 \(ms(percentile(rounds, 99)))  max \(ms(rounds.max() ?? .nan))")
        print("== POST step → each delivery, \(deliveries.count) deliveries (ms): p50 \(ms(percentile(deliveries, 50)))  p99 \(ms(percentile(deliveries, 99)))")
        if let rssBefore, let rssWith {
            print("== server RSS: \(rssBefore / 1024) MB before the clients, \(rssWith / 1024) MB with \(clients) clients connected")
        }
    }

    /// VmRSS of `--pid`, in kB.
    func rss() -> Int? { Self.rss(pid: pid) }

    /// VmRSS of process `pid`, in kB.
    static func rss(pid: Int32?) -> Int? {
        guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }

    func parseTimestamp(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }
}

/// The options of the load clients (`ws-load`, `signalr-load`): the server, how many connections, rounds, the
/// server's process for its RSS, the pause between rounds.
struct LoadOptions: ParsableArguments {
    @Option(help: "The server's base URL, http://HOST:PORT.")
    var url: String

    @Option(help: "Connections (WebSocket clients) to open.")
    var clients = 1000

    @Option(help: "Rounds: one update POSTed per round.")
    var steps = 50

    @Option(help: ArgumentHelp("The server's process id, for its RSS (default: none, RSS not read).", valueName: "PID"))
    var pid: Int32?

    @Option(help: ArgumentHelp("Seconds between rounds.", valueName: "SECONDS"))
    var interval = 0.1

    func validate() throws {
        guard clients >= 1 && clients <= 10_000 else { throw ValidationError("--clients must be in 1...10000, got \(clients)") }
        guard steps >= 1 else { throw ValidationError("--steps must be at least 1, got \(steps)") }
        guard interval >= 0 && interval.isFinite else { throw ValidationError("--interval must be ≥ 0 seconds, got \(interval)") }
    }
}

/// Host and port of `http://HOST:PORT`, and a one-request-per-connection HTTP/1.1 client.
struct Endpoint {
    let host: String
    let port: UInt16

    init(_ url: String) throws {
        guard url.hasPrefix("http://") else { throw ValidationError("--url must be http://HOST:PORT, got \(url)") }
        let rest = url.dropFirst(7).split(separator: "/", maxSplits: 1).first ?? ""
        let parts = rest.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw ValidationError("--url must be http://HOST:PORT, got \(url)") }
        host = String(parts[0])
        self.port = port
    }

    /// A connected blocking socket.
    func connectSocket(receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ValidationError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw ValidationError("connect to \(host):\(port): \(message)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ValidationError("send: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// One request (`Connection: close`); returns the status and the body (Content-Length or chunked).
    func http(_ method: String, _ path: String, body: String? = nil, headers: [String] = []) throws -> (Int, String) {
        let fd = try connectSocket()
        defer { close(fd) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for h in headers { request += h + "\r\n" }
        if let body { request += "Content-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        try sendAll(fd, Array(request.utf8))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw ValidationError("\(method) \(path): no HTTP response") }
        let head = text[..<split.lowerBound]
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var content = String(text[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") {
            var decoded = "", rest = Substring(content)
            while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
                let start = rest.utf8.index(lineEnd.upperBound, offsetBy: 0)
                let end = rest.utf8.index(start, offsetBy: size)
                decoded += String(rest[start..<end])
                rest = rest[end...].dropFirst(2)
            }
            content = decoded
        }
        return (status, content)
    }
}

/// The clients' sockets, read by one thread: frames parsed, the armed round's arrivals recorded.
final class FanoutReader: @unchecked Sendable {
    private var fds: [pollfd]
    private var buffers: [[UInt8]]
    private var messageCounts: [Int]
    private var closed: [Bool]
    private let lock = NSLock()
    private var target: [UInt8] = []
    private var symbol: [UInt8] = []
    private var arrivals: [UInt64?]
    private var arrived = 0
    private var running = true
    /// The clients whose arrivals the armed round waits for (`nil`: all).
    private var expected: Set<Int>? = nil
    private var strays = 0

    convenience init(endpoint: Endpoint, clients: Int) throws {
        try self.init(endpoint: endpoint, paths: Array(repeating: "/ws/signals", count: clients))
    }

    /// One client per path (`/ws/signals`, `/hubs/family?access_token=…`); each sends `hello` (a masked text frame)
    /// once upgraded, when given.
    init(endpoint: Endpoint, paths: [String], hello: String? = nil) throws {
        let clients = paths.count
        fds = []
        buffers = Array(repeating: [], count: clients)
        messageCounts = Array(repeating: 0, count: clients)
        closed = Array(repeating: false, count: clients)
        arrivals = Array(repeating: nil, count: clients)
        for k in 0..<clients {
            let fd = try endpoint.connectSocket()
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            try endpoint.sendAll(fd, Array(("GET \(paths[k]) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
            // The response head, byte by byte (what follows it is frames, kept for the reader).
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while !(head.count >= 4 && head.suffix(4) == [13, 10, 13, 10]) {
                let n = recv(fd, &byte, 1, 0)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { throw ValidationError("client \(k): the upgrade was not answered") }
                head.append(byte)
            }
            guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
                throw ValidationError("client \(k): upgrade refused: \(String(decoding: head.prefix(40), as: UTF8.self))")
            }
            if let hello { try endpoint.sendAll(fd, Self.maskedTextFrame(hello)) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        }
    }

    deinit { for p in fds { close(p.fd) } }

    /// A client's text frame (RFC 6455 §5.2: FIN, opcode 1, masked with a random key; payloads under 64 KiB).
    static func maskedTextFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let key = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += key
        for (i, b) in payload.enumerated() { frame.append(b ^ key[i % 4]) }
        return frame
    }

    /// Starts a round: arrivals of text frames holding both `target` and `symbol` are recorded from now on, for the
    /// clients of `only` (default: all; a matching frame at any other client counts as a stray).
    func arm(target: String, symbol: String, only: Set<Int>? = nil) {
        lock.lock()
        self.target = Array(target.utf8)
        self.symbol = Array(symbol.utf8)
        for k in arrivals.indices { arrivals[k] = nil }
        arrived = 0
        expected = only
        lock.unlock()
    }

    /// Matching frames that reached clients outside the armed round's `only`, so far.
    func strayCount() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return strays
    }

    /// Waits until every expected client got the round's message or `deadline` (monotonic ns); returns the arrival
    /// times.
    func wait(until deadline: UInt64) -> [UInt64] {
        while true {
            lock.lock()
            let done = arrived == (expected?.count ?? arrivals.count)
            lock.unlock()
            if done || monotonicNanoseconds() >= deadline { break }
            usleep(200)
        }
        lock.lock()
        defer { lock.unlock() }
        return arrivals.compactMap { $0 }
    }

    /// The fewest messages any client received so far.
    func messagesEach() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return messageCounts.min() ?? 0
    }

    func closedCount() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return closed.filter { $0 }.count
    }

    func stop() {
        lock.lock()
        running = false
        lock.unlock()
    }

    func loop() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            lock.lock()
            let keepGoing = running
            lock.unlock()
            guard keepGoing else { return }
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress!, nfds_t($0.count), 50) }
            guard ready > 0 else { continue }
            for k in fds.indices where fds[k].revents != 0 {
                while true {
                    let n = chunk.withUnsafeMutableBytes { recv(fds[k].fd, $0.baseAddress!, $0.count, 0) }
                    if n > 0 {
                        buffers[k].append(contentsOf: chunk[0..<n])
                        continue
                    }
                    if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                        lock.lock(); closed[k] = true; lock.unlock()
                        fds[k].events = 0
                    }
                    break
                }
                parseFrames(client: k, now: monotonicNanoseconds())
            }
        }
    }

    /// Consumes the complete frames in client `k`'s buffer (server frames are unmasked).
    private func parseFrames(client k: Int, now: UInt64) {
        var start = 0
        let bytes = buffers[k]
        lock.lock()
        defer { lock.unlock() }
        while bytes.count - start >= 2 {
            let opcode = bytes[start] & 0x0F
            var length = Int(bytes[start + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard bytes.count - start >= 4 else { break }
                length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
                header = 4
            } else if length == 127 {
                guard bytes.count - start >= 10 else { break }
                length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[start + 2 + $1]) }
                header = 10
            }
            guard bytes.count - start >= header + length else { break }
            let payload = bytes[(start + header)..<(start + header + length)]
            if opcode == 1 {
                messageCounts[k] += 1
                if !target.isEmpty, arrivals[k] == nil, contains(payload, target), contains(payload, symbol) {
                    if expected?.contains(k) ?? true {
                        arrivals[k] = now
                        arrived += 1
                    } else {
                        strays += 1
                    }
                }
            } else if opcode == 8 {
                closed[k] = true
            }
            start += header + length
        }
        if start > 0 { buffers[k].removeFirst(start) }
    }

    private func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var i = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
