import SentioBacktest

extension PerformanceStatistics {
    /// A figure's value: an integer, a number, or undefined (`null` in JSON).
    enum FigureValue {
        case integer(Int)
        case number(Double)
        case undefined
    }

    /// Each figure as (name, value) in declaration order, the order the contracts write them.
    ///
    /// Read by reflection so that the names are declared once (SentioBacktest's `PerformanceStatistics`); every
    /// stored property is an `Int`, a `Double` or a `Double?` (a test checks that each one is read).
    var figures: [(name: String, value: FigureValue)] {
        Mirror(reflecting: self).children.map { child in
            let value: FigureValue
            switch child.value {
            case let x as Int: value = .integer(x)
            case let x as Double: value = .number(x)
            default: value = .undefined  // a `Double?` that is nil
            }
            return (child.label ?? "", value)
        }
    }

    /// The figures' names in declaration order (the keys of the summary's figures, the sweep CSV's columns).
    public static var figureNames: [String] { PerformanceStatistics().figures.map(\.name) }

    /// Every `Double` figure that is defined, as (name, value): what a finiteness check reads.
    var namedNumbers: [(String, Double)] {
        figures.compactMap { name, value in
            if case .number(let x) = value { return (name, x) }
            return nil
        }
    }

    /// Each figure as (name, text) for the CSV form: numbers as APIJSON writes them, `nil` when undefined.
    public var textFields: [(name: String, value: String?)] {
        figures.map { name, value in
            switch value {
            case .integer(let i): (name, String(i))
            case .number(let x): (name, APIJSON.number(x))
            case .undefined: (name, nil)
            }
        }
    }
}
