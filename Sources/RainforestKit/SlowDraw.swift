import Canopy
import Foundation
import Synchronization

/// The viewer's slow-draw mode, as Canopy's display draw hook: asynchronous displays run one at a
/// time, each after `delay` extra seconds, to watch placeholders and cancellation at work.
///
/// A display waiting for its turn keeps polling its cancellation, so a cancelled one frees its
/// worker at once. Switching the mode off (`isOn` false) speeds up the displays already waiting:
/// they stop waiting for the turn and the delay.
final class SlowDraw: DisplayDrawHook {
    let delay: TimeInterval
    private let on = Atomic<Bool>(true)
    /// Held by the display drawing now.
    private let turn = Mutex(())

    init(delay: TimeInterval) {
        self.delay = delay
    }

    /// Whether displays are slowed down (true from the start).
    var isOn: Bool {
        get { on.load(ordering: .acquiring) }
        set { on.store(newValue, ordering: .releasing) }
    }

    func run<T>(isCancelled: @Sendable () -> Bool, _ draw: () -> T?) -> T? {
        while true {
            if isCancelled() { return nil }
            guard isOn else { return draw() }
            let outcome: T?? = turn.withLockIfAvailable { _ -> T? in
                let end = MonotonicClock.now() + delay
                while isOn && MonotonicClock.now() < end {
                    if isCancelled() { return nil }
                    Thread.sleep(forTimeInterval: min(0.01, max(0, end - MonotonicClock.now())))
                }
                return isCancelled() ? nil : draw()
            }
            if let outcome { return outcome }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}
