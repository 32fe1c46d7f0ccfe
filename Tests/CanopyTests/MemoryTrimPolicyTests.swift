import Canopy
import XCTest

final class MemoryTrimPolicyTests: XCTestCase {
    func testNoTrimWithoutWork() {
        var policy = MemoryTrimPolicy(quietTime: 1)
        for turn in 0..<200 {
            XCTAssertFalse(policy.shouldTrim(now: Double(turn) / 60, activity: [3, 1], loopWillSleep: turn % 7 == 0))
        }
    }

    func testOneTrimWhenTheWorkHasBeenQuietLongEnough() {
        var policy = MemoryTrimPolicy(quietTime: 1)
        XCTAssertFalse(policy.shouldTrim(now: 0, activity: [0, 0], loopWillSleep: false))
        // A burst: the counters move every turn for half a second.
        for turn in 1...30 {
            XCTAssertFalse(policy.shouldTrim(now: Double(turn) / 60, activity: [turn, turn * 2], loopWillSleep: false))
        }
        // Quiet, frames still coming: no trim before a second after the last work, one at it.
        XCTAssertTrue(policy.isTrimDue)
        XCTAssertFalse(policy.shouldTrim(now: 0.5 + 0.99, activity: [30, 60], loopWillSleep: false))
        XCTAssertTrue(policy.shouldTrim(now: 0.5 + 1.0, activity: [30, 60], loopWillSleep: false))
        XCTAssertFalse(policy.isTrimDue)
        // Not again for the same burst.
        for turn in 1...120 {
            XCTAssertFalse(policy.shouldTrim(now: 1.5 + Double(turn) / 60, activity: [30, 60], loopWillSleep: turn == 60))
        }
    }

    func testTheLoopGoingToSleepTrimsAtOnce() {
        var policy = MemoryTrimPolicy(quietTime: 1)
        XCTAssertFalse(policy.shouldTrim(now: 0, activity: [0], loopWillSleep: false))
        XCTAssertFalse(policy.shouldTrim(now: 0.1, activity: [1], loopWillSleep: false))
        XCTAssertTrue(policy.shouldTrim(now: 0.2, activity: [1], loopWillSleep: true))
        XCTAssertFalse(policy.shouldTrim(now: 5, activity: [1], loopWillSleep: true))
    }

    func testWorkThatGoesOnPostponesTheTrim() {
        var policy = MemoryTrimPolicy(quietTime: 1)
        XCTAssertFalse(policy.shouldTrim(now: 0, activity: [0], loopWillSleep: false))
        // Work every 0.9 s for 10 s: never quiet for a second.
        var value = 0
        for tenth in 1...100 {
            if tenth % 9 == 0 { value += 1 }
            XCTAssertFalse(policy.shouldTrim(now: Double(tenth) / 10, activity: [value], loopWillSleep: false), "at \(tenth)")
        }
        XCTAssertTrue(policy.shouldTrim(now: 10.9 + 1, activity: [value], loopWillSleep: false))
    }

    func testASecondBurstTrimsAgain() {
        var policy = MemoryTrimPolicy(quietTime: 1)
        _ = policy.shouldTrim(now: 0, activity: [0], loopWillSleep: false)
        _ = policy.shouldTrim(now: 0.1, activity: [1], loopWillSleep: false)
        XCTAssertTrue(policy.shouldTrim(now: 1.1, activity: [1], loopWillSleep: false))
        XCTAssertFalse(policy.shouldTrim(now: 3, activity: [2], loopWillSleep: false))
        XCTAssertTrue(policy.shouldTrim(now: 3.2, activity: [2], loopWillSleep: true))
    }
}
