import Foundation
import Synchronization

/// Main-thread work owed after changes that any thread may make (a control's or a cell's state
/// report, a button's relayout), posted at most once per turn: the changes made before the posted
/// work runs are all handled by it.
///
/// `run(_:)` does the work at once on the main thread, and elsewhere posts it to the main run
/// loop's next turn unless posted work has not run yet (`MainThread.perform`). Posted work runs
/// only while it is still owed: the main thread doing the work in between (`run(_:)` there, or
/// `takePending()`) pays the debt, and the posted work then does nothing. So the work must read
/// the latest state when it runs, not state captured when it was posted.
final class CoalescedMainThreadWork: Sendable {
    private let pending = Atomic<Bool>(false)

    /// Does `work` now on the main thread; posts it elsewhere (see the type's notes). Any thread.
    func run(_ work: @escaping @Sendable @MainActor () -> Void) {
        if Thread.isMainThread {
            MainActor.assumeIsolated {
                takePending()
                work()
            }
        } else {
            post(work)
        }
    }

    /// Posts `work` for the main loop's next turn unless posted work has not run yet. Any thread.
    func post(_ work: @escaping @Sendable @MainActor () -> Void) {
        guard !pending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        MainThread.perform { [self] in
            if takePending() { work() }
        }
    }

    /// Whether posted work was owed; it no longer is (the posted work will do nothing). Main
    /// thread, before reading the state the work reads.
    @MainActor
    @discardableResult
    func takePending() -> Bool {
        pending.exchange(false, ordering: .sequentiallyConsistent)
    }
}
