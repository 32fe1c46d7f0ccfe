import CanopyTestSupport
import Foundation
import XCTest
@testable import Canopy

/// What the node tests share: the project's fonts, a run loop with the shared display scheduler
/// installed on it, and turning that loop until something has happened.
enum NodeTestSupport {
    /// The Lato faces of Resources/fonts, in a registry of the tests' own.
    static let fonts: FontRegistry = {
        let registry = FontRegistry()
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/fonts").path
        registry.registerFonts(inDirectory: directory)
        return registry
    }()

    /// A run loop with `DisplayScheduler.shared` installed on it at `scale` (tests uninstall it in
    /// their tearDown).
    @MainActor
    static func makeLoop(scale: CGFloat = 1) -> (FrameLoop, TransactionGroup) {
        let loop = FrameLoop()
        let group = TransactionGroup(runLoop: loop)
        DisplayScheduler.shared.install(on: loop, group: group, scale: scale)
        return (loop, group)
    }

    /// Turns `loop` until `done()` (`HangGuard.seconds` is a hang guard, not a timing check); fails
    /// where it was called, with `message`, if `done()` never came true.
    @MainActor
    static func turn(_ loop: FrameLoop, until done: () -> Bool, _ message: String = "the display never landed",
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(HangGuard.wait(until: done, step: { loop.runTurn() }), message, file: file, line: line)
    }
}
