/// The pointer's shape over the window (`Application.cursor`).
public enum Cursor: Sendable, Hashable {
    /// The system's default arrow.
    case arrow
    /// The pointing hand, over something that takes a click (`NodeInputRouter.wantsHandCursor`).
    case hand
}
