import CanopyGraphics
import CanopyMemory
import CanopySDL
import Foundation
import XCTest
@testable import RainforestKit

/// The soak's verdict and a short soak through the binary.
final class SoakTests: XCTestCase {
    private func minute(_ n: Int, rss: Double, textures: Double) -> SoakMinute {
        SoakMinute(
            minute: n, frames: 3600, droppedFrames: 0, actions: 80, rssMB: rss, steadyTextureMB: textures, imageCacheMB: 10)
    }

    func testTheVerdictMeasuresGrowthAfterTheFirstMinuteAndTheTexturesAtRest() {
        // 200 -> peak 209 after the first minute: +4.5%, under 5%; textures 4.8-5.0: 4% apart.
        let good = SoakVerdict([
            minute(1, rss: 200, textures: 4.8), minute(2, rss: 209, textures: 5.0), minute(3, rss: 205, textures: 4.9),
        ])
        XCTAssertTrue(good.passed, good.summary)
        XCTAssertEqual(good.rssGrowth!, 0.045, accuracy: 1e-9)
        XCTAssertEqual(good.textureSpread, 0.04, accuracy: 1e-9)
        // +5% exactly fails; so does a texture value 20% off.
        let grew = SoakVerdict([minute(1, rss: 200, textures: 5), minute(2, rss: 210, textures: 5)])
        XCTAssertFalse(grew.passed)
        XCTAssertTrue(grew.failures[0].contains("5.0%"), grew.failures[0])
        let leaked = SoakVerdict([minute(1, rss: 200, textures: 4), minute(2, rss: 200, textures: 5)])
        XCTAssertFalse(leaked.passed)
        // One minute: no growth to measure.
        XCTAssertNil(SoakVerdict([minute(1, rss: 200, textures: 5)]).rssGrowth)
    }

    func testTheFirstMinutesTourMeetsEveryActionAndEveryMode() {
        let tour = SoakDriver.tour
        XCTAssertEqual(Set(tour.flatMap(\.actions)), Set(SoakDriver.Action.allCases))
        let modes = tour.map(\.mode)
        for mainThread in [false, true] {
            for popcorn in [false, true] {
                XCTAssertTrue(
                    modes.contains { $0.mainThread == mainThread && $0.popcorn == popcorn },
                    "main-thread \(mainThread), popcorn \(popcorn)")
            }
        }
        XCTAssertTrue(modes.contains { $0.slowDraw })
        XCTAssertTrue(modes.contains { !$0.fadesIn })
        XCTAssertEqual(modes.last, ViewerMode(), "the tour ends in the default mode")
    }

    func testTheSameSeedMakesTheSameActions() {
        var a = SeededRandom(seed: 99), b = SeededRandom(seed: 99), c = SeededRandom(seed: 100)
        let first = (0..<20).map { _ in a.next() }
        XCTAssertEqual(first, (0..<20).map { _ in b.next() })
        XCTAssertNotEqual(first, (0..<20).map { _ in c.next() })
    }

    func testAShortSoakRunsReportsEachMinuteAndWritesJSON() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("soak.json").path
        // Two short "minutes" of 6 s each would take 12 s; 0.1 min is one minute of 6 s.
        let outcome = try CommandLineTests.runBinary(
            [
                "soak", "--minutes", "0.1", "--seed", "5", "--cards", "200",
                "--size", "800x600", "--json", json,
            ] + CommandLineTests.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("seed 5"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("minute 1:"), outcome.stdout)
        // In the soak, llvmpipe rasterizes on the drawing thread unless the environment says
        // otherwise (its threads' idle scenes keep released textures): the first line gives the
        // threads it started.
        let environment = ProcessInfo.processInfo.environment
        let header = outcome.stdout.split(separator: "\n").first.map(String.init) ?? ""
        if header.contains("llvmpipe"), environment["LP_NUM_THREADS"] == nil {
            XCTAssertTrue(header.contains("rasterizer threads 0, LP_NUM_THREADS=0)"), header)
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let minutes = try XCTUnwrap(object?["minutes"] as? [[String: Any]])
        XCTAssertEqual(minutes.count, 1)
        let renderer = try XCTUnwrap(object?["renderer"] as? String)
        XCTAssertTrue(header.hasSuffix("renderer \(renderer)"), "\(header) / \(renderer)")
        XCTAssertGreaterThan(minutes[0]["frames"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(minutes[0]["steady_texture_mb"] as? Double ?? 0, 0)
        // What the resident memory is made of: its parts are there and add up to no more than it.
        let rss = minutes[0]["rss_mb"] as? Double ?? 0
        let anonymous = minutes[0]["rss_anonymous_mb"] as? Double ?? 0, files = minutes[0]["rss_file_mb"] as? Double ?? 0
        XCTAssertGreaterThan(anonymous, 0)
        XCTAssertGreaterThan(files, 0)
        // The heap figure is glibc's; under a sanitizer, whose allocator replaces it, it is absent.
        if let heap = minutes[0]["heap_in_use_mb"] as? Double {
            XCTAssertGreaterThan(heap, 0)
            // Not against the anonymous pages: with one arena the allocator keeps only about 4 MB
            // beyond the heap in use, and blocks handed out but never touched are not resident.
            XCTAssertLessThanOrEqual(heap, rss)
            // glibc's allocator, limited to one arena at start (MallocArenas), which the trim reaches
            // whole, unless the environment sets the count.
            if MallocArenas.limitWanted(environment: environment) {
                XCTAssertEqual(minutes[0]["malloc_arenas"] as? Int, 1)
            }
        } else {
            // The binary is built as these tests are: a sanitizer's runtime is in both or neither.
            XCTAssertTrue(
                dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil,
                "the heap figure is missing without a sanitizer")
        }
        XCTAssertLessThanOrEqual(anonymous + files, rss + 1)
        // The trims that ended in the minute, and the longest: a time when there were some.
        let trims = try XCTUnwrap(minutes[0]["trims"] as? Int), longest = try XCTUnwrap(minutes[0]["longest_trim_ms"] as? Double)
        XCTAssertEqual(trims == 0, longest == 0, "\(trims) trims, longest \(longest) ms")
        XCTAssertEqual(object?["passed"] as? Bool, true)
    }

    func testTheEnvironmentsChoiceOfLlvmpipeThreadsIsKept() throws {
        let outcome = try CommandLineTests.runBinary(
            [
                "soak", "--minutes", "0.05", "--seed", "5", "--cards", "50",
                "--size", "400x300",
            ] + CommandLineTests.patience,
            environment: ["LP_NUM_THREADS": "1"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let header = outcome.stdout.split(separator: "\n").first.map(String.init) ?? ""
        guard header.contains("llvmpipe") else { throw XCTSkip("the renderer is not Mesa's llvmpipe: \(header)") }
        // The threads llvmpipe started, counted by name, as the environment asked.
        XCTAssertTrue(header.contains("rasterizer threads 1, LP_NUM_THREADS=1)"), header)
    }
}
