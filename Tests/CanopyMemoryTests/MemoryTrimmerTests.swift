import CanopyTestSupport
import XCTest
@testable import CanopyMemory

/// The trimmer: once work has been quiet for its quiet time, one trim, run off the main thread
/// and timed; no second trim for the same work.
final class MemoryTrimmerTests: XCTestCase {
    private static func work(_ displays: Int) -> MemoryTrimmer.Work {
        MemoryTrimmer.Work(
            displays: displays, rastersCompleted: displays, rastersCancelled: 0, textureBytes: 0,
            scratchTextureBytes: 0)
    }

    func testQuietWorkIsTrimmedOnceOnTheTrimQueue() {
        MainActor.assumeIsolated {
            let trimmer = MemoryTrimmer()
            trimmer.quietTime = 1
            _ = trimmer.takeTimes()
            XCTAssertNil(trimmer.turnEnded(now: 0, activity: Self.work(0), loopWillSleep: false))
            XCTAssertNil(trimmer.turnEnded(now: 0.1, activity: Self.work(3), loopWillSleep: false), "work goes on")
            XCTAssertTrue(trimmer.isTrimDue)
            let lookAgain = trimmer.turnEnded(now: 0.2, activity: Self.work(3), loopWillSleep: true)
            XCTAssertEqual(lookAgain ?? -1, 1.1, accuracy: 1e-9, "the loop going to sleep is told when to look again")
            XCTAssertNil(trimmer.turnEnded(now: 1.1, activity: Self.work(3), loopWillSleep: true), "trimmed")
            XCTAssertEqual(trimmer.trims, 1)
            XCTAssertFalse(trimmer.isTrimDue)
            // The trim runs on its own queue; waiting for it (a hang guard, not a time) shows it timed.
            var times = MemoryTrimmer.Times()
            XCTAssertTrue(
                HangGuard.wait(
                    until: { times.count == 1 },
                    step: {
                        trimmer.waitForTrims()
                        let taken = trimmer.takeTimes()
                        times.count += taken.count
                        times.longest = max(times.longest, taken.longest)
                    }))
            XCTAssertEqual(trimmer.takeTimes().count, 0, "taking the times empties them")
            // Not again for the same work.
            XCTAssertNil(trimmer.turnEnded(now: 5, activity: Self.work(3), loopWillSleep: true))
            XCTAssertEqual(trimmer.trims, 1)
        }
    }
}
