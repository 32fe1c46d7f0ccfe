import CSDL2

/// SDL's system cursors, created on first use and kept (SDL frees them when it quits). Main thread.
@MainActor
final class SystemCursors {
    private var hand: OpaquePointer?

    /// Makes `cursor` the window's cursor.
    func show(_ cursor: Cursor) {
        switch cursor {
        case .arrow:
            if let arrow = SDL_GetDefaultCursor() { SDL_SetCursor(arrow) }
        case .hand:
            if hand == nil { hand = SDL_CreateSystemCursor(SDL_SYSTEM_CURSOR_HAND) }
            if let hand { SDL_SetCursor(hand) }
        }
    }
}
