import Canopy
import CanopyGraphics
import CanopySDL
import Foundation
import XCTest
@testable import Rainforest

/// The app's ends: without a display the windowed command fails in one line that says what to
/// change, with status 1 (not a crash).
final class ShutdownAndFailureTests: XCTestCase {
    // MARK: No display

    /// Runs `rainforest run` without a display server (`CommandLineTests.runBinary` clears
    /// DISPLAY and WAYLAND_DISPLAY) and checks the one line it ends with.
    private func assertCannotOpenAWindow(environment: [String: String], mentioning needles: [String],
                                         file: StaticString = #filePath, line: UInt = #line) throws {
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
        try assertCannotOpenAWindow(environment: ["DISPLAY": ":4077"],
                                    mentioning: ["no display server answers at DISPLAY=:4077"])
    }

    func testAVideoDriverThatDoesNotExistIsNamed() throws {
        try assertCannotOpenAWindow(environment: ["SDL_VIDEODRIVER": "nonexistent"],
                                    mentioning: ["SDL_VIDEODRIVER=nonexistent", "nonexistent not available"])
    }

    func testTheMessagesForEachCase() {
        let failure = Application.startFailure
        XCTAssertEqual(failure("x11 not available", false, [:]),
                       "cannot open a window: no display server (DISPLAY and WAYLAND_DISPLAY are not set; x11 not available); set one, or use the screenshot and bench commands, which need no display")
        XCTAssertEqual(failure("x11 not available", false, ["DISPLAY": ":9", "WAYLAND_DISPLAY": "wayland-1"]),
                       "cannot open a window: no display server answers at WAYLAND_DISPLAY=wayland-1 or DISPLAY=:9 (x11 not available); start one or point there, or use the screenshot and bench commands, which need no display")
        XCTAssertEqual(failure("bogus not available", false, ["SDL_VIDEODRIVER": "bogus", "DISPLAY": ":0"]),
                       "cannot open a window with SDL_VIDEODRIVER=bogus (bogus not available); unset it or name a driver that works here, or use the screenshot and bench commands, which need no display")
        XCTAssertEqual(failure("no EGL", true, ["DISPLAY": ":0"]), "cannot start SDL's headless video driver: no EGL")
    }
}
