import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

#if canImport(Glibc)
import Glibc
#endif

final class DisplayQueueTests: XCTestCase {
    /// A one-worker queue whose worker is held by a first job until `release` is signalled, so
    /// that everything queued meanwhile is ordered by priority alone.
    private func heldQueue() -> (DisplayQueue, release: DispatchSemaphore, started: DispatchSemaphore) {
        let queue = DisplayQueue(workers: 1, name: "test.display")
        let release = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        queue.enqueue(priority: .visible) {
            started.signal(); _ = release.wait(timeout: HangGuard.deadline)
        }
        XCTAssertEqual(started.wait(timeout: HangGuard.deadline), .success, "the held job never started")
        return (queue, release, started)
    }

    /// Waits for `count` signals (a guard against a hang, not a timing assertion).
    private func wait(_ semaphore: DispatchSemaphore, count: Int) {
        for _ in 0..<count {
            XCTAssertEqual(semaphore.wait(timeout: HangGuard.deadline), .success, "display work never ran")
        }
    }

    func testVisibleWorkFirstThenByDistanceThenInOrder() {
        let (queue, release, _) = heldQueue()
        defer { queue.shutdown() }
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let jobs: [(String, DisplayPriority)] = [
            ("background", .background), ("far", DisplayPriority(isVisible: false, distance: 500)),
            ("visible-1", .visible), ("near", DisplayPriority(isVisible: false, distance: 100)),
            ("visible-2", .visible), ("near-2", DisplayPriority(isVisible: false, distance: 100)),
        ]
        for (name, priority) in jobs {
            queue.enqueue(priority: priority) {
                order.withLock { $0.append(name) }; done.signal()
            }
        }
        release.signal()
        wait(done, count: jobs.count)
        XCTAssertEqual(order.withLock { $0 }, ["visible-1", "visible-2", "near", "near-2", "far", "background"])
    }

    func testACancelledTicketNeverRuns() {
        let (queue, release, _) = heldQueue()
        defer { queue.shutdown() }
        let ran = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let firstDropped = DispatchSemaphore(value: 0)
        let first = queue.enqueue(onDrop: { firstDropped.signal() }) { ran.withLock { $0.append(1) } }
        queue.enqueue {
            ran.withLock { $0.append(2) }; done.signal()
        }
        first.cancel()
        XCTAssertTrue(first.isCancelled)
        release.signal()
        wait(done, count: 1)
        XCTAssertEqual(ran.withLock { $0 }, [2])
        XCTAssertEqual(firstDropped.wait(timeout: .now()), .success, "the cancelled job's drop handler ran")
    }

    func testWorkersRunBelowTheMainThreadsPriority() {
        let queue = DisplayQueue(workers: 2, name: "test.display")
        defer { queue.shutdown() }
        let nice = Mutex<Int32?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.enqueue {
            nice.withLock { $0 = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            done.signal()
        }
        wait(done, count: 1)
        XCTAssertEqual(nice.withLock { $0 }, DisplayQueue.workerNiceValue)
        XCTAssertEqual(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), 0, "the test thread keeps its priority")
    }

    func testEveryWorkerTakesWork() {
        // Two workers: two jobs that each wait for the other to start can only finish if both run at once.
        let queue = DisplayQueue(workers: 2, name: "test.display")
        defer { queue.shutdown() }
        let a = DispatchSemaphore(value: 0), b = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        queue.enqueue {
            a.signal(); if b.wait(timeout: HangGuard.deadline) == .success { done.signal() }
        }
        queue.enqueue {
            b.signal(); if a.wait(timeout: HangGuard.deadline) == .success { done.signal() }
        }
        wait(done, count: 2)
    }

    func testShutdownDropsQueuedWorkAndEndsTheWorkers() {
        let (queue, release, _) = heldQueue()
        queue.enqueue {}
        XCTAssertEqual(queue.pendingCount, 1)
        XCTAssertEqual(queue.runningCount, 1)
        release.signal()
        queue.shutdown()
        XCTAssertEqual(queue.pendingCount, 0)
        // Work enqueued after shutdown is refused: it never runs, and its drop handler says so.
        let dropped = DispatchSemaphore(value: 0)
        let ran = Mutex(false)
        queue.enqueue(onDrop: { dropped.signal() }) { ran.withLock { $0 = true } }
        XCTAssertEqual(dropped.wait(timeout: .now()), .success, "refused at once")
        XCTAssertFalse(ran.withLock { $0 })
        XCTAssertEqual(queue.pendingCount, 0)
        XCTAssertEqual(queue.runningCount, 0, "shutdown returns after the running work")
    }
}

final class AsyncTransactionTests: XCTestCase {
    func testCompletionsRunTogetherInOrderAfterTheSlowestOperation() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            let queue = DisplayQueue(workers: 2, name: "test.display")
            defer { queue.shutdown() }
            let slow = DispatchSemaphore(value: 0)
            let fastDone = DispatchSemaphore(value: 0)
            var log: [(String, Int)] = []
            var turnNumber = 0
            loop.addObserver(.afterInput) { turnNumber = $0.number }

            let transaction = AsyncTransaction(group: group, queue: queue)
            transaction.addOperation({ _ in
                _ = slow.wait(timeout: HangGuard.deadline); return "slow"
            }) { value, cancelled in
                XCTAssertFalse(cancelled)
                log.append((value ?? "nil", turnNumber))
            }
            transaction.addOperation({ _ -> String? in
                fastDone.signal(); return "fast"
            }) { value, _ in
                log.append((value ?? "nil", turnNumber))
            }
            var blockTurn = 0
            transaction.completionBlock = { _, cancelled in
                XCTAssertFalse(cancelled)
                blockTurn = turnNumber
            }
            XCTAssertEqual(transaction.state, .open)
            loop.runTurn()
            XCTAssertEqual(transaction.state, .committed, "the group closes it at the end of the turn")
            // The fast one is done, the slow one is not: nothing completes. The fast operation has
            // returned once the queue runs only the slow one (its worker decrements the count after
            // the operation's end), so the turns below come after it however slow the worker is.
            XCTAssertEqual(fastDone.wait(timeout: HangGuard.deadline), .success)
            XCTAssertTrue(
                HangGuard.wait(until: { queue.runningCount == 1 && queue.pendingCount == 0 }),
                "the fast operation never returned")
            loop.runTurn()
            loop.runTurn()
            XCTAssertTrue(log.isEmpty)
            XCTAssertEqual(group.pendingCount, 1)

            slow.signal()
            TestLoop.turn(loop, until: { transaction.state == .completed }, "the transaction never completed")
            // Both in added order, in one turn, then the block in that same turn.
            XCTAssertEqual(log.map(\.0), ["slow", "fast"])
            XCTAssertEqual(Set(log.map(\.1)).count, 1)
            XCTAssertEqual(blockTurn, log.first?.1)
            XCTAssertEqual(group.pendingCount, 0)
        }
    }

    func testACancelledTransactionsWorkStopsAndItsCompletionsSaySo() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            let queue = DisplayQueue(workers: 1, name: "test.display")
            defer { queue.shutdown() }
            let started = DispatchSemaphore(value: 0)
            let sawCancel = Mutex(false)
            let transaction = AsyncTransaction(group: group, queue: queue)
            var results: [(Int?, Bool)] = []
            transaction.addOperation({ isCancelled -> Int? in
                started.signal()
                // A long drawing polling its cancellation, as the blur does.
                while !isCancelled() { Thread.sleep(forTimeInterval: 0.001) }
                sawCancel.withLock { $0 = true }
                return nil
            }) { value, cancelled in results.append((value, cancelled)) }
            transaction.addOperation({ _ -> Int? in 7 }) { value, cancelled in results.append((value, cancelled)) }
            XCTAssertEqual(started.wait(timeout: HangGuard.deadline), .success)
            transaction.cancel()
            TestLoop.turn(loop, until: { transaction.state == .completed }, "the transaction never completed")
            XCTAssertTrue(sawCancel.withLock { $0 })
            // The second operation had not started when cancelled: its work never ran (nil).
            XCTAssertEqual(results.map(\.0), [nil, nil])
            XCTAssertEqual(results.map(\.1), [true, true])
        }
    }

    func testTransactionsCompleteInTheOrderTheyWereOpened() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            let queue = DisplayQueue(workers: 2, name: "test.display")
            defer { queue.shutdown() }
            var order: [Int] = []
            let transactions = (0..<5).map { index -> AsyncTransaction in
                let transaction = AsyncTransaction(group: group, queue: queue)
                transaction.addOperation({ _ in index }) { value, _ in order.append(value ?? -1) }
                return transaction
            }
            // Every operation returns before the first commit: the group completes the
            // transactions that are ready in the order they were opened, so a worker preempted
            // in the middle of one must not decide the order.
            for transaction in transactions { transaction.waitUntilOperationsFinish() }
            TestLoop.turn(loop, until: { transactions.allSatisfy { $0.state == .completed } }, "the transaction never completed")
            XCTAssertEqual(order, [0, 1, 2, 3, 4])
        }
    }

    func testAFinishedOperationAsksForAFrame() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            let queue = DisplayQueue(workers: 1, name: "test.display")
            defer { queue.shutdown() }
            let release = DispatchSemaphore(value: 0), returned = DispatchSemaphore(value: 0)
            let transaction = AsyncTransaction(group: group, queue: queue)
            transaction.addOperation({ _ -> Int? in
                _ = release.wait(timeout: HangGuard.deadline); return 1
            }) { _, _ in }
            transaction.completionBlock = { _, _ in returned.signal() }
            loop.runTurn()
            XCTAssertFalse(loop.needsFrame, "nothing to do while the work runs")
            release.signal()
            // The worker's last operation requests a frame, so a sleeping loop would wake.
            XCTAssertTrue(HangGuard.wait(until: { loop.needsFrame }))
            loop.runTurn()
            XCTAssertEqual(transaction.state, .completed)
        }
    }

    func testTheDrawHookWrapsEachAsynchronousDisplaysDrawing() {
        final class Counting: DisplayDrawHook {
            let calls = Atomic<Int>(0)
            func run<T>(isCancelled: @Sendable () -> Bool, _ draw: () -> T?) -> T? {
                calls.add(1, ordering: .relaxed)
                return isCancelled() ? nil : draw()
            }
        }
        let hook = Counting()
        DisplayScheduler.shared.drawHook = hook
        defer { DisplayScheduler.shared.drawHook = nil }
        XCTAssertEqual(DisplayScheduler.shared.runDisplay(isCancelled: { false }) { () -> Int? in 7 }, 7)
        XCTAssertNil(DisplayScheduler.shared.runDisplay(isCancelled: { true }) { () -> Int? in 7 }, "the hook said cancelled")
        XCTAssertEqual(hook.calls.load(ordering: .relaxed), 2)
        DisplayScheduler.shared.drawHook = nil
        XCTAssertEqual(
            DisplayScheduler.shared.runDisplay(isCancelled: { false }) { () -> Int? in 8 }, 8,
            "without a hook the drawing just runs")
        XCTAssertEqual(hook.calls.load(ordering: .relaxed), 2)
    }
}
