import Foundation
import XCTest
import Canopy

/// A frame loop for tests: one with the shared display scheduler installed on it, and turning a
/// loop until something has happened.
public enum TestLoop {
    /// A frame loop with `DisplayScheduler.shared` installed on it at `scale` (tests uninstall it in
    /// their tearDown).
    @MainActor
    package static func make(scale: CGFloat = 1) -> (FrameLoop, TransactionGroup) {
        let loop = FrameLoop()
        let group = TransactionGroup(runLoop: loop)
        DisplayScheduler.shared.install(on: loop, group: group, scale: scale)
        return (loop, group)
    }

    /// Turns `loop` until `done()` (`HangGuard.seconds` is a hang guard, not a timing check); fails
    /// where it was called, with `message`, if `done()` never came true.
    @MainActor
    public static func turn(
        _ loop: FrameLoop, until done: () -> Bool, _ message: String = "the display never landed",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertTrue(HangGuard.wait(until: done, step: { loop.runTurn() }), message, file: file, line: line)
    }
}
