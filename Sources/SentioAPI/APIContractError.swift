import SentioCore
import SentioData

/// An engine result that no contract can carry without a null or a made-up number (a fund without an IRR,
/// a symbol still warming up asked for in detail, an empty trade history's win rate, …).
public struct APIContractError: UserInputError, Equatable {
    /// What the error is about: a symbol, a fund id, a holding.
    public var subject: String
    /// The contract field that cannot be filled.
    public var field: String
    public var message: String

    public init(subject: String, field: String, message: String) {
        self.subject = subject
        self.field = field
        self.message = message
    }

    public var description: String { "\(subject): \(field): \(message)" }
}

extension InstrumentNames {
    /// The display name of `symbol` for a contract: `resolvedName(of:)` (SentioData), which see for the
    /// resolution order.
    /// - Throws: ``APIContractError`` when the symbol has no name and `symbolAsLastResort` is off (a contract
    ///   name is never empty or null).
    public func name(of symbol: String) throws(APIContractError) -> String {
        guard let name = resolvedName(of: symbol) else {
            throw APIContractError(subject: symbol, field: "name",
                message: "no instrument name for \(symbol): give one in the instrument metadata")
        }
        return name
    }
}
