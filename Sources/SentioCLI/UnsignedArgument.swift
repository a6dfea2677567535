import ArgumentParser

/// The value of an unsigned integer option (`--seed`), read so that a negative number is reported by the command's
/// own `validate()` rather than as an unparsable value.
///
/// With `parsing: .unconditional` the option receives `-5` whatever it looks like; `UInt64` alone would reject it
/// with ArgumentParser's generic "The value '-5' is invalid". This type accepts `-N` (N an unsigned integer) as
/// written, and `check(_:)` says what is wrong with it: "--seed must not be negative (it is an unsigned integer),
/// got -5". Anything else that is not an unsigned integer is still ArgumentParser's parse error.
struct UnsignedArgument: ExpressibleByArgument, Sendable {
    /// The value; 0 for a negative argument, which `check(_:)` rejects.
    let value: UInt64
    /// The argument as given, when it was negative.
    let negative: String?

    init(_ value: UInt64) {
        self.init(value: value, negative: nil)
    }

    private init(value: UInt64, negative: String?) {
        self.value = value
        self.negative = negative
    }

    init?(argument: String) {
        if let value = UInt64(argument) {
            self.init(value)
        } else if argument.hasPrefix("-"), UInt64(argument.dropFirst()) != nil {
            self.init(value: 0, negative: argument)
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { String(value) }

    /// Throws when the argument was negative; `option` is the option's name as typed (`--seed`).
    func check(_ option: String) throws {
        if let negative {
            throw ValidationError("\(option) must not be negative (it is an unsigned integer), got \(negative)")
        }
    }
}
