import Canopy
import CanopyGraphics
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

/// The app's ends: without a display the windowed command fails in one line that says what to
/// change, with status 1 (not a crash); and quitting while cards are being decoded and drawn ends
/// the process cleanly.
final class ShutdownAndFailureTests: XCTestCase {
    // MARK: No display

    /// Runs `rainforest run` without a display server (`CommandLineTests.runBinary` clears
    /// DISPLAY and WAYLAND_DISPLAY) and checks the one line it ends with.
    private func assertCannotOpenAWindow(
        environment: [String: String], mentioning needles: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let outcome = try CommandLineTests.runBinary(["run", "--cards", "2"], environment: environment)
        XCTAssertEqual(outcome.status, 1, outcome.stderr, file: file, line: line)
        let lines = outcome.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, outcome.stderr, file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("rainforest: cannot open a window") ?? false, outcome.stderr, file: file, line: line)
        for needle in needles + ["screenshot and bench commands"] {
            XCTAssertTrue(outcome.stderr.contains(needle), "'\(needle)' in: \(outcome.stderr)", file: file, line: line)
        }
        XCTAssertEqual(outcome.stdout, "", file: file, line: line)
    }

    func testWithoutADisplayServerTheViewerSaysSoAndExitsWithStatus1() throws {
        try assertCannotOpenAWindow(environment: [:], mentioning: ["DISPLAY and WAYLAND_DISPLAY are not set"])
    }

    func testADisplayWithNoServerIsNamed() throws {
        try assertCannotOpenAWindow(
            environment: ["DISPLAY": ":4077"],
            mentioning: ["no display server answers at DISPLAY=:4077"])
    }

    func testAVideoDriverThatDoesNotExistIsNamed() throws {
        try assertCannotOpenAWindow(
            environment: ["SDL_VIDEODRIVER": "nonexistent"],
            mentioning: ["SDL_VIDEODRIVER=nonexistent", "nonexistent not available"])
    }

    func testTheMessagesForEachCase() {
        let failure = Application.startFailure
        XCTAssertEqual(
            failure("x11 not available", false, [:]),
            "cannot open a window: no display server (DISPLAY and WAYLAND_DISPLAY are not set; x11 not available); set one, or use the screenshot and bench commands, which need no display"
        )
        XCTAssertEqual(
            failure("x11 not available", false, ["DISPLAY": ":9", "WAYLAND_DISPLAY": "wayland-1"]),
            "cannot open a window: no display server answers at WAYLAND_DISPLAY=wayland-1 or DISPLAY=:9 (x11 not available); start one or point there, or use the screenshot and bench commands, which need no display"
        )
        XCTAssertEqual(
            failure("bogus not available", false, ["SDL_VIDEODRIVER": "bogus", "DISPLAY": ":0"]),
            "cannot open a window with SDL_VIDEODRIVER=bogus (bogus not available); unset it or name a driver that works here, or use the screenshot and bench commands, which need no display"
        )
        XCTAssertEqual(failure("no EGL", true, ["DISPLAY": ":0"]), "cannot start SDL's headless video driver: no EGL")
    }

    // MARK: Quitting with work in flight

    func testClosingWhileCardsAreDrawingCancelsTheirQueuedWork() throws {
        // A folder of 60 photos (distinct files, so each card decodes), scrolled so that many
        // displays are queued, then closed.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-quit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = try Data(contentsOf: HostileImages.photos.appendingPathComponent("red-panda.jpg"))
        for number in 1...60 { try jpeg.write(to: folder.appendingPathComponent("photo-\(number).jpg")) }
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse([
                "--resources", HostileImages.packageRoot.appendingPathComponent("Resources").path,
                "--images", folder.path, "--size", "1280x800",
            ])
            let session = try Session(collection: options, headless: true)
            let app = session.app, viewer = session.viewer
            let queue = DisplayQueue.shared
            TestApplication.turn(app) { viewer.itemCount > 0 }
            session.firstScreenDecodes?.wait()  // their decodes are not the displays'
            viewer.scroll(to: 6_000)
            TestApplication.turn(app) { queue.pendingCount > 0 }
            let loadsAtClose = ImageCache.shared.statistics.misses
            let running = queue.runningCount
            app.close()
            XCTAssertNil(DisplayScheduler.shared.runLoop, "the displays of the closed app's loop are ended")
            // The queue empties (a hang guard, not a timing check) and only the displays that
            // were running decode anything (a card's display decodes its photo, once when its
            // background shares the decode, twice for a cropped panorama): the queued ones never run.
            _ = HangGuard.wait(until: { queue.pendingCount == 0 && queue.runningCount == 0 }, pause: 0.01)
            XCTAssertEqual(queue.pendingCount + queue.runningCount, 0)
            XCTAssertLessThanOrEqual(ImageCache.shared.statistics.misses - loadsAtClose, 2 * max(running, queue.workerCount))
        }
    }
}
