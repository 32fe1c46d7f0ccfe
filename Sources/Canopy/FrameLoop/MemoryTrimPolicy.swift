import Foundation

/// When to hand freed memory back to the system: once after each burst of work (displays,
/// uploads, released textures), when the work has been quiet for `quietTime`; never while work
/// goes on, never twice for one burst.
///
/// Why: the bitmaps a burst draws and frees are large (a card is 0.8 MB at 1x, 3 MB at 2x) and
/// are freed on other threads than the ones that made them. The C allocator keeps what they
/// leave in its arenas for reuse, so the process's resident memory stays at the burst's peak
/// although nothing holds it. Trimming after the burst gives it back.
///
/// The loop may go to sleep before the quiet time is over (the last frame of a scroll starts
/// displays that land later and wake it): the decision then says when to look again, and the
/// caller asks for a frame at that time.
package struct MemoryTrimPolicy<Signature: Equatable & Sendable>: Sendable {
    /// What to do at the end of a turn.
    package enum Decision: Equatable, Sendable {
        /// Nothing (no work since the last trim, or the work is not yet quiet and frames go on).
        case wait
        /// Trim now.
        case trim
        /// The loop is going to sleep with a trim due: turn again at this time.
        case checkAgain(at: TimeInterval)
    }

    /// How long the work must have been quiet before a trim.
    package var quietTime: TimeInterval
    private var lastSignature: Signature?
    private var lastActivity: TimeInterval = 0
    private var pending = false

    /// Whether work was done since the last trim (a trim is due once it is quiet).
    package var isTrimDue: Bool { pending }

    package init(quietTime: TimeInterval = 1) {
        self.quietTime = quietTime
    }

    /// Called at the end of each turn with a signature of the work done so far (counters that
    /// change when work happens; a value type, so a turn allocates nothing) and whether the loop
    /// will sleep after this turn.
    package mutating func decide(now: TimeInterval, activity signature: Signature, loopWillSleep: Bool) -> Decision {
        if let lastSignature, lastSignature != signature {
            pending = true
            lastActivity = now
        }
        lastSignature = signature
        guard pending else { return .wait }
        if now - lastActivity >= quietTime {
            pending = false
            return .trim
        }
        return loopWillSleep ? .checkAgain(at: lastActivity + quietTime) : .wait
    }
}
