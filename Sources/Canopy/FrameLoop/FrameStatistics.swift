import Foundation

/// One frame as the run loop measured it.
public struct FrameSample: Sendable, Equatable {
    /// When the turn started (monotonic seconds).
    public var start: TimeInterval
    /// Main-thread work: from the start of the turn to the present call, in milliseconds
    /// (the wait for vsync is not counted).
    public var workMs: Double
    /// Time since the previous turn started, in milliseconds; nil for the first frame and for
    /// a frame that followed an idle wait (the loop slept because nothing needed drawing).
    public var intervalMs: Double?
    /// The work overran the frame budget.
    public var dropped: Bool
}

/// Per-frame statistics: a window of recent frames for the FPS overlay, and totals.
public struct FrameStatistics: Sendable {
    /// The frame budget in milliseconds (16.7 at 60 Hz); a frame whose work overruns it is dropped.
    public var budgetMs: Double
    /// How many recent frames are kept.
    public let capacity: Int
    private var ring: [FrameSample] = []
    private var next = 0
    public private(set) var totalFrames = 0
    public private(set) var totalDropped = 0

    public init(budgetMs: Double = 1000.0 / 60.0, capacity: Int = 240) {
        precondition(capacity > 0)
        self.budgetMs = budgetMs
        self.capacity = capacity
        ring.reserveCapacity(capacity)
    }

    /// Records a frame; `dropped` is worked out from the budget.
    public mutating func record(start: TimeInterval, workMs: Double, intervalMs: Double?) {
        let sample = FrameSample(start: start, workMs: workMs, intervalMs: intervalMs, dropped: workMs > budgetMs)
        if ring.count < capacity {
            ring.append(sample)
        } else {
            ring[next] = sample
        }
        next = (next + 1) % capacity
        totalFrames += 1
        if sample.dropped { totalDropped += 1 }
    }

    /// The most recent frames, oldest first, at most `count`.
    public func recent(_ count: Int) -> [FrameSample] {
        let n = min(count, ring.count)
        guard n > 0 else { return [] }
        var out: [FrameSample] = []
        out.reserveCapacity(n)
        let startIndex = ring.count < capacity ? ring.count - n : (next - n + capacity) % capacity
        for i in 0..<n { out.append(ring[(startIndex + i) % ring.count]) }
        return out
    }

    /// Frames per second over the last second before `now`: frames divided by the time they
    /// covered, ignoring idle gaps (so an app that drew 30 frames in a burst and then slept
    /// shows the rate it drew at, not 30).
    public func framesPerSecond(now: TimeInterval) -> Double? {
        let window = recent(capacity).filter { now - $0.start <= 1.0 }
        let intervals = window.compactMap(\.intervalMs)
        guard !intervals.isEmpty else { return nil }
        let covered = intervals.reduce(0, +)
        return covered > 0 ? Double(intervals.count) * 1000.0 / covered : nil
    }

    /// Main-thread work percentile (0...100) over the last `count` frames.
    public func workPercentile(_ p: Double, last count: Int = 120) -> Double? {
        Self.percentile(p, of: recent(count).map(\.workMs))
    }

    /// The value below which `p` percent of `values` fall (nearest rank).
    public static func percentile(_ p: Double, of values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100.0 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
