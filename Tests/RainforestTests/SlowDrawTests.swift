import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import RainforestKit

/// The slow-draw mode's hook: displays one at a time, each delayed, a waiting one giving up when
/// cancelled.
final class SlowDrawTests: XCTestCase {
    /// Starts a display that takes the turn and holds it until `release` is signalled; `finished`
    /// is signalled when it has returned. Returns once it holds the turn.
    private static func holdTheTurn(
        _ slowDraw: SlowDraw, file: StaticString = #filePath, line: UInt = #line
    ) -> (release: DispatchSemaphore, finished: DispatchSemaphore) {
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            _ = slowDraw.run(isCancelled: { false }) { () -> Int? in
                holding.signal()
                _ = release.wait(timeout: HangGuard.deadline)
                return 1
            }
            finished.signal()
        }.start()
        XCTAssertEqual(
            holding.wait(timeout: HangGuard.deadline), .success, "the first display never drew", file: file, line: line)
        return (release, finished)
    }

    func testASlowDrawWaitingForItsTurnStopsWhenCancelled() {
        let slowDraw = SlowDraw(delay: 0.01)
        let (release, finished) = Self.holdTheTurn(slowDraw)
        // The second waits for the turn; cancelled, it gives up without it. It is cancelled only
        // once it has polled its cancellation and found none (a poll counts after it reads), so a
        // slow start of its thread cannot make it give up before it waits.
        let cancelled = Atomic<Bool>(false)
        let polls = Atomic<Int>(0)
        let second = DispatchSemaphore(value: 0)
        let result = Mutex<Int??>(nil)
        Thread {
            let value = slowDraw.run(isCancelled: {
                let isCancelled = cancelled.load(ordering: .acquiring)
                polls.add(1, ordering: .releasing)
                return isCancelled
            }) { () -> Int? in 2 }
            result.withLock { $0 = .some(value) }
            second.signal()
        }.start()
        XCTAssertTrue(
            HangGuard.wait(until: { polls.load(ordering: .acquiring) > 0 }),
            "the second display never started")
        cancelled.store(true, ordering: .releasing)
        XCTAssertEqual(
            second.wait(timeout: HangGuard.deadline), .success,
            "a cancelled display stops waiting for the turn")
        XCTAssertEqual(result.withLock { $0 }, .some(nil))
        release.signal()
        XCTAssertEqual(finished.wait(timeout: HangGuard.deadline), .success)
    }

    func testSwitchingTheModeOffReleasesTheDisplaysWaitingForTheirTurn() {
        let slowDraw = SlowDraw(delay: 0.01)
        let (release, finished) = Self.holdTheTurn(slowDraw)
        let second = DispatchSemaphore(value: 0)
        // The second waits for the turn until the mode goes off, then draws at once.
        let polls = Atomic<Int>(0)
        let result = Mutex<Int?>(nil)
        Thread {
            let value = slowDraw.run(isCancelled: {
                polls.add(1, ordering: .releasing)
                return false
            }) { () -> Int? in 2 }
            result.withLock { $0 = value }
            second.signal()
        }.start()
        XCTAssertTrue(HangGuard.wait(until: { polls.load(ordering: .acquiring) > 1 }), "the second display never waited")
        slowDraw.isOn = false
        XCTAssertEqual(second.wait(timeout: HangGuard.deadline), .success, "switched off, it stops waiting for the turn")
        XCTAssertEqual(result.withLock { $0 }, 2)
        release.signal()
        XCTAssertEqual(finished.wait(timeout: HangGuard.deadline), .success)
    }
}
