import Canopy
import CanopyMemory
import CanopySDL
import Foundation

/// The figures of one benchmark run, with the JSON names other tools read.
struct BenchRun: Codable, Sendable, Equatable {
    struct Percentiles: Codable, Sendable, Equatable {
        var p50: Double
        var p90: Double
        var p99: Double
        var max: Double
    }
    var mode: String
    var speed: Double
    var cards: Int
    var durationS: Double
    /// Frames presented.
    var frames: Int
    /// Frames presented late: more than 1.5 refresh periods after the previous present (the
    /// frames a user sees as dropped).
    var droppedFrames: Int
    /// The most late frames in a row.
    var lateRunMax: Int
    /// Frames presented per second.
    var fps: Double
    /// The main thread's work per frame, before the present.
    var mainMs: Percentiles
    /// Frames whose main-thread work alone overran the refresh period.
    var mainOverruns: Int
    /// The present call per frame (waiting for the renderer when it is behind).
    var presentMs: Percentiles
    /// The time between presents: what the user sees.
    var intervalMs: Percentiles
    var rssMbPeak: Double
    /// The fraction of visible card-frames of the scroll that were not on screen whole (no cell
    /// yet, not displayed, placeholder up, or not uploaded).
    var placeholderExposure: Double
    struct Rasters: Codable, Sendable, Equatable {
        var completed: Int
        var cancelled: Int
    }
    /// Asynchronous displays that landed, and those cancelled or made stale.
    var rasters: Rasters
    /// The most memory the compositor's textures held.
    var textureMbPeak: Double
    /// From the window's creation to the first frame with every visible card on screen whole;
    /// nil if that took longer than the bench's --timeout.
    var firstScreenMs: Double?
    /// The cards loaded when the run ended (batch fetching loads pages as the scroll nears the end).
    var loadedCards: Int

    enum CodingKeys: String, CodingKey {
        case mode, speed, cards, frames, fps, rasters
        case placeholderExposure = "placeholder_exposure"
        case textureMbPeak = "texture_mb_peak"
        case firstScreenMs = "first_screen_ms"
        case loadedCards = "loaded_cards"
        case durationS = "duration_s"
        case droppedFrames = "dropped_frames"
        case lateRunMax = "late_run_max"
        case mainMs = "main_ms"
        case mainOverruns = "main_overruns"
        case presentMs = "present_ms"
        case intervalMs = "interval_ms"
        case rssMbPeak = "rss_mb_peak"
    }

    /// Summarises per-frame work and interval times (milliseconds).
    static func summarise(_ values: [Double]) -> Percentiles {
        func rank(_ p: Double) -> Double { FrameStatistics.percentile(p, of: values) ?? 0 }
        return Percentiles(p50: rank(50), p90: rank(90), p99: rank(99), max: values.max() ?? 0)
    }
}

/// The compositor's floor at one speed: what a scroll draws, drawn with nothing else running
/// (`CompositorFloor`), under the scrolling runs' pacing; with `--scenario compositor`, also its
/// cost per frame drawn as fast as the renderer goes, and the bare SDL program's on the same scene.
struct FloorRun: Codable, Sendable, Equatable {
    /// Frames the unpaced measurements draw.
    static let unpacedFrames = 300

    var speed: Double
    var durationS: Double
    var frames: Int
    var fps: Double
    var droppedFrames: Int
    var lateRunMax: Int
    var mainMs: BenchRun.Percentiles
    var presentMs: BenchRun.Percentiles
    var intervalMs: BenchRun.Percentiles
    /// Unpaced: milliseconds per frame, the renderer's work included (`unpacedFrames` frames).
    var costMs: Double?
    /// The bare SDL program's milliseconds per frame on the same scene and frames.
    var bareMs: Double?
    var bareRenderer: String?

    enum CodingKeys: String, CodingKey {
        case speed, frames, fps
        case durationS = "duration_s"
        case droppedFrames = "dropped_frames"
        case lateRunMax = "late_run_max"
        case mainMs = "main_ms"
        case presentMs = "present_ms"
        case intervalMs = "interval_ms"
        case costMs = "cost_ms"
        case bareMs = "bare_ms"
        case bareRenderer = "bare_renderer"
    }

    init(speed: Double, tally: FrameTally, seconds: TimeInterval) {
        self.speed = speed
        durationS = seconds
        frames = tally.work.count
        fps = seconds > 0 ? Double(tally.work.count) / seconds : 0
        droppedFrames = tally.counted.totalLate
        lateRunMax = tally.counted.longestLateRun
        mainMs = BenchRun.summarise(tally.work)
        presentMs = BenchRun.summarise(tally.presents)
        intervalMs = BenchRun.summarise(tally.intervals)
    }

    /// The floor's cost over the bare SDL program's, when both were measured.
    var overBare: Double? {
        guard let costMs, let bareMs, bareMs > 0 else { return nil }
        return costMs / bareMs
    }
}

/// Everything `rainforest bench` reports.
struct BenchReport: Codable, Sendable {
    struct Environment: Codable, Sendable {
        var renderer: String?
        var videoDriver: String?
        var size: String?
        /// Pixels per point and frames per second of the scrolling runs' window (`--scale`,
        /// `--refresh`).
        var scale: Double?
        var refreshHz: Double?
        var cores: Int
        enum CodingKeys: String, CodingKey {
            case renderer, size, cores, scale
            case refreshHz = "refresh_hz"
            case videoDriver = "video_driver"
        }
    }
    var environment: Environment
    /// The scrolling runs, when that scenario ran.
    var runs: [BenchRun]?
    /// The compositor's floor, per speed, when the scrolling or the compositor scenario ran.
    var floor: [FloorRun]?
    /// The graphics steps, by their fixed names, when that scenario ran.
    var graphics: [String: GraphicsBenchmark.Result]?
    /// The naive full-resolution blur's cost as a ratio of the card blur's.
    var graphicsRatios: [String: Double]?
    /// The layout figures, when that scenario ran.
    var layout: LayoutBenchmark.Result?
    /// The display pipeline's figures, when that scenario ran.
    var display: DisplayBenchmark.Result?
    /// Main-thread mode against async mode, per speed run in both.
    var comparison: [Comparison]?
    /// The first screen's phases in new processes, when the startup scenario ran.
    var startup: [StartupBenchmark.Phases]?
    /// The fixed workloads' instruction counts, when that scenario ran.
    var instructions: [InstructionBenchmark.Count]?
    /// A folder of camera photos on first and second launch, when that scenario ran.
    var camera: CameraFigures?
    /// A folder of animations held still, playing and paused, when that scenario ran.
    var animation: AnimationFigures?

    /// The main-thread mode's figures over the async mode's at one speed.
    struct Comparison: Codable, Sendable, Equatable {
        struct Pair: Codable, Sendable, Equatable {
            var async: Double
            var mainThread: Double
            /// mainThread / async; nil when async is 0.
            var ratio: Double?
            enum CodingKeys: String, CodingKey {
                case async, ratio
                case mainThread = "main_thread"
            }
            init(async: Double, mainThread: Double) {
                self.async = async
                self.mainThread = mainThread
                ratio = async > 0 ? mainThread / async : nil
            }
        }
        var speed: Double
        var droppedFrames: Pair
        var mainMsP99: Pair
        enum CodingKeys: String, CodingKey {
            case speed
            case droppedFrames = "dropped_frames"
            case mainMsP99 = "main_ms_p99"
        }
    }

    /// Pairs each speed's async and sync runs.
    static func compare(_ runs: [BenchRun]) -> [Comparison] {
        let speeds = runs.map(\.speed).reduce(into: [Double]()) { if !$0.contains($1) { $0.append($1) } }
        return speeds.compactMap { speed in
            guard let a = runs.first(where: { $0.speed == speed && $0.mode == "async" }),
                let m = runs.first(where: { $0.speed == speed && $0.mode == "sync" })
            else { return nil }
            return Comparison(
                speed: speed,
                droppedFrames: .init(async: Double(a.droppedFrames), mainThread: Double(m.droppedFrames)),
                mainMsP99: .init(async: a.mainMs.p99, mainThread: m.mainMs.p99))
        }
    }

    /// Each run against the compositor's floor at its speed: the frames it presented as a share
    /// of the floor's, and its frame's cost (main-thread work and present, p50) over the floor's;
    /// then the floor's unpaced cost against bare SDL's.
    var floorText: String {
        guard let floor, !floor.isEmpty else { return "" }
        var lines: [String] = []
        let rows = (runs ?? []).compactMap { r -> [String]? in
            guard let f = floor.first(where: { $0.speed == r.speed }), f.fps > 0 else { return nil }
            let cost = r.mainMs.p50 + r.presentMs.p50, floorCost = f.mainMs.p50 + f.presentMs.p50
            return [
                r.mode == "sync" ? "main-thread" : r.mode, String(format: "%.0f pt/s", r.speed),
                String(format: "%.0f%% (%.1f vs %.1f fps)", 100 * r.fps / f.fps, r.fps, f.fps),
                String(format: "%d vs %d", r.droppedFrames, f.droppedFrames),
                floorCost > 0
                    ? String(format: "%.1fx (%.2f vs %.2f ms)", cost / floorCost, cost, floorCost) : "-",
            ]
        }
        if !rows.isEmpty {
            lines.append(
                "over the compositor's floor (the same scroll's cards drawn with nothing else running, the same pacing):\n"
                    + Self.format([["mode", "speed", "presented", "late", "frame cost p50 (main + present)"]] + rows))
        }
        let costs = floor.compactMap { f -> [String]? in
            guard let cost = f.costMs else { return nil }
            return [
                String(format: "%.0f pt/s", f.speed), String(format: "%.2f ms", cost),
                f.bareMs.map { String(format: "%.2f ms (%@)", $0, f.bareRenderer ?? "?") } ?? "-",
                f.overBare.map { String(format: "%.2fx", $0) } ?? "-",
            ]
        }
        if !costs.isEmpty {
            lines.append(
                "the floor unpaced, \(FloorRun.unpacedFrames) frames as fast as the renderer draws them, per frame:\n"
                    + Self.format([["speed", "Canopy's compositor", "bare SDL", "ratio"]] + costs))
        }
        return lines.joined(separator: "\n")
    }

    /// The comparison as lines under the table.
    var comparisonText: String {
        guard let comparison, !comparison.isEmpty else { return "" }
        func ratio(_ pair: Comparison.Pair, unit: String) -> String {
            let values = String(format: "%g%@ vs %g%@", pair.mainThread, unit, pair.async, unit)
            return pair.ratio.map { String(format: "%.1fx (%@)", $0, values) } ?? "\(values) (async: none)"
        }
        let rows = comparison.map { c in
            [
                String(format: "%.0f pt/s", c.speed), ratio(c.droppedFrames, unit: ""),
                ratio(
                    .init(
                        async: (c.mainMsP99.async * 100).rounded() / 100,
                        mainThread: (c.mainMsP99.mainThread * 100).rounded() / 100),
                    unit: " ms"),
            ]
        }
        return "main-thread mode over async mode:\n" + Self.format([["speed", "late frames", "main_ms p99"]] + rows)
    }

    enum CodingKeys: String, CodingKey {
        case environment, runs, floor, startup, graphics, layout, display, comparison, instructions
        case graphicsRatios = "graphics_ratios"
        case camera, animation
    }

    /// The table printed after a run: one row per run, columns right-aligned.
    var table: String {
        let header = [
            "mode", "speed", "fps", "late", "late run", "frame p50", "p90", "p99", "max", "main p50", "p99",
            "overruns", "present p50", "placeholders", "rasters", "cancelled", "textures MB", "rss MB",
            "first screen ms",
        ]
        func frames(
            _ mode: String, _ speed: Double, _ fps: Double, _ late: Int, _ lateRun: Int, _ interval: BenchRun.Percentiles,
            _ main: BenchRun.Percentiles, _ overruns: String, _ present: BenchRun.Percentiles
        ) -> [String] {
            [
                mode, String(format: "%.0f", speed), String(format: "%.1f", fps), "\(late)", "\(lateRun)",
                String(format: "%.1f", interval.p50), String(format: "%.1f", interval.p90),
                String(format: "%.1f", interval.p99), String(format: "%.1f", interval.max),
                String(format: "%.2f", main.p50), String(format: "%.2f", main.p99), overruns,
                String(format: "%.2f", present.p50),
            ]
        }
        var rows: [[String]] = []
        for speed in (floor ?? []).map(\.speed) + (runs ?? []).map(\.speed)
        where !rows.contains(where: { $0[1] == String(format: "%.0f", speed) }) {
            if let f = floor?.first(where: { $0.speed == speed }) {
                rows.append(
                    frames("floor", f.speed, f.fps, f.droppedFrames, f.lateRunMax, f.intervalMs, f.mainMs, "-", f.presentMs)
                        + ["-", "-", "-", "-", "-", "-"])
            }
            for r in (runs ?? []) where r.speed == speed {
                rows.append(
                    frames(
                        r.mode == "sync" ? "main-thread" : r.mode, r.speed, r.fps, r.droppedFrames, r.lateRunMax,
                        r.intervalMs, r.mainMs, "\(r.mainOverruns)", r.presentMs) + [
                            String(format: "%.4f", r.placeholderExposure), "\(r.rasters.completed)",
                            "\(r.rasters.cancelled)", String(format: "%.1f", r.textureMbPeak),
                            String(format: "%.1f", r.rssMbPeak), r.firstScreenMs.map { String(format: "%.0f", $0) } ?? "-",
                        ])
            }
        }
        return Self.format([header] + rows)
    }

    /// Columns padded to their widest cell: the first left-aligned, the rest right-aligned.
    static func format(_ table: [[String]]) -> String {
        let columns = table.map(\.count).max() ?? 0
        let widths = (0..<columns).map { c in table.map { $0.count > c ? $0[c].count : 0 }.max() ?? 0 }
        return table.map { row in
            row.enumerated().map { c, cell in
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    func writeJSON(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}

/// The process's memory figures, from /proc/self and the C allocator.
enum ProcessMemory {
    /// The peak resident set size in megabytes (VmHWM).
    static func peakResidentMB() -> Double {
        statusMB(["VmHWM"])[0]
    }

    /// The resident set size now, in megabytes (VmRSS).
    static func currentResidentMB() -> Double {
        statusMB(["VmRSS"])[0]
    }

    /// The resident set and what it is made of, in megabytes, read at one moment.
    struct Breakdown: Equatable, Sendable {
        /// VmRSS: the anonymous and file pages below, and shared memory.
        var residentMB: Double
        /// Anonymous pages: the heaps, stacks, and what graphics drivers map for themselves.
        var anonymousMB: Double
        /// Pages of mapped files: the code of the program and its libraries as it runs, fonts.
        var fileMB: Double
        /// Bytes the C allocator has handed out and not yet had back (glibc's `mallinfo2`): the
        /// live part of the anonymous pages. Nil when glibc's allocator is not the one in use (a
        /// sanitizer's replaces it, and its `mallinfo2` reports nothing).
        var heapInUseMB: Double?
    }

    static func breakdown() -> Breakdown {
        let figures = statusMB(["VmRSS", "RssAnon", "RssFile"])
        return Breakdown(residentMB: figures[0], anonymousMB: figures[1], fileMB: figures[2], heapInUseMB: heapInUseMB())
    }

    /// The named /proc/self/status fields ("VmRSS", ...), kB turned into MB; 0 for one not found.
    private static func statusMB(_ names: [String]) -> [Double] {
        var values = [Double](repeating: 0, count: names.count)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return values }
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let index = names.firstIndex(where: { $0 == fields[0] }),
                let kb = Double(fields[1])
            else { continue }
            values[index] = kb / 1024
        }
        return values
    }

    /// The C heap in use, in megabytes; nil when glibc's allocator is not the one in use.
    private static func heapInUseMB() -> Double? {
        MallocArenas.heapInUseBytes().map { Double($0) / 1_048_576 }
    }

    /// Resets the peak to the current size (Linux: writing 5 to clear_refs), so each run
    /// reports its own peak.
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }
}

extension Array where Element == Double {
    /// The benchmarks' median: the middle value once sorted (the upper one of an even count), 0
    /// when empty.
    var median: Double {
        guard !isEmpty else { return 0 }
        return sorted()[count / 2]
    }
}
