import Foundation

/// When to hand freed memory back to the system: once after each burst of work (displays,
/// uploads, released textures), when the work has been quiet for `quietTime` or the run loop is
/// about to sleep, whichever comes first; never while work goes on, never twice for one burst.
///
/// Why: the bitmaps a burst draws and frees are large (a card is 0.8 MB at 1x, 3 MB at 2x) and
/// are freed on other threads than the ones that made them. The C allocator keeps what they
/// leave in its arenas for reuse, so the process's resident memory stays at the burst's peak
/// although nothing holds it. Trimming after the burst gives it back.
public struct MemoryTrimPolicy: Sendable {
    /// How long the work must have been quiet before a trim while frames go on.
    public var quietTime: TimeInterval
    private var lastSignature: [Int]?
    private var lastActivity: TimeInterval = 0
    private var pending = false

    /// Whether work was done since the last trim (a trim is due once it is quiet).
    public var isTrimDue: Bool { pending }

    public init(quietTime: TimeInterval = 1) {
        self.quietTime = quietTime
    }

    /// Called at the end of each turn with a signature of the work done so far (counters that
    /// change when work happens) and whether the loop will sleep after this turn; true when the
    /// memory should be trimmed now.
    public mutating func shouldTrim(now: TimeInterval, activity signature: [Int], loopWillSleep: Bool) -> Bool {
        if let lastSignature, lastSignature != signature {
            pending = true
            lastActivity = now
        }
        lastSignature = signature
        guard pending, loopWillSleep || now - lastActivity >= quietTime else { return false }
        pending = false
        return true
    }
}
