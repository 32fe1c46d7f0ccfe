import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// `bench --scenario startup`: the first screen, from launch to every visible card on screen
/// whole, cold (a new process: the program loaded, SDL, the renderer and Mesa started, fonts
/// opened, photos read for the first time) and warm (a second window in the same process), with
/// the phases of the cold one. Each run is a child, `bench --workload first-screen`, started
/// `runs` times in a row; the times are taken on the system's monotonic clock, which the parent
/// and the child share.
enum StartupBenchmark {
    /// The environment variable that carries the parent's clock reading at the child's start.
    static let spawnedAtVariable = "RAINFOREST_SPAWNED_AT"
    /// When set to a file name, each child traces its cold first screen (from the window's
    /// creation to every visible card on screen) into that file, numbered by run:
    /// `NAME-1.json`... (Chrome trace-event JSON, as key T writes).
    static let traceVariable = "RAINFOREST_TRACE_FIRST_SCREEN"
    static let runs = 3
    /// The child's run number, for its trace's file name.
    static let runVariable = "RAINFOREST_STARTUP_RUN"

    /// One child's figures, in milliseconds from its start.
    struct Phases: Codable, Sendable, Equatable {
        /// To the program's entry point: loading the program and its libraries.
        var launchMs: Double
        /// To the cards' file read and the fonts registered.
        var contentMs: Double
        /// To the window and its renderer made (SDL, EGL, Mesa).
        var windowMs: Double
        /// To the first frame presented (placeholders).
        var firstFrameMs: Double
        /// To the first frame with every visible card on screen whole: the cold first screen.
        var firstScreenMs: Double
        /// To the first frame with every visible card's photo from its file (or a desktop
        /// thumbnail), where the first screen showed camera photos' embedded thumbnails; the
        /// first screen's time otherwise.
        var photosMs: Double = 0
        /// A second window in the same process, from its creation to its first screen: warm.
        var warmFirstScreenMs: Double

        enum CodingKeys: String, CodingKey {
            case launchMs = "launch_ms"
            case contentMs = "content_ms"
            case windowMs = "window_ms"
            case firstFrameMs = "first_frame_ms"
            case firstScreenMs = "first_screen_ms"
            case photosMs = "photos_ms"
            case warmFirstScreenMs = "warm_first_screen_ms"
        }
    }

    /// The child's side: opens the viewer as the bench does, twice, and prints its phases as one
    /// line of JSON. `content` was loaded at `contentLoaded`.
    @MainActor
    static func runChild(
        options: CollectionOptions, content: Content, contentLoaded: TimeInterval, rendering: HeadlessOptions,
        timeout: TimeInterval
    ) throws {
        let environment = ProcessInfo.processInfo.environment
        let spawned = environment[spawnedAtVariable].flatMap(Double.init) ?? RainforestMain.startTime
        func ms(_ time: TimeInterval) -> Double { (time - spawned) * 1000 }
        var phases = Phases(
            launchMs: ms(RainforestMain.startTime), contentMs: ms(contentLoaded), windowMs: 0, firstFrameMs: 0,
            firstScreenMs: 0, warmFirstScreenMs: 0)
        let tracePath = environment[traceVariable].flatMap { $0.isEmpty ? nil : $0 }
        if tracePath != nil { Tracer.shared.start() }
        do {
            let session = try Session(collection: options, headless: true, rendering: rendering, content: content)
            defer { session.app.close() }
            phases.windowMs = ms(MonotonicClock.now())
            session.app.runTurn()
            phases.firstFrameMs = ms(MonotonicClock.now())
            guard session.settle(timeout: timeout) else {
                throw UserFacingError(message: "bench: the first screen did not come within \(timeout) s", status: 1)
            }
            phases.firstScreenMs = ms(MonotonicClock.now())
            guard session.settle(timeout: timeout, until: \.isDisplayCompleteFromFiles) else {
                throw UserFacingError(message: "bench: the first screen's photos did not come within \(timeout) s", status: 1)
            }
            phases.photosMs = ms(MonotonicClock.now())
        }
        if let tracePath {
            let url = URL(fileURLWithPath: tracePath)
            let run = environment[runVariable] ?? "1"
            let file = url.deletingPathExtension().path + "-\(run)." + (url.pathExtension.isEmpty ? "json" : url.pathExtension)
            do {
                try Tracer.shared.stop().write(to: URL(fileURLWithPath: file))
            } catch {
                throw UserFacingError(message: "\(file): cannot write the trace (\(error.localizedDescription))", status: 1)
            }
        }
        let warmStart = MonotonicClock.now()
        let warm = try Session(collection: options, headless: true, rendering: rendering, content: content)
        defer { warm.app.close() }
        guard warm.settle(timeout: timeout) else {
            throw UserFacingError(message: "bench: the warm first screen did not come within \(timeout) s", status: 1)
        }
        phases.warmFirstScreenMs = (MonotonicClock.now() - warmStart) * 1000
        // The thumbnails of what was shown, made while a reader would look at it (an exiting
        // viewer drops those still queued), so that the next launch finds them.
        Thumbnails.waitForWrites()
        let data = try? JSONEncoder().encode(phases)
        print(String(decoding: data ?? Data(), as: UTF8.self))
    }

    /// Starts the child `runs` times in a row with the same options; each one's phases.
    static func run(arguments: [String]) throws(UserFacingError) -> [Phases] {
        let own = Bundle.main.executableURL
        return try (1...runs).map { run throws(UserFacingError) in try runOnce(own, arguments: arguments, run: run) }
    }

    /// Starts the child once (run number `run`, with `environment` added to this process's);
    /// its phases.
    static func runOnce(
        _ own: URL? = Bundle.main.executableURL, arguments: [String], run: Int, environment: [String: String] = [:]
    ) throws(UserFacingError) -> Phases {
        guard let own else { throw UserFacingError(message: "bench: cannot find this program's file", status: 1) }
        let outcome = try ChildProcess.run(
            own, ["bench", "--workload", "first-screen"] + arguments,
            environment: environment.merging([runVariable: "\(run)", spawnedAtVariable: String(MonotonicClock.now())]) {
                $1
            })
        let line = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        guard outcome.status == 0, let phases = try? JSONDecoder().decode(Phases.self, from: Data(line.utf8)) else {
            throw UserFacingError(
                message: "bench: the first-screen run failed (status \(outcome.status)): \(line)\n\(outcome.errorsTail)",
                status: 1)
        }
        return phases
    }

    static func table(_ results: [Phases]) -> String {
        let rows = results.enumerated().map { i, p in
            ["\(i + 1)"]
                + [p.launchMs, p.contentMs, p.windowMs, p.firstFrameMs, p.firstScreenMs, p.warmFirstScreenMs].map {
                    String(format: "%.0f", $0)
                }
        }
        return BenchReport.format(
            [["run", "launched", "content", "window", "first frame", "first screen (cold)", "warm first screen"]] + rows)
    }
}
