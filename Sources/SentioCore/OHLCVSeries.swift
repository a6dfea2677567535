/// A bar series for one instrument, stored as a struct of contiguous arrays.
///
/// Timestamps are UTC epoch seconds, strictly increasing. Prices and volumes are `Double` so that
/// indicator kernels can run over the columns directly (`withUnsafeBufferPointer`).
public struct OHLCVSeries: Sendable, Equatable {
    public var symbol: String
    public var timestamps: [Int64]
    public var open: [Double]
    public var high: [Double]
    public var low: [Double]
    public var close: [Double]
    public var volume: [Double]

    public init(
        symbol: String,
        timestamps: [Int64] = [],
        open: [Double] = [],
        high: [Double] = [],
        low: [Double] = [],
        close: [Double] = [],
        volume: [Double] = []
    ) {
        precondition(
            [open.count, high.count, low.count, close.count, volume.count].allSatisfy { $0 == timestamps.count },
            "OHLCVSeries columns must have equal lengths"
        )
        self.symbol = symbol
        self.timestamps = timestamps
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }

    /// Number of bars.
    @inlinable public var count: Int { timestamps.count }

    @inlinable public var isEmpty: Bool { timestamps.isEmpty }

    /// Reserves room for `n` bars in every column.
    public mutating func reserveCapacity(_ n: Int) {
        timestamps.reserveCapacity(n)
        open.reserveCapacity(n)
        high.reserveCapacity(n)
        low.reserveCapacity(n)
        close.reserveCapacity(n)
        volume.reserveCapacity(n)
    }

    /// Appends one bar. The caller is responsible for ordering and validity.
    @inlinable
    public mutating func append(
        timestamp: Int64, open o: Double, high h: Double, low l: Double, close c: Double, volume v: Double
    ) {
        timestamps.append(timestamp)
        open.append(o)
        high.append(h)
        low.append(l)
        close.append(c)
        volume.append(v)
    }

    /// The bars with indices in `range`, as a new series.
    public func slice(_ range: Range<Int>) -> OHLCVSeries {
        OHLCVSeries(
            symbol: symbol,
            timestamps: Array(timestamps[range]),
            open: Array(open[range]),
            high: Array(high[range]),
            low: Array(low[range]),
            close: Array(close[range]),
            volume: Array(volume[range])
        )
    }

    /// The first `n` bars (all bars if `n >= count`).
    public func prefix(_ n: Int) -> OHLCVSeries { slice(0..<Swift.min(n, count)) }
}

/// One bar, for streaming consumers.
public struct Bar: Sendable, Equatable {
    public var timestamp: Int64
    public var open: Double
    public var high: Double
    public var low: Double
    public var close: Double
    public var volume: Double

    @inlinable
    public init(timestamp: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double) {
        self.timestamp = timestamp
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}

extension OHLCVSeries {
    /// The bar at `index`.
    @inlinable
    public subscript(bar index: Int) -> Bar {
        Bar(
            timestamp: timestamps[index], open: open[index], high: high[index], low: low[index],
            close: close[index], volume: volume[index]
        )
    }
}
