import Canopy
import XCTest

final class MemoryTrimPolicyTests: XCTestCase {
    func testNoTrimWithoutWork() {
        var policy = MemoryTrimPolicy<[Int]>(quietTime: 1)
        for turn in 0..<200 {
            XCTAssertEqual(policy.decide(now: Double(turn) / 60, activity: [3, 1], loopWillSleep: turn % 7 == 0), .wait)
        }
        XCTAssertFalse(policy.isTrimDue)
    }

    func testOneTrimWhenTheWorkHasBeenQuietLongEnough() {
        var policy = MemoryTrimPolicy<[Int]>(quietTime: 1)
        XCTAssertEqual(policy.decide(now: 0, activity: [0, 0], loopWillSleep: false), .wait)
        // A burst: the counters move every turn for half a second.
        for turn in 1...30 {
            XCTAssertEqual(policy.decide(now: Double(turn) / 60, activity: [turn, turn * 2], loopWillSleep: false), .wait)
        }
        // Quiet, frames still coming: no trim before a second after the last work, one at it.
        XCTAssertTrue(policy.isTrimDue)
        XCTAssertEqual(policy.decide(now: 0.5 + 0.99, activity: [30, 60], loopWillSleep: false), .wait)
        XCTAssertEqual(policy.decide(now: 0.5 + 1.0, activity: [30, 60], loopWillSleep: false), .trim)
        XCTAssertFalse(policy.isTrimDue)
        // Not again for the same burst.
        for turn in 1...120 {
            XCTAssertEqual(policy.decide(now: 1.5 + Double(turn) / 60, activity: [30, 60], loopWillSleep: turn == 60), .wait)
        }
    }

    func testTheLoopGoingToSleepAsksToLookAgainWhenTheWorkWillBeQuiet() {
        var policy = MemoryTrimPolicy<[Int]>(quietTime: 1)
        XCTAssertEqual(policy.decide(now: 0, activity: [0], loopWillSleep: false), .wait)
        XCTAssertEqual(policy.decide(now: 0.1, activity: [1], loopWillSleep: false), .wait)
        // Not at once: displays started by the last frame may still land.
        XCTAssertEqual(policy.decide(now: 0.2, activity: [1], loopWillSleep: true), .checkAgain(at: 1.1))
        // One landed at 0.6 and woke the loop: later again.
        XCTAssertEqual(policy.decide(now: 0.6, activity: [2], loopWillSleep: true), .checkAgain(at: 1.6))
        XCTAssertEqual(policy.decide(now: 1.6, activity: [2], loopWillSleep: true), .trim)
        XCTAssertEqual(policy.decide(now: 5, activity: [2], loopWillSleep: true), .wait)
    }

    func testWorkThatGoesOnPostponesTheTrim() {
        var policy = MemoryTrimPolicy<[Int]>(quietTime: 1)
        XCTAssertEqual(policy.decide(now: 0, activity: [0], loopWillSleep: false), .wait)
        // Work every 0.9 s for 10 s: never quiet for a second.
        var value = 0
        for tenth in 1...100 {
            if tenth % 9 == 0 { value += 1 }
            XCTAssertEqual(policy.decide(now: Double(tenth) / 10, activity: [value], loopWillSleep: false), .wait, "at \(tenth)")
        }
        XCTAssertEqual(policy.decide(now: 9.9 + 1, activity: [value], loopWillSleep: false), .trim)
    }

    func testASecondBurstTrimsAgain() {
        var policy = MemoryTrimPolicy<[Int]>(quietTime: 1)
        _ = policy.decide(now: 0, activity: [0], loopWillSleep: false)
        _ = policy.decide(now: 0.1, activity: [1], loopWillSleep: false)
        XCTAssertEqual(policy.decide(now: 1.1, activity: [1], loopWillSleep: false), .trim)
        XCTAssertEqual(policy.decide(now: 3, activity: [2], loopWillSleep: false), .wait)
        XCTAssertEqual(policy.decide(now: 4, activity: [2], loopWillSleep: true), .trim)
    }
}
