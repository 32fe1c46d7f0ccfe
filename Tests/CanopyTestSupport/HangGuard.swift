import Dispatch
import Foundation

/// How long a test waits for something that must happen before it calls the wait a hang.
///
/// These machines are shared and their speed swings by a factor of two to seven from minute to
/// minute, and the sanitizers slow the tests down by as much again; so no test expects anything
/// to happen within a time. A test waits for a condition (a display landed, a frame presented, a
/// thread finished) and gives up only after `seconds`, long enough that only a hang reaches it.
/// A test that needs time to pass (a deadline in the code under test) uses a clock of its own.
public enum HangGuard {
    /// Five minutes: a wait this long is a hang on any machine, under any sanitizer.
    public static let seconds: TimeInterval = 300

    /// `seconds` from now, for `DispatchSemaphore.wait(timeout:)` and `DispatchGroup.wait(timeout:)`.
    public static var deadline: DispatchTime { .now() + seconds }

    /// Calls `step` until `condition()` holds or `seconds` have passed; true if it held. `step`
    /// does what makes progress (turns a run loop, pumps events); `pause` seconds of sleep follow
    /// each step that left the condition false, so that the wait leaves the cores to the workers.
    public static func wait(
        until condition: () -> Bool, pause: TimeInterval = 0.001,
        step: () -> Void = {}
    ) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        while !condition() {
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > seconds { return condition() }
            step()
            if condition() { return true }
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
        return true
    }
}
