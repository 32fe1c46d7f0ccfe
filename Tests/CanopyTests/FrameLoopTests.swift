import CanopyTestSupport
import Foundation
import XCTest
@testable import Canopy

/// XCTest runs tests on the main thread; each test asserts that and enters the main actor.
final class FrameLoopTests: XCTestCase {
    func testObserversRunInPhaseOrderThenByOrderThenByInsertion() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            var log: [String] = []
            loop.addObserver(.beforePresent) { _ in log.append("present") }
            loop.addObserver(.layout, order: 5) { _ in log.append("layout+5") }
            loop.addObserver(.afterCommit) { _ in log.append("afterCommit") }
            loop.addObserver(.layout) { _ in log.append("layout-a") }
            loop.addObserver(.layout) { _ in log.append("layout-b") }
            loop.addObserver(.beforeCommit) { _ in log.append("beforeCommit") }
            loop.addObserver(.afterInput) { _ in log.append("afterInput") }
            loop.perform { log.append("posted") }
            loop.runTurn(input: { log.append("input") }, present: { log.append("PRESENT") })
            XCTAssertEqual(
                log,
                [
                    "input", "afterInput", "posted", "layout-a", "layout-b", "layout+5",
                    "beforeCommit", "afterCommit", "present", "PRESENT",
                ])
        }
    }

    func testRemovedObserversStopRunning() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            var count = 0
            let token = loop.addObserver(.layout) { _ in count += 1 }
            loop.runTurn()
            loop.removeObserver(token)
            loop.runTurn()
            XCTAssertEqual(count, 1)
        }
    }

    func testPerformFromAnotherThreadWakesTheLoop() {
        MainActor.assumeIsolated {
            let waiter = RecordingWaiter()
            let loop = FrameLoop(waiter: waiter)
            loop.runTurn()  // clears the request for a first frame
            XCTAssertFalse(loop.needsFrame)
            let ran = Box()
            let done = DispatchSemaphore(value: 0)
            Thread {
                loop.perform { ran.value = true }
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            XCTAssertEqual(waiter.log.value, ["wake"], "perform wakes a sleeping loop")
            XCTAssertTrue(loop.needsFrame)
            XCTAssertFalse(ran.value, "posted work runs in the next turn, on the main thread")
            loop.runTurn()
            XCTAssertTrue(ran.value)
        }
    }

    func testTheSemaphoreWaiterReturnsForAWakeFromAnotherThread() {
        // A wake that arrives while the main thread sleeps ends the sleep (the deadline is a hang
        // guard, so a broken waiter fails instead of hanging). The other thread's sleep only makes
        // the wake likely to come while the main thread sleeps; a wake that comes first (a slow
        // main thread) is kept by the semaphore, and the wait still returns only after it.
        let waiter = SemaphoreWaiter()
        let woke = Box()
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            woke.value = true
            waiter.wake()
        }.start()
        waiter.wait(until: MonotonicClock.now() + HangGuard.seconds)
        XCTAssertTrue(woke.value)
    }

    func testWakeupsThatArriveWhileBusyAreDiscardedBeforeSleeping() {
        MainActor.assumeIsolated {
            let waiter = RecordingWaiter()
            let loop = FrameLoop(waiter: waiter)
            // Unowned: the loop keeps its observers, so a strong capture was a cycle (make test-asan).
            loop.addObserver(.layout) { [unowned loop] _ in loop.setNeedsFrame() }
            loop.runTurn()
            loop.waitForNextFrame()  // a frame was asked for: a paced wait, no sleep
            loop.runTurn()
            XCTAssertEqual(waiter.log.value, ["wake", "discard", "wake"])
        }
    }

    func testPostedWorkRunsInOrderExactlyOnce() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let log = Box<[Int]>([])
            let group = DispatchGroup()
            for i in 0..<100 {
                DispatchQueue.global().async(group: group) { loop.perform { log.value.append(i) } }
            }
            XCTAssertEqual(group.wait(timeout: HangGuard.deadline), .success)
            loop.runTurn()
            XCTAssertEqual(log.value.sorted(), Array(0..<100))
            loop.runTurn()
            XCTAssertEqual(log.value.count, 100)
        }
    }

    func testAFrameWhoseWorkOverrunsTheBudgetCountsAsAnOverrun() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(pacing: .clock(rate: 60))
            let token = loop.addObserver(.layout) { _ in Thread.sleep(forTimeInterval: 0.025) }
            loop.runTurn()
            XCTAssertEqual(loop.statistics.totalOverruns, 1)
            loop.removeObserver(token)
            // A budget of 1000 s, which nothing here overruns however slow the machine (the sleep
            // above only has to last at least 25 ms: sleeping longer still overruns 16.7 ms).
            loop.pacing = .clock(rate: 0.001)
            loop.runTurn()
            XCTAssertEqual(loop.statistics.totalOverruns, 1)
            XCTAssertEqual(loop.statistics.totalFrames, 2)
            XCTAssertGreaterThanOrEqual(loop.statistics.recent(2)[0].workMs, 25)
        }
    }

    func testTheFirstTurnAfterAnIdleWaitHasNoInterval() {
        MainActor.assumeIsolated {
            let waiter = AnnouncingWaiter()
            let loop = FrameLoop(waiter: waiter)
            loop.runTurn()
            loop.setNeedsFrame()
            loop.waitForNextFrame()
            loop.runTurn()
            XCTAssertNil(loop.statistics.recent(2)[0].intervalMs, "the very first frame")
            XCTAssertNotNil(loop.statistics.recent(2)[1].intervalMs)
            // The other thread asks for a frame only once the main thread sleeps (not after a
            // delay that a slow main thread might outlast, which made the wait a paced one).
            let thread = Thread {
                _ = waiter.asleep.wait(timeout: HangGuard.deadline)
                loop.setNeedsFrame()
            }
            thread.start()
            loop.waitForNextFrame()  // nothing was needed: an idle wait
            loop.runTurn()
            XCTAssertNil(loop.statistics.recent(1)[0].intervalMs)
        }
    }
}

/// A mutable box shared with other threads in tests.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension Box where T == Bool {
    convenience init() { self.init(false) }
}

/// A semaphore waiter that tells other threads when the main thread goes to sleep in it.
final class AnnouncingWaiter: FrameLoopWaiter {
    /// Signalled each time `wait` starts.
    let asleep = DispatchSemaphore(value: 0)
    private let semaphore = SemaphoreWaiter()
    func wait(until deadline: TimeInterval?) {
        asleep.signal()
        semaphore.wait(until: deadline)
    }
    func wake() { semaphore.wake() }
    func discardPendingWakeups() { semaphore.discardPendingWakeups() }
}

/// A waiter that records what it was asked and returns at once.
final class RecordingWaiter: FrameLoopWaiter {
    let deadlines = Box<[TimeInterval?]>([])
    let log = Box<[String]>([])
    func wait(until deadline: TimeInterval?) {
        deadlines.value.append(deadline)
        log.value.append("wait")
    }
    func wake() { log.value.append("wake") }
    func discardPendingWakeups() { log.value.append("discard") }
}

final class RunLoopDeadlineTests: XCTestCase {
    func testAnIdleLoopSleepsUntilTheEarliestDeadline() {
        MainActor.assumeIsolated {
            let waiter = RecordingWaiter()
            let loop = FrameLoop(waiter: waiter)
            loop.runTurn()
            // Deadlines hours away: a deadline that passed before the wait (a stalled machine)
            // would end the wait without sleeping.
            let now = MonotonicClock.now()
            loop.setNeedsFrame(at: now + 5 * 3600)
            loop.setNeedsFrame(at: now + 3 * 3600)
            loop.setNeedsFrame(at: now + 4 * 3600)
            loop.waitForNextFrame()
            XCTAssertEqual(waiter.deadlines.value, [now + 3 * 3600])
            XCTAssertTrue(loop.wasIdle)
        }
    }

    func testAPassedDeadlineIsClearedByTheTurnAfterIt() {
        MainActor.assumeIsolated {
            let waiter = RecordingWaiter()
            let loop = FrameLoop(waiter: waiter)
            loop.setNeedsFrame(at: MonotonicClock.now() - 1)
            loop.runTurn()
            loop.waitForNextFrame()
            XCTAssertEqual(waiter.deadlines.value, [nil], "nothing pending: sleep until woken")
        }
    }
}
