import Foundation

/// Delivers main-thread work (override points such as `ControlNode.stateDidChange(from:)`) from
/// whatever thread made a change.
enum MainThread {
    /// Runs `body` at once when called on the main thread; otherwise posts it to the main run loop
    /// (the one `DisplayScheduler.shared` is installed on) for its next turn. Before any install it
    /// goes to Dispatch's main queue, which only a Foundation run loop or `dispatchMain` drains;
    /// Canopy's loop does not, so an app that changes nodes off the main thread installs the
    /// scheduler first (every app that displays nodes does).
    static func perform(_ body: @escaping @Sendable @MainActor () -> Void) {
        if Thread.isMainThread {
            MainActor.assumeIsolated { body() }
        } else if let loop = DisplayScheduler.shared.runLoop {
            loop.perform(body)
        } else {
            DispatchQueue.main.async { MainActor.assumeIsolated { body() } }
        }
    }
}
