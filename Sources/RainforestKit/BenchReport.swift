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
        case intervalMs = "interval_ms"
        case rssMbPeak = "rss_mb_peak"
    }

    /// Summarises per-frame work and interval times (milliseconds).
    static func summarise(_ values: [Double]) -> Percentiles {
        func rank(_ p: Double) -> Double { FrameStatistics.percentile(p, of: values) ?? 0 }
        return Percentiles(p50: rank(50), p90: rank(90), p99: rank(99), max: values.max() ?? 0)
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
        case environment, runs, graphics, layout, display, comparison
        case graphicsRatios = "graphics_ratios"
    }

    /// The table printed after a run: one row per run, columns right-aligned.
    var table: String {
        let header = [
            "mode", "speed", "fps", "late", "late run", "frame p50", "p90", "p99", "max", "main p50", "p99",
            "overruns", "placeholders", "rasters", "cancelled", "textures MB", "rss MB", "first screen ms",
        ]
        let rows = (runs ?? []).map { r in
            [
                r.mode == "sync" ? "main-thread" : r.mode, String(format: "%.0f", r.speed), String(format: "%.1f", r.fps),
                "\(r.droppedFrames)", "\(r.lateRunMax)", String(format: "%.1f", r.intervalMs.p50),
                String(format: "%.1f", r.intervalMs.p90), String(format: "%.1f", r.intervalMs.p99),
                String(format: "%.1f", r.intervalMs.max), String(format: "%.2f", r.mainMs.p50),
                String(format: "%.2f", r.mainMs.p99), "\(r.mainOverruns)",
                String(format: "%.4f", r.placeholderExposure), "\(r.rasters.completed)", "\(r.rasters.cancelled)",
                String(format: "%.1f", r.textureMbPeak), String(format: "%.1f", r.rssMbPeak),
                r.firstScreenMs.map { String(format: "%.0f", $0) } ?? "-",
            ]
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
