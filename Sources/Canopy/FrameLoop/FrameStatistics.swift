import Foundation

/// One frame as the frame loop measured it: when it was presented, against the one before, and
/// the main thread's part of it.
public struct FrameSample: Sendable, Equatable {
    /// When the turn started (monotonic seconds).
    public var start: TimeInterval
    /// Main-thread work: from the start of the turn to the present call, in milliseconds (the
    /// present itself, and the renderer's work in it, are not counted).
    public var workMs: Double
    /// The present call: handing the frame to the renderer, and waiting for it when the renderer
    /// is behind (vsync, or a software rasterizer's frames in flight), in milliseconds.
    public var presentMs: Double
    /// What the user saw: the time from the previous frame's present to this one's, in
    /// milliseconds; nil for the first frame and for a frame that followed an idle wait (the loop
    /// slept because nothing needed drawing).
    public var intervalMs: Double?
    /// The frame was presented late: more than `FrameStatistics.lateFactor` refresh periods after
    /// the previous one, so the previous frame stayed on screen for at least one refresh too many
    /// (how Chromium and Android count jank).
    public var isLate: Bool
    /// The main thread's work alone overran the refresh period.
    public var overran: Bool
}

/// Per-frame statistics: a window of recent frames for the FPS overlay, and totals.
public struct FrameStatistics: Sendable {
    /// A present more than this many refresh periods after the previous one is late.
    public static let lateFactor = 1.5

    /// The refresh period in milliseconds (16.7 at 60 Hz): the main thread's budget, and the
    /// unit of lateness.
    public var budgetMs: Double
    /// How many recent frames are kept.
    public let capacity: Int
    private var ring: [FrameSample] = []
    private var next = 0
    public private(set) var totalFrames = 0
    /// Frames presented late (`FrameSample.isLate`).
    public private(set) var totalLate = 0
    /// Frames whose main-thread work overran the refresh period.
    public private(set) var totalOverruns = 0
    /// The most late frames in a row so far.
    public private(set) var longestLateRun = 0
    private var lateRun = 0

    public init(budgetMs: Double = 1000.0 / 60.0, capacity: Int = 240) {
        precondition(capacity > 0)
        self.budgetMs = budgetMs
        self.capacity = capacity
        ring.reserveCapacity(capacity)
    }

    /// Records a frame; whether it was late and whether its work overran come from the refresh
    /// period.
    public mutating func record(start: TimeInterval, workMs: Double, presentMs: Double = 0, intervalMs: Double?) {
        let isLate = intervalMs.map { $0 > budgetMs * Self.lateFactor } ?? false
        let sample = FrameSample(
            start: start, workMs: workMs, presentMs: presentMs, intervalMs: intervalMs, isLate: isLate,
            overran: workMs > budgetMs)
        if ring.count < capacity {
            ring.append(sample)
        } else {
            ring[next] = sample
        }
        next = (next + 1) % capacity
        totalFrames += 1
        if sample.overran { totalOverruns += 1 }
        if isLate {
            totalLate += 1
            lateRun += 1
            longestLateRun = max(longestLateRun, lateRun)
        } else {
            lateRun = 0
        }
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

    /// Frames presented per second over the last second before `now`: frames divided by the time
    /// between their presents, ignoring idle gaps (so an app that drew 30 frames in a burst and then slept
    /// shows the rate it drew at, not 30).
    public func framesPerSecond(now: TimeInterval) -> Double? {
        let window = recent(capacity).filter { now - $0.start <= 1.0 }
        let intervals = window.compactMap(\.intervalMs)
        guard !intervals.isEmpty else { return nil }
        let covered = intervals.reduce(0, +)
        return covered > 0 ? Double(intervals.count) * 1000.0 / covered : nil
    }

    /// Percentile (0...100) of the intervals between presents over the last `count` frames.
    public func intervalPercentile(_ p: Double, last count: Int = 120) -> Double? {
        Self.percentile(p, of: recent(count).compactMap(\.intervalMs))
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
