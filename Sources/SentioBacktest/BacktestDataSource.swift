/// Where a run's bars came from: CSV paths or a store, and the `--from`/`--to` range asked for (UTC epoch
/// seconds). A backtest summary's `config` and a sweep output's `data` state it.
public struct BacktestDataSource: Sendable, Equatable {
    public var paths: [String]
    /// The store file when the bars were read from one.
    public var database: String?
    public var from: Int64?
    public var to: Int64?

    public init(paths: [String] = [], database: String? = nil, from: Int64? = nil, to: Int64? = nil) {
        self.paths = paths
        self.database = database
        self.from = from
        self.to = to
    }
}
