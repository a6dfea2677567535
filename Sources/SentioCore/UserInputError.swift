/// An error caused by the user's data or options rather than by a bug.
///
/// The command-line tool maps every error conforming to this protocol to exit code 2 and prints its
/// `description`, which must name what is wrong and where (file, line, field) when that is known.
public protocol UserInputError: Error, CustomStringConvertible {}
