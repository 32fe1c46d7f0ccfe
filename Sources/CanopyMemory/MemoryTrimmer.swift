import CMalloc
import Canopy
import Dispatch
import Foundation
import Synchronization

/// Hands the C allocator's free memory back to the system after bursts of work
/// (`MemoryTrimPolicy` says when), on a background queue so that the main thread never waits
/// for it. glibc's `malloc_trim(0)` returns the whole free pages of every arena, and the free end
/// of the main one (the `rainforest` binary keeps every thread in that one: `MallocArenas`).
///
/// Package access: CanopySDL's `Application` runs one and reports on it; apps see only that.
@MainActor
package final class MemoryTrimmer {
    private static let queue = DispatchQueue(label: "canopy.memory-trim", qos: .utility)

    package init() {}

    /// The work a turn can see: displays started, rasters landed and dropped, texture bytes (the
    /// layers' and the compositor's scratch ones, whose evictions free driver memory too).
    package struct Work: Equatable, Sendable {
        var displays: Int
        var rastersCompleted: Int
        var rastersCancelled: Int
        var textureBytes: Int
        var scratchTextureBytes: Int

        package init(
            displays: Int, rastersCompleted: Int, rastersCancelled: Int, textureBytes: Int,
            scratchTextureBytes: Int
        ) {
            self.displays = displays
            self.rastersCompleted = rastersCompleted
            self.rastersCancelled = rastersCancelled
            self.textureBytes = textureBytes
            self.scratchTextureBytes = scratchTextureBytes
        }
    }

    private var policy = MemoryTrimPolicy<Work>()
    /// How long work must be quiet before a trim.
    package var quietTime: TimeInterval {
        get { policy.quietTime }
        set { policy.quietTime = newValue }
    }
    /// Trims asked for so far.
    package private(set) var trims = 0

    /// How many trims ended, and how long the longest took, since last taken. A trim holds each
    /// arena's lock while it walks it: an allocation on another thread meanwhile waits.
    package struct Times: Equatable, Sendable {
        package var count = 0
        package var longest: TimeInterval = 0
    }
    /// Written on the trim queue, taken on the main thread.
    private final class TimesBox: Sendable {
        let times = Mutex(Times())
    }
    private nonisolated let box = TimesBox()

    /// The trims' times since the last call, and starts counting again.
    package func takeTimes() -> Times {
        box.times.withLock { taken in
            defer { taken = Times() }
            return taken
        }
    }

    /// Whether work was done since the last trim.
    package var isTrimDue: Bool { policy.isTrimDue }

    /// Waits for the trims asked for so far to end.
    package func waitForTrims() {
        Self.queue.sync {}
    }

    /// Called at the end of each turn; returns when the loop should turn again to look (it is
    /// going to sleep with a trim due), or nil.
    package func turnEnded(now: TimeInterval, activity: Work, loopWillSleep: Bool) -> TimeInterval? {
        switch policy.decide(now: now, activity: activity, loopWillSleep: loopWillSleep) {
        case .wait:
            return nil
        case .checkAgain(let time):
            return time
        case .trim:
            trims += 1
            Self.queue.async { [box] in
                let start = MonotonicClock.now()
                Tracer.shared.measure("return free memory", category: "memory") { _ = malloc_trim(0) }
                let took = MonotonicClock.now() - start
                box.times.withLock {
                    $0.count += 1
                    $0.longest = max($0.longest, took)
                }
            }
            return nil
        }
    }
}
