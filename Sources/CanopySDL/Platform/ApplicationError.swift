/// Why the window system could not start, in words for the user.
public struct ApplicationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
