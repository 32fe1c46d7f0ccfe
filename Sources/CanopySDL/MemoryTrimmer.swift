import Canopy
import Dispatch
import Foundation

/// Hands the C allocator's free memory back to the system after bursts of work
/// (`MemoryTrimPolicy` says when), on a background queue so that the main thread never waits
/// for it. glibc's `malloc_trim(0)` returns the whole free pages of every arena; it is looked up
/// at run time, so elsewhere (another C library) this does nothing.
@MainActor
final class MemoryTrimmer {
    private typealias Trim = @convention(c) (Int) -> Int32
    nonisolated private static let trim: Trim? = dlsym(nil, "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }
    private static let queue = DispatchQueue(label: "canopy.memory-trim", qos: .utility)

    private var policy = MemoryTrimPolicy()
    /// Trims asked for so far.
    private(set) var trims = 0

    /// Whether work was done since the last trim.
    var isTrimDue: Bool { Self.trim != nil && policy.isTrimDue }

    /// Waits for the trims asked for so far to end.
    func waitForTrims() {
        Self.queue.sync {}
    }

    /// Called at the end of each turn.
    func turnEnded(now: TimeInterval, activity: [Int], loopWillSleep: Bool) {
        guard Self.trim != nil,
              policy.shouldTrim(now: now, activity: activity, loopWillSleep: loopWillSleep) else { return }
        trims += 1
        Self.queue.async {
            Tracer.shared.measure("return free memory", category: "memory") { _ = Self.trim?(0) }
        }
    }
}
