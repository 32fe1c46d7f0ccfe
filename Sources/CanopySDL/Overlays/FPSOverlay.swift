import Canopy
import CanopyGraphics
import Foundation

/// The FPS overlay, counting frames as the user sees them: frames presented per second over the
/// last second; a graph of the last 120 frames, each bar the interval from the previous present
/// (grey, red when late) with the main thread's part of it inside (green, orange when it alone
/// overran the refresh period); the intervals' p50 and p99, late frames and their longest run;
/// the main thread's p50, p99 and overruns; texture memory, and the modes the app reports.
@MainActor
struct FPSOverlay {
    static let graphFrames = 120
    static let barWidth: CGFloat = 2
    static let graphHeight: CGFloat = 56
    static let padding: CGFloat = 10
    /// The graph's top stands for twice the refresh period.
    static let graphRangeInBudgets: Double = 2

    /// The figures, refreshed a few times a second so they can be read.
    private var shown: (fps: String, timing: [String])?
    private var lastRefresh: TimeInterval = -.infinity

    mutating func draw(
        compositor: Compositor, text: TextCache, font: Font, at origin: CGPoint,
        statistics: FrameStatistics, now: TimeInterval, idle: Bool, extraLines: [String]
    ) {
        if now - lastRefresh >= 0.25 || shown == nil {
            lastRefresh = now
            let fps = statistics.framesPerSecond(now: now).map { String(format: "%.0f fps", $0) } ?? "– fps"
            let frames = String(
                format: "frame p50 %.1f ms · p99 %.1f ms · late %d (longest run %d)",
                statistics.intervalPercentile(50) ?? 0, statistics.intervalPercentile(99) ?? 0, statistics.totalLate,
                statistics.longestLateRun)
            let main = String(
                format: "main p50 %.1f ms · p99 %.1f ms · overruns %d", statistics.workPercentile(50) ?? 0,
                statistics.workPercentile(99) ?? 0, statistics.totalOverruns)
            shown = (fps, [frames, main])
        }
        let scale = compositor.scale
        let width = CGFloat(Self.graphFrames) * Self.barWidth + 2 * Self.padding
        let titleFont = font.withSize(20)
        let smallFont = font.withSize(12)
        let lines = shown!.timing + extraLines
        let lineHeight: CGFloat = 16
        let height = Self.padding * 2 + 26 + Self.graphHeight + 6 + CGFloat(lines.count) * lineHeight
        let panel = CGRect(x: origin.x, y: origin.y, width: width, height: height)
        compositor.fillRounded(panel, radius: 8, color: Color(white: 0, alpha: 0.72))

        var y = panel.minY + Self.padding
        let title = shown!.fps + (idle ? " (idle)" : "")
        if let b = text.bitmap(title, font: titleFont, color: .white, scale: scale) {
            compositor.drawBitmap(b, in: CGRect(origin: CGPoint(x: panel.minX + Self.padding, y: y), size: b.size))
        }
        let budgetLabel = String(format: "%.1f ms budget", statistics.budgetMs)
        if let b = text.bitmap(budgetLabel, font: smallFont, color: Color(white: 0.75), scale: scale) {
            compositor.drawBitmap(
                b,
                in: CGRect(
                    x: panel.maxX - Self.padding - b.size.width, y: y + 6,
                    width: b.size.width, height: b.size.height))
        }
        y += 26

        // The graph: one bar per frame, newest on the right.
        let graph = CGRect(
            x: panel.minX + Self.padding, y: y, width: CGFloat(Self.graphFrames) * Self.barWidth,
            height: Self.graphHeight)
        compositor.fill(graph, color: Color(white: 1, alpha: 0.08))
        let range = statistics.budgetMs * Self.graphRangeInBudgets
        let frames = statistics.recent(Self.graphFrames)
        let firstX = graph.maxX - CGFloat(frames.count) * Self.barWidth
        let green = Color(red: 0.30, green: 0.85, blue: 0.40)
        let orange = Color(red: 0.98, green: 0.60, blue: 0.15)
        let grey = Color(white: 0.55)
        let red = Color(red: 0.95, green: 0.25, blue: 0.20)
        func bar(_ i: Int, _ ms: Double) -> CGRect {
            let h = max(1, CGFloat(min(1, ms / range)) * graph.height)
            return CGRect(x: firstX + CGFloat(i) * Self.barWidth, y: graph.maxY - h, width: Self.barWidth, height: h)
        }
        // Each colour's bars in one draw: the intervals, then the main-thread work inside them.
        var intervals: (onTime: [CGRect], late: [CGRect]) = ([], [])
        var work: (inBudget: [CGRect], overran: [CGRect]) = ([], [])
        for (i, frame) in frames.enumerated() {
            if let interval = frame.intervalMs {
                if frame.isLate { intervals.late.append(bar(i, interval)) } else { intervals.onTime.append(bar(i, interval)) }
            }
            if frame.overran { work.overran.append(bar(i, frame.workMs)) } else { work.inBudget.append(bar(i, frame.workMs)) }
        }
        compositor.fill(intervals.onTime, color: grey)
        compositor.fill(intervals.late, color: red)
        compositor.fill(work.inBudget, color: green)
        compositor.fill(work.overran, color: orange)
        let budgetY = graph.maxY - CGFloat(1 / Self.graphRangeInBudgets) * graph.height
        compositor.fill(CGRect(x: graph.minX, y: budgetY, width: graph.width, height: 1), color: Color(white: 1, alpha: 0.7))
        y = graph.maxY + 6

        for line in lines {
            if let b = text.bitmap(line, font: smallFont, color: Color(white: 0.92), scale: scale) {
                compositor.drawBitmap(b, in: CGRect(origin: CGPoint(x: panel.minX + Self.padding, y: y), size: b.size))
            }
            y += lineHeight
        }
    }
}
