import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

/// The real `rainforest` binary, run headless as a user would: screenshots with pixels where
/// cards must be, the bench's JSON, and every bad input ending in one line and status 2.
final class CommandLineTests: XCTestCase {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary, built beside the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("rainforest")
    }

    static let packageRoot = TestResources.packageRoot

    /// What every screenshot, bench and soak run from the tests passes: waits (for the cards, for
    /// a frame) as long as the tests' hang guard, so that a slow machine (or a sanitized build) is
    /// never taken for a failure. The commands' own defaults suit a person at a terminal.
    static let patience = ["--timeout", "\(Int(HangGuard.seconds))"]

    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Outcome {
        try Self.runBinary(arguments, environment: extra)
    }

    /// Runs the binary built beside the tests, headless, and collects what it printed.
    static func runBinary(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil  // headless commands must not need a display server
        environment["WAYLAND_DISPLAY"] = nil
        environment.merge(extra) { _, new in new }
        process.environment = environment
        // Standard error goes to a file, not a second pipe: while we read standard output to its
        // end, a child that fills a pipe of standard error (64 KiB: a sanitizer's report, say)
        // would block forever on it.
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errFile.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: errFile.path])
        }
        defer { try? FileManager.default.removeItem(at: errFile) }
        let err = try FileHandle(forWritingTo: errFile)
        defer { try? err.close() }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // Through a handle: Data(contentsOf:) leaks a 4 KiB buffer for an empty file (swift 6.3's
        // FoundationEssentials; LeakSanitizer, make test-asan).
        let reader = try FileHandle(forReadingFrom: errFile)
        defer { try? reader.close() }
        let errData = try reader.readToEnd() ?? Data()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    private var scratch: URL!

    override func setUpWithError() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the package first")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func screenshot(_ extra: [String]) throws -> Bitmap {
        let file = scratch.appendingPathComponent("shot-\(UUID().uuidString).png").path
        let outcome = try run(["screenshot", "--output", file] + extra + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try GraphicsLibrary.initialize()
        return try ImageDecoder.decode(contentsOf: file)
    }

    private func grey(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> Int {
        let p = bitmap.pixel(x: x, y: y)
        XCTAssertTrue(p.r == p.g && p.g == p.b, "pixel (\(x), \(y)) is not grey: \(p)")
        return Int(p.r)
    }

    /// Whether a pixel is the window's background (grey 0.11), not a card.
    private func isBackground(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> Bool {
        let p = bitmap.pixel(x: x, y: y)
        return p.r == 28 && p.g == 28 && p.b == 28
    }

    // MARK: Screenshots

    func testTheScreenshotShowsTwoColumnsOfCardsWhereTheLayoutPutsThem() throws {
        let shot = try screenshot(["--size", "1280x800"])
        XCTAssertEqual(shot.width, 1280)
        XCTAssertEqual(shot.height, 800)
        // Columns at x 315 and 645, 320 wide; the first card (16:9 photo) spans y 10 to 490.
        XCTAssertFalse(isBackground(shot, 400, 100), "a card")
        XCTAssertFalse(isBackground(shot, 900, 100), "the second column")
        XCTAssertEqual(grey(shot, 640, 100), 28, "the gap between the columns")
        XCTAssertEqual(grey(shot, 100, 400), 28, "left of the columns (no FPS overlay unless asked)")
        XCTAssertEqual(grey(shot, 1100, 400), 28, "right of the columns")
        XCTAssertEqual(grey(shot, 400, 495), 28, "the gap between the first and the next card")
        XCTAssertFalse(isBackground(shot, 400, 505), "the next card")
        // The description is drawn in white in the text area below the photo (y 190 to 490).
        let white = (315..<635).flatMap { x in (200..<300).map { (x, $0) } }.filter { x, y in
            let p = shot.pixel(x: x, y: y)
            return p.r > 230 && p.g > 230 && p.b > 230
        }
        XCTAssertGreaterThan(white.count, 200, "the description's text")
    }

    func testScrollingMovesTheCardsUp() throws {
        let shot = try screenshot(["--size", "1280x800", "--scroll", "485"])
        // Content y 490 to 500 is the gap after the first card: window rows 5 to 14.
        XCTAssertEqual(grey(shot, 400, 10), 28)
        XCTAssertFalse(isBackground(shot, 400, 20))
    }

    func testNarrowWindowsHaveOneCentredColumn() throws {
        let shot = try screenshot(["--size", "649x500"])
        XCTAssertEqual(grey(shot, 160, 100), 28)
        XCTAssertFalse(isBackground(shot, 170, 100), "the column starts at 164")
        XCTAssertFalse(isBackground(shot, 480, 100))
        XCTAssertEqual(grey(shot, 490, 100), 28, "and ends at 484")
    }

    func testTheFPSOverlayDrawsWhenAsked() throws {
        let shot = try screenshot(["--size", "1280x800", "--overlays", "fps"])
        let p = shot.pixel(x: 100, y: 60)  // inside the panel: darker than the background
        XCTAssertLessThan(Int(p.r), 28)
    }

    func testAMissingImageBecomesANoteOnItsCardNotAFailure() throws {
        let resources = try makeResources(
            cards: """
                {"cards": [{"name": "Ghost", "image": "images/missing.webp", "description": "Not there.", "credit": "nobody"}]}
                """)
        let file = scratch.appendingPathComponent("ghost.png").path
        let outcome = try run(
            ["screenshot", "--output", file, "--resources", resources.path, "--size", "700x600"] + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let shot = try ImageDecoder.decode(contentsOf: file)
        // One 4:3 card (the fallback aspect), 540 pt tall; 700 pt is wide enough for two
        // columns, so it sits in the left one at x 25. Its photo area (y 10 to 250) shows the
        // image node's error state: grey 0.85 with the reason written in dark grey.
        RainforestTestSupport.assertFirstCardShowsAnError(shot)
    }

    // MARK: Bench

    func testBenchWritesTheFiguresAsJSON() throws {
        let json = scratch.appendingPathComponent("bench.json").path
        let outcome = try run(
            [
                "bench", "--cards", "200", "--duration", "1", "--speed", "2000,4000", "--json", json,
                "--size", "800x600",
            ] + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("late") && outcome.stdout.contains("overruns"), outcome.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let runs = try XCTUnwrap(object?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 2)
        XCTAssertEqual(runs.map { $0["speed"] as? Double }, [2000, 4000])
        for run in runs {
            XCTAssertEqual(run["mode"] as? String, "async")
            // However slow the machine, a second of scrolling draws frames, and the rate is their
            // count over the time they took (no count or rate is expected of the machine).
            let frames = run["frames"] as? Int ?? 0, seconds = run["duration_s"] as? Double ?? 0
            XCTAssertGreaterThan(frames, 0)
            XCTAssertGreaterThanOrEqual(seconds, 1)
            // Late presents, their longest run (no more than the late ones), and the main
            // thread's own overruns (no more than the frames).
            let late = try XCTUnwrap(run["dropped_frames"] as? Int)
            let lateRun = try XCTUnwrap(run["late_run_max"] as? Int)
            XCTAssert(lateRun <= late && late <= frames, "late \(late), longest run \(lateRun), frames \(frames)")
            XCTAssert((0...frames).contains(try XCTUnwrap(run["main_overruns"] as? Int)))
            let interval = try XCTUnwrap(run["interval_ms"] as? [String: Double])
            XCTAssert(interval["p50"]! <= interval["p99"]! && interval["p99"]! <= interval["max"]!, "\(interval)")
            XCTAssertEqual(run["fps"] as? Double ?? 0, Double(frames) / seconds, accuracy: 0.01)
            XCTAssertGreaterThan(run["rss_mb_peak"] as? Double ?? 0, 1)
            // The collection's figures: the first screen came, cards were drawn into textures.
            let exposure = try XCTUnwrap(run["placeholder_exposure"] as? Double)
            XCTAssert((0...1).contains(exposure), "\(exposure)")
            let rasters = try XCTUnwrap(run["rasters"] as? [String: Int])
            XCTAssertGreaterThan(rasters["completed"] ?? 0, 0)
            XCTAssertNotNil(rasters["cancelled"])
            XCTAssertGreaterThan(run["texture_mb_peak"] as? Double ?? 0, 0)
            XCTAssertGreaterThan(run["first_screen_ms"] as? Double ?? 0, 0)
            let main = try XCTUnwrap(run["main_ms"] as? [String: Double])
            XCTAssertEqual(Set(main.keys), ["p50", "p90", "p99", "max"])
            XCTAssertLessThanOrEqual(main["p50"]!, main["p99"]!)
        }
    }

    func testBenchComparesTheMainThreadModeWithAsync() throws {
        let json = scratch.appendingPathComponent("both.json").path
        let outcome = try run(
            [
                "bench", "--mode", "both", "--duration", "0.5", "--cards", "40", "--speed", "2000",
                "--size", "800x600", "--json", json,
            ] + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("main-thread mode over async mode"), outcome.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let runs = try XCTUnwrap(object?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.map { $0["mode"] as? String }, ["async", "sync"])
        // The main-thread mode draws on the main thread: no asynchronous display lands.
        XCTAssertEqual((runs[1]["rasters"] as? [String: Int])?["completed"], 0)
        XCTAssertGreaterThan((runs[0]["rasters"] as? [String: Int])?["completed"] ?? 0, 0)
        let comparison = try XCTUnwrap(object?["comparison"] as? [[String: Any]])
        XCTAssertEqual(comparison.count, 1)
        let p99 = try XCTUnwrap(comparison[0]["main_ms_p99"] as? [String: Any])
        XCTAssertNotNil(p99["async"] as? Double)
        XCTAssertNotNil(p99["main_thread"] as? Double)
    }

    func testASettlingScrollStopsUntilTheCardsLandAndCountsThem() throws {
        // With --settle-every the run is 1 s x 3,000 pt/s = 3,000 pt long, however slow its
        // frames: stops at 1,500 and 3,000 (a step never goes past a stop). The 800 pt window
        // shows at least two cards of each column (at most 548 pt tall), and screens 1,500 pt
        // apart share none, so the run lands at least 4 x (2 + 1) displays.
        let json = scratch.appendingPathComponent("settle.json").path
        let outcome = try run(
            [
                "bench", "--cards", "200", "--duration", "1", "--speed", "3000", "--settle-every", "1500",
                "--min-displays", "12", "--size", "1280x800", "--json", json,
            ] + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let line = try XCTUnwrap(outcome.stdout.split(separator: "\n").first { $0.contains("stopped") }, outcome.stdout)
        let stops = Int(line.split(separator: " ").drop { $0 != "stopped" }.dropFirst().first ?? "") ?? 0
        XCTAssertEqual(stops, 2, String(line))
        XCTAssertTrue(line.contains("travelled 3000 pt"), String(line))
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let run = try XCTUnwrap((object?["runs"] as? [[String: Any]])?.first)
        let completed = try XCTUnwrap((run["rasters"] as? [String: Int])?["completed"])
        XCTAssertGreaterThanOrEqual(completed, 12)
        XCTAssertTrue(line.contains("\(completed) displays completed"), String(line))
    }

    func testTheCompositorsFloorIsMeasuredBesideTheScrollAndAgainstBareSDL() throws {
        let json = scratch.appendingPathComponent("floor.json").path
        let outcome = try run(
            [
                "bench", "--scenario", "scrolling,compositor", "--cards", "40", "--duration", "0.5", "--speed", "2000",
                "--size", "800x600", "--json", json,
            ] + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("over the compositor's floor"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("bare SDL"), outcome.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let floor = try XCTUnwrap((object?["floor"] as? [[String: Any]])?.first)
        XCTAssertEqual(floor["speed"] as? Double, 2000)
        let frames = floor["frames"] as? Int ?? 0, seconds = floor["duration_s"] as? Double ?? 0
        XCTAssertGreaterThan(frames, 0)
        XCTAssertEqual(floor["fps"] as? Double ?? 0, Double(frames) / seconds, accuracy: 0.01)
        XCTAssertLessThanOrEqual(floor["dropped_frames"] as? Int ?? -1, frames)
        // Both unpaced costs were measured, the bare program's built beside the bench (make
        // test builds every product) on the renderer the bench uses.
        XCTAssertGreaterThan(floor["cost_ms"] as? Double ?? 0, 0)
        XCTAssertGreaterThan(floor["bare_ms"] as? Double ?? 0, 0)
        XCTAssertEqual(floor["bare_renderer"] as? String, (object?["environment"] as? [String: Any])?["renderer"] as? String)
        let runs = try XCTUnwrap(object?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 1)
        XCTAssertNotNil(runs[0]["present_ms"] as? [String: Double])

        // The floor alone: no scrolling runs.
        let alone = try run(
            ["bench", "--scenario", "compositor", "--cards", "40", "--duration", "0.3", "--speed", "2000", "--size", "800x600"]
                + Self.patience)
        XCTAssertEqual(alone.status, 0, alone.stderr)
        XCTAssertTrue(alone.stdout.contains("the compositor's floor of scrolling"), alone.stdout)
        XCTAssertFalse(alone.stdout.contains("async"), alone.stdout)
    }

    func testTheBareProgramReadsItsSceneAndNamesABadLine() throws {
        let bare = Self.binary.deletingLastPathComponent().appendingPathComponent("bare-sdl-floor")
        let scene = scratch.appendingPathComponent("scene.txt")
        let lines = [
            "window 200 150", "viewport 0 0 200 150", "end 300", "speed 1000", "refresh 60", "frames 20",
            "card 10 10 80 120 1", "card 100 10 80 200 0", "card 10 140 80 120 1", "",
        ]
        try lines.joined(separator: "\n").write(to: scene, atomically: true, encoding: .utf8)
        func runBare() throws -> CommandLineTests.Outcome {
            let process = Process()
            process.executableURL = bare
            process.arguments = [scene.path]
            process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "DISPLAY" }
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return .init(
                status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                stderr: String(decoding: e, as: UTF8.self))
        }
        let good = try runBare()
        XCTAssertEqual(good.status, 0, good.stderr)
        let fields = good.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(fields.count, 6, good.stdout)
        XCTAssertEqual(fields.first, "ms_per_frame")
        XCTAssertGreaterThan(Double(fields[1]) ?? 0, 0)
        XCTAssertEqual(Array(fields[4...]), ["frames", "20"])

        try "window 200 150\ncard 10 10 eighty 120 1\n".write(to: scene, atomically: true, encoding: .utf8)
        let bad = try runBare()
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("scene.txt:2: cannot read \"card 10 10 eighty 120 1\""), bad.stderr)
    }

    func testTheStartupScenarioTimesTheFirstScreenColdAndWarmInNewProcesses() throws {
        let json = scratch.appendingPathComponent("startup.json").path
        let outcome = try run(
            ["bench", "--scenario", "startup", "--cards", "40", "--size", "800x600", "--json", json] + Self.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("first screen (cold)"), outcome.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let runs = try XCTUnwrap(object?["startup"] as? [[String: Double]])
        XCTAssertEqual(runs.count, 3)
        for run in runs {
            // The phases in the order they happen, each from the child's start.
            let phases = ["launch_ms", "content_ms", "window_ms", "first_frame_ms", "first_screen_ms"].map { run[$0] ?? -1 }
            XCTAssertGreaterThan(phases[0], 0, "\(run)")
            XCTAssertEqual(phases, phases.sorted(), "\(run)")
            XCTAssertGreaterThan(run["warm_first_screen_ms"] ?? 0, 0, "\(run)")
        }
        XCTAssertNil(object?["runs"], "no scrolling runs")
    }

    func testTooFewDisplaysFailTheBench() throws {
        let outcome = try run(
            [
                "bench", "--cards", "40", "--duration", "0.2", "--speed", "2000", "--min-displays", "100000",
                "--size", "800x600",
            ] + Self.patience)
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("fewer than --min-displays 100000"), outcome.stderr)
    }

    // MARK: Bad input: one line, the option or file named, status 2

    private func assertFails(
        _ arguments: [String], mentioning needles: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let outcome = try run(arguments)
        XCTAssertEqual(outcome.status, 2, "status for \(arguments): \(outcome.stderr)", file: file, line: line)
        let lines = outcome.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "one line: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("rainforest: ") ?? false, outcome.stderr, file: file, line: line)
        for needle in needles {
            XCTAssertTrue(outcome.stderr.contains(needle), "'\(needle)' in: \(outcome.stderr)", file: file, line: line)
        }
        XCTAssertFalse(outcome.stderr.contains("Fatal error"), file: file, line: line)
    }

    func testUnknownOptions() throws {
        try assertFails(["--bogus"], mentioning: ["--bogus"])
        try assertFails(["screenshot", "--output", "x.png", "--frobnicate", "3"], mentioning: ["--frobnicate"])
    }

    func testBadSizes() throws {
        try assertFails(["screenshot", "--output", "x.png", "--size", "big"], mentioning: ["--size", "WIDTHxHEIGHT"])
        try assertFails(["screenshot", "--output", "x.png", "--size", "10x10"], mentioning: ["--size"])
        try assertFails(["screenshot", "--output", "x.png", "--size", "300x600"], mentioning: ["--size", "340"])
        try assertFails(["bench", "--size", "1280x"], mentioning: ["--size"])
    }

    func testBadValues() throws {
        try assertFails(["bench", "--speed", "-5"], mentioning: ["--speed"])
        try assertFails(["bench", "--mode", "fast"], mentioning: ["--mode"])
        try assertFails(["screenshot", "--output", "x.png", "--overlays", "fps,sparkles"], mentioning: ["sparkles"])
        try assertFails(["screenshot", "--output", "x.png", "--cards", "0"], mentioning: ["--cards"])
        try assertFails(["screenshot", "--output", "x.png", "--timeout", "0"], mentioning: ["--timeout"])
        try assertFails(["bench", "--timeout", "-1"], mentioning: ["--timeout"])
        try assertFails(["bench", "--settle-every", "0"], mentioning: ["--settle-every"])
        try assertFails(["bench", "--min-displays", "-3"], mentioning: ["--min-displays"])
        try assertFails(["soak", "--timeout", "0"], mentioning: ["--timeout"])
        try assertFails(["screenshot", "--output", "x.png", "--scale", "0"], mentioning: ["--scale"])
        try assertFails(["bench", "--scale", "9"], mentioning: ["--scale"])
        try assertFails(["bench", "--refresh", "0"], mentioning: ["--refresh"])
        try assertFails(["bench", "--workload", "nope"], mentioning: ["unknown workload 'nope'", "scroll-300", "first-screen"])
        try assertFails(["soak", "--refresh", "-60"], mentioning: ["--refresh"])
    }

    func testAScreenshotAtTwiceThePixelsPerPointHasTwiceThePixelsAndTheSameLayout() throws {
        let at1x = try screenshot(["--size", "400x300", "--cards", "2"])
        let at2x = try screenshot(["--size", "400x300", "--cards", "2", "--scale", "2"])
        XCTAssertEqual([at1x.width, at1x.height], [400, 300])
        XCTAssertEqual([at2x.width, at2x.height], [800, 600])
        // The same layout in points: the card's left edge (background left of it, card right of
        // it) at the same place, in twice the pixels.
        let edge = try XCTUnwrap((0..<at1x.width).first { !isBackground(at1x, $0, 150) }, "no card at 1x")
        XCTAssertTrue(isBackground(at2x, 2 * edge - 2, 300), "background left of the card at 2x")
        XCTAssertFalse(isBackground(at2x, 2 * edge + 2, 300), "the card at 2x")
    }

    func testOutputFoldersAreCheckedBeforeAnyWork() throws {
        try assertFails(["bench", "--json", "/nonexistent/bench.json"], mentioning: ["--json", "/nonexistent"])
        try assertFails(["screenshot", "--output", "/nonexistent/x.png"], mentioning: ["--output", "/nonexistent"])
    }

    func testHeadlessCommandsIgnoreAVideoDriverInTheEnvironment() throws {
        let file = scratch.appendingPathComponent("env.png").path
        let outcome = try run(
            ["screenshot", "--output", file, "--size", "400x300", "--cards", "2"] + Self.patience,
            environment: ["SDL_VIDEODRIVER": "x11"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
    }

    func testAMissingResourcesFolder() throws {
        try assertFails(
            ["screenshot", "--output", "x.png", "--resources", "/nonexistent/place"],
            mentioning: ["/nonexistent/place", "no such folder"])
        try assertFails(["screenshot", "--output", "x.png", "--resources", scratch.path], mentioning: ["no cards.json"])
    }

    func testAMalformedCardsFileNamesTheFileLineAndField() throws {
        let broken = try makeResources(
            cards: """
                {
                  "cards": [
                    {"name": "Jaguar", "image": 12, "description": "x", "credit": "y"}
                  ]
                }
                """)
        try assertFails(
            ["screenshot", "--output", scratch.appendingPathComponent("x.png").path, "--resources", broken.path],
            mentioning: ["cards.json:3:", "cards[0].image"])
        let notJSON = try makeResources(cards: "{\n  \"cards\": [,]\n}\n")
        try assertFails(
            ["bench", "--resources", notJSON.path, "--duration", "0.1"],
            mentioning: ["cards.json:2:", "not valid JSON"])
    }

    /// A resources folder with the given cards.json and the real fonts.
    private func makeResources(cards: String) throws -> URL {
        let folder = scratch.appendingPathComponent("res-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("fonts"),
            withDestinationURL: Self.packageRoot.appendingPathComponent("Resources/fonts"))
        try cards.write(to: folder.appendingPathComponent("cards.json"), atomically: true, encoding: .utf8)
        return folder
    }
}
