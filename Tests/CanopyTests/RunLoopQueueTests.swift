import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest
@testable import Canopy

/// XCTest runs tests on the main thread; each test enters the main actor with `assumeIsolated`.
/// The budget is measured with an injected clock that only moves when a handler says so, so no
/// assertion depends on the real clock.
final class RunLoopQueueTests: XCTestCase {
    /// An item: a named object.
    final class Item: CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    /// A clock that reads a settable time (starting away from 0, as a monotonic clock would).
    final class FakeClock {
        var now: TimeInterval = 1000
        /// How far a handler moves it per item, for tests that change it as they go.
        var step: TimeInterval = 0
    }

    /// A weak reference, for a handler that uses its own queue without keeping it alive.
    final class WeakRef<Object: AnyObject> {
        weak var object: Object?
    }

    private static func items(_ n: Int, prefix: String = "") -> [Item] {
        (0..<n).map { Item("\(prefix)\($0)") }
    }

    /// The number of observers `loop` has, read by reflection (the list is private).
    @MainActor
    private static func observerCount(_ loop: FrameLoop) throws -> Int {
        let observers = try XCTUnwrap(
            Mirror(reflecting: loop).descendant("observers"),
            "FrameLoop's observer list is no longer called `observers`")
        return Mirror(reflecting: observers).children.count
    }

    func testItemsAreHandledInFIFOOrder() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in log.append(item.name) }
            let items = Self.items(5)
            queue.enqueue(items[0])
            queue.enqueue(contentsOf: items[1...])
            XCTAssertEqual(queue.count, 5)
            XCTAssertFalse(queue.isEmpty)
            loop.runTurn()
            XCTAssertEqual(log, ["0", "1", "2", "3", "4"])
            XCTAssertTrue(queue.isEmpty)
            XCTAssertEqual(queue.count, 0)
            XCTAssertEqual(queue.handledCount, 5)
        }
    }

    func testEnqueueingAWaitingItemDoesNothing() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in log.append(item.name) }
            let (a, b, c) = (Item("a"), Item("b"), Item("c"))
            XCTAssertTrue(queue.enqueue(a))
            XCTAssertTrue(queue.enqueue(b))
            XCTAssertFalse(queue.enqueue(a), "a is waiting already")
            XCTAssertEqual(queue.enqueue(contentsOf: [b, c, c, a]), 1, "only c is new, once")
            XCTAssertEqual(queue.count, 3)
            XCTAssertTrue(queue.contains(a))
            XCTAssertFalse(queue.contains(Item("a")), "membership is by identity, not by name")
            XCTAssertTrue(queue.enqueue(Item("a")), "another object with the same name is another item")
            loop.runTurn()
            XCTAssertEqual(log, ["a", "b", "c", "a"], "a coalesced item keeps its first place")
        }
    }

    func testAnItemCanBeEnqueuedAgainOnceHandled() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let (a, b) = (Item("a"), Item("b"))
            var reenqueued = false
            let this = WeakRef<RunLoopQueue<Item>>()
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in
                log.append(item.name)
                // From within its own handler call, the item is no longer waiting.
                if item === a && !reenqueued, let queue = this.object {
                    XCTAssertFalse(queue.contains(a))
                    reenqueued = queue.enqueue(a)
                }
            }
            this.object = queue
            queue.enqueue(contentsOf: [a, b])
            loop.runTurn()
            XCTAssertTrue(reenqueued)
            XCTAssertEqual(log, ["a", "b", "a"], "re-enqueued by its handler: it goes to the back")
            XCTAssertTrue(queue.enqueue(a), "handled, so it may be enqueued again")
            loop.runTurn()
            XCTAssertEqual(log, ["a", "b", "a", "a"])
        }
    }

    func testA4msBudgetHandles3ItemsPerTurnWhenEachTakes1_5ms() {
        MainActor.assumeIsolated {
            // After each item the turn has taken 1.5, 3.0, 4.5 ms: the third reaches the budget,
            // so 3 per turn, and 10 items take turns of 3, 3, 3, 1.
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            var handledThisTurn = 0
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0.004, clock: { clock.now }) { _, _ in
                clock.now += 0.0015
                handledThisTurn += 1
            }
            queue.enqueue(contentsOf: Self.items(10))
            var perTurn: [Int] = []
            var seconds: [TimeInterval] = []
            while !queue.isEmpty && perTurn.count < 20 {
                handledThisTurn = 0
                loop.runTurn()
                perTurn.append(handledThisTurn)
                XCTAssertEqual(queue.lastTurn.handled, handledThisTurn)
                seconds.append(queue.lastTurn.seconds)
            }
            XCTAssertEqual(perTurn, [3, 3, 3, 1])
            for (measured, expected) in zip(seconds, [0.0045, 0.0045, 0.0045, 0.0015]) {
                XCTAssertEqual(measured, expected, accuracy: 1e-9)
            }
            XCTAssertEqual(queue.handledCount, 10)
            // A turn with nothing to do says so.
            loop.runTurn()
            XCTAssertEqual(queue.lastTurn.handled, 0)
            XCTAssertEqual(queue.lastTurn.seconds, 0)
            XCTAssertEqual(queue.handledCount, 10)
        }
    }

    func testA4msBudgetHandles6ItemsPerTurnWhenEachTakes0_7ms() {
        MainActor.assumeIsolated {
            // 5 items take 3.5 ms (< 4), the 6th brings it to 4.2 ms: 6 per turn; 20 = 6+6+6+2.
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            var handledThisTurn = 0
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0.004, clock: { clock.now }) { _, _ in
                clock.now += 0.0007
                handledThisTurn += 1
            }
            queue.enqueue(contentsOf: Self.items(20))
            var perTurn: [Int] = []
            while !queue.isEmpty && perTurn.count < 20 {
                handledThisTurn = 0
                loop.runTurn()
                perTurn.append(handledThisTurn)
            }
            XCTAssertEqual(perTurn, [6, 6, 6, 2])
        }
    }

    func testATurnStopsWhenItsTimeReachesTheBudgetExactly() {
        MainActor.assumeIsolated {
            // Binary fractions, so the sums are exact: a budget of 1/256 s and items of 1/1024 s
            // reach it exactly after 4 items, and reaching it is enough to stop.
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 1.0 / 256, clock: { clock.now }) { _, _ in
                clock.now += 1.0 / 1024
            }
            queue.enqueue(contentsOf: Self.items(9))
            var perTurn: [Int] = []
            while !queue.isEmpty && perTurn.count < 20 {
                loop.runTurn()
                perTurn.append(queue.lastTurn.handled)
            }
            XCTAssertEqual(perTurn, [4, 4, 1])
            XCTAssertEqual(queue.lastTurn.seconds, 1.0 / 1024)
        }
    }

    func testEveryTurnHandlesAtLeastOneItem() {
        MainActor.assumeIsolated {
            // An item slower than the whole budget, then a zero budget, then a clock that
            // doesn't move with a negative budget: one item per turn each time, never zero.
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0.004, clock: { clock.now }) { _, _ in
                clock.now += clock.step
            }
            for (budget, itemTime) in [(0.004, 0.010), (0, 0.001), (-1, 0)] as [(TimeInterval, TimeInterval)] {
                queue.budget = budget
                clock.step = itemTime
                queue.enqueue(contentsOf: Self.items(3))
                var perTurn: [Int] = []
                while !queue.isEmpty && perTurn.count < 20 {
                    loop.runTurn()
                    perTurn.append(queue.lastTurn.handled)
                }
                XCTAssertEqual(perTurn, [1, 1, 1], "budget \(budget), \(itemTime) s per item")
            }
        }
    }

    func testChangingTheBudgetTakesEffectAtTheNextTurn() {
        MainActor.assumeIsolated {
            // 1.5 ms per item: 3 per turn at 4 ms; at 10 ms, 6 items take 9 ms and the 7th 10.5.
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            let queue = RunLoopQueue<Item>(runLoop: loop, clock: { clock.now }) { _, _ in clock.now += 0.0015 }
            XCTAssertEqual(queue.budget, 0.004, "the default budget")
            queue.enqueue(contentsOf: Self.items(20))
            loop.runTurn()
            XCTAssertEqual(queue.lastTurn.handled, 3)
            queue.budget = 0.010
            loop.runTurn()
            XCTAssertEqual(queue.lastTurn.handled, 7)
            XCTAssertEqual(queue.count, 10)
        }
    }

    func testIsQueueDrainedOnlyForTheLastItem() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            var flags: [Bool] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0.004, clock: { clock.now }) { _, drained in
                clock.now += 0.0015
                flags.append(drained)
            }
            queue.enqueue(contentsOf: Self.items(7))
            for _ in 0..<4 { loop.runTurn() }
            XCTAssertEqual(
                flags, [false, false, false, false, false, false, true],
                "the end of a turn that leaves items behind is not the end of the queue")
            queue.enqueue(Item("alone"))
            loop.runTurn()
            XCTAssertEqual(flags.last, true, "a lone item drains the queue")
            XCTAssertEqual(flags.count, 8)
        }
    }

    func testRemoveDropsAWaitingItemAndKeepsTheOrderOfTheRest() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in log.append(item.name) }
            let items = Self.items(6)
            queue.enqueue(contentsOf: items)
            XCTAssertTrue(queue.remove(items[1]), "near the front")
            XCTAssertTrue(queue.remove(items[4]), "near the back")
            XCTAssertFalse(queue.remove(items[4]), "no longer waiting")
            XCTAssertFalse(queue.remove(Item("2")), "not this object")
            XCTAssertFalse(queue.contains(items[1]))
            XCTAssertEqual(queue.count, 4)
            XCTAssertTrue(queue.enqueue(items[1]), "a removed item may be enqueued again, at the back")
            loop.runTurn()
            XCTAssertEqual(log, ["0", "2", "3", "5", "1"])
            XCTAssertFalse(queue.remove(items[0]), "handled items are not waiting")
        }
    }

    func testRemoveAllDropsEveryWaitingItem() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in log.append(item.name) }
            let items = Self.items(40)
            queue.enqueue(contentsOf: items)
            queue.removeAll()
            XCTAssertTrue(queue.isEmpty)
            XCTAssertFalse(queue.contains(items[0]))
            loop.runTurn()
            XCTAssertEqual(log, [])
            XCTAssertEqual(queue.handledCount, 0)
            queue.enqueue(contentsOf: [items[3], items[0]])
            loop.runTurn()
            XCTAssertEqual(log, ["3", "0"], "the queue works on after removeAll")
        }
    }

    func testTheQueueMatchesASimpleModelThroughRandomOperations() {
        MainActor.assumeIsolated {
            // Enqueues, removes and bounded turns in a seeded random mix, so the ring wraps,
            // grows and closes gaps from both ends; an array with linear search is the model.
            let loop = FrameLoop(waiter: RecordingWaiter())
            let clock = FakeClock()
            var handled: [Item] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0.004, clock: { clock.now }) { item, _ in
                clock.now += 0.0015  // 3 per turn
                handled.append(item)
            }
            let pool = Self.items(60)
            var model: [Item] = []
            var expectedHandled: [Item] = []
            var checked = 0  // handled items already compared with the model
            var rng = SeededRandom(seed: 42)
            for step in 0..<5000 {
                switch rng.next() % 10 {
                case 0..<5:
                    let item = pool[Int(rng.next() % UInt64(pool.count))]
                    let isNew = !model.contains { $0 === item }
                    XCTAssertEqual(queue.enqueue(item), isNew)
                    if isNew { model.append(item) }
                case 5..<7:
                    let item = pool[Int(rng.next() % UInt64(pool.count))]
                    let index = model.firstIndex { $0 === item }
                    XCTAssertEqual(queue.remove(item), index != nil)
                    if let index { model.remove(at: index) }
                case 7:
                    let batch = (0..<4).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
                    var added = 0
                    for item in batch where !model.contains(where: { $0 === item }) {
                        model.append(item)
                        added += 1
                    }
                    XCTAssertEqual(queue.enqueue(contentsOf: batch), added)
                default:
                    loop.runTurn()
                    let n = min(3, model.count)
                    expectedHandled += model.prefix(n)
                    model.removeFirst(n)
                }
                if queue.count != model.count || handled.count != expectedHandled.count
                    || !zip(handled[checked...], expectedHandled[checked...]).allSatisfy({ $0 === $1 })
                {
                    XCTFail(
                        "step \(step): \(queue.count) waiting, expected \(model.count); "
                            + "handled \(handled.suffix(5)), expected \(expectedHandled.suffix(5))")
                    return
                }
                checked = handled.count
            }
            // Drain what is left: the waiting order is the model's.
            while !queue.isEmpty { loop.runTurn() }
            expectedHandled += model
            XCTAssertTrue(handled.count == expectedHandled.count && zip(handled, expectedHandled).allSatisfy { $0 === $1 })
        }
    }

    func testHandledAndRemovedItemsAreReleased() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { _, _ in }
            weak var removedFromTheFront: Item?
            weak var removedFromTheBack: Item?
            weak var handled: Item?
            weak var waiting: Item?
            do {
                let (f, a, b) = (Item("f"), Item("a"), Item("b"))
                removedFromTheFront = f; handled = a; removedFromTheBack = b
                queue.enqueue(contentsOf: [f, a, b])
                queue.remove(f)
                queue.remove(b)
            }
            XCTAssertNil(removedFromTheFront, "a removed item is let go at once")
            XCTAssertNil(removedFromTheBack)
            XCTAssertNotNil(handled, "the queue keeps its waiting items alive")
            loop.runTurn()
            XCTAssertNil(handled, "a handled item is let go")
            do {
                let c = Item("c")
                waiting = c
                queue.enqueue(c)
            }
            XCTAssertNotNil(waiting)
            queue.removeAll()
            XCTAssertNil(waiting)
        }
    }

    func testADisabledQueueHandlesNothingUntilEnabledAgain() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in log.append(item.name) }
            queue.enqueue(Item("a"))
            loop.runTurn()
            XCTAssertEqual(queue.lastTurn.handled, 1)
            queue.isEnabled = false
            queue.enqueue(contentsOf: Self.items(2))
            XCTAssertFalse(loop.needsFrame, "a disabled queue doesn't keep the loop awake")
            loop.runTurn()
            XCTAssertEqual(log, ["a"])
            XCTAssertEqual(queue.count, 2)
            XCTAssertEqual(queue.lastTurn.handled, 1, "a disabled queue's observer does nothing at all")
            queue.isEnabled = true
            XCTAssertTrue(loop.needsFrame, "enabling a queue with waiting items asks for a frame")
            loop.runTurn()
            XCTAssertEqual(log, ["a", "0", "1"])
        }
    }

    func testAHandlerThatDisablesTheQueueEndsTheTurn() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let this = WeakRef<RunLoopQueue<Item>>()
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in
                log.append(item.name)
                if item.name == "1" { this.object?.isEnabled = false }
            }
            this.object = queue
            queue.enqueue(contentsOf: Self.items(4))
            loop.runTurn()
            XCTAssertEqual(log, ["0", "1"])
            queue.isEnabled = true
            loop.runTurn()
            XCTAssertEqual(log, ["0", "1", "2", "3"])
        }
    }

    func testAHandlerMayRemoveItemsThatAreStillWaiting() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            let items = Self.items(4)
            let this = WeakRef<RunLoopQueue<Item>>()
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, drained in
                log.append(item.name + (drained ? "!" : ""))
                if item === items[0] { this.object?.remove(items[2]) }
                if item === items[1] { this.object?.remove(items[3]) }
            }
            this.object = queue
            queue.enqueue(contentsOf: items)
            loop.runTurn()
            XCTAssertEqual(log, ["0", "1"], "the handler emptied the queue itself, after its call began")
            XCTAssertTrue(queue.isEmpty)
        }
    }

    func testInvalidateRemovesTheObserver() throws {
        try MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            let before = try Self.observerCount(loop)
            var log: [String] = []
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity) { item, _ in log.append(item.name) }
            XCTAssertEqual(try Self.observerCount(loop), before + 1, "one observer per queue")
            queue.enqueue(contentsOf: Self.items(3))
            queue.invalidate()
            XCTAssertEqual(try Self.observerCount(loop), before)
            XCTAssertFalse(queue.isValid)
            XCTAssertTrue(queue.isEmpty, "invalidating drops the waiting items")
            loop.runTurn()
            XCTAssertFalse(queue.enqueue(Item("late")), "an invalid queue takes nothing")
            loop.runTurn()
            XCTAssertEqual(log, [])
            queue.invalidate()  // idempotent
            XCTAssertEqual(try Self.observerCount(loop), before)
        }
    }

    func testAReleasedQueueRemovesItsObserverAndItsHandlerNeverRunsAgain() throws {
        try MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            let before = try Self.observerCount(loop)
            var log: [String] = []
            weak var released: RunLoopQueue<Item>?
            weak var waitingItem: Item?
            do {
                let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0) { item, _ in log.append(item.name) }
                released = queue
                let items = Self.items(3)
                waitingItem = items[2]
                queue.enqueue(contentsOf: items)
                loop.runTurn()
                XCTAssertEqual(log, ["0"])
                XCTAssertEqual(try Self.observerCount(loop), before + 1)
            }
            XCTAssertNil(released, "the loop's observer doesn't keep the queue alive")
            XCTAssertNil(waitingItem, "nor the queue's waiting items")
            XCTAssertEqual(try Self.observerCount(loop), before, "deinit removed the observer")
            loop.runTurn()
            loop.runTurn()
            XCTAssertEqual(log, ["0"])
        }
    }

    func testAQueueReleasedOnAnotherThreadRemovesItsObserverAtTheNextTurn() throws {
        try MainActor.assumeIsolated {
            let waiter = RecordingWaiter()
            let loop = FrameLoop(waiter: waiter)
            let before = try Self.observerCount(loop)
            var log: [String] = []
            let holder = Box<RunLoopQueue<Item>?>(RunLoopQueue<Item>(runLoop: loop) { item, _ in log.append(item.name) })
            holder.value?.enqueue(Item("a"))
            loop.runTurn()
            holder.value?.enqueue(Item("b"))
            weak let released = holder.value
            let wakes = waiter.log.value.filter { $0 == "wake" }.count
            let done = DispatchSemaphore(value: 0)
            Thread {
                holder.value = nil  // the last reference: deinit runs on this thread
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            XCTAssertNil(released)
            XCTAssertEqual(
                waiter.log.value.filter { $0 == "wake" }.count, wakes + 1,
                "the removal was posted to the loop, waking it")
            XCTAssertEqual(try Self.observerCount(loop), before + 1, "not removed off the main thread")
            loop.runTurn()
            XCTAssertEqual(try Self.observerCount(loop), before, "removed by the next turn")
            XCTAssertEqual(log, ["a"], "b went with its queue")
        }
    }

    func testAFrameIsRequestedOnEnqueueAndWhileItemsRemain() {
        MainActor.assumeIsolated {
            let waiter = RecordingWaiter()
            let loop = FrameLoop(waiter: waiter)
            let clock = FakeClock()
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: 0.004, clock: { clock.now }) { _, _ in
                clock.now += 0.0015
            }
            loop.runTurn()  // clears the request for a first frame
            XCTAssertFalse(loop.needsFrame, "an empty queue asks for nothing")
            let items = Self.items(5)
            queue.enqueue(items[0])
            XCTAssertTrue(loop.needsFrame, "enqueueing asks for a frame")
            XCTAssertEqual(waiter.log.value.filter { $0 == "wake" }.count, 1, "and wakes a sleeping loop")
            queue.enqueue(contentsOf: items[1...])
            loop.runTurn()
            XCTAssertEqual(queue.lastTurn.handled, 3)
            XCTAssertTrue(loop.needsFrame, "2 items remain: another frame")
            loop.runTurn()
            XCTAssertTrue(queue.isEmpty)
            XCTAssertFalse(loop.needsFrame, "drained: the loop may sleep")
            queue.enqueue(contentsOf: [Item]())
            XCTAssertFalse(loop.needsFrame, "enqueueing nothing asks for nothing")
            queue.enqueue(items[0])
            loop.runTurn()
            let wakes = waiter.log.value.filter { $0 == "wake" }.count
            XCTAssertTrue(queue.enqueue(items[1]))
            XCTAssertFalse(queue.enqueue(items[1]))
            XCTAssertEqual(
                waiter.log.value.filter { $0 == "wake" }.count, wakes + 1,
                "a coalesced enqueue asks for no frame of its own")
        }
    }

    func testTheQueueRunsAtItsPhaseAndOrder() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            loop.addObserver(.beforeCommit, order: 1) { _ in log.append("beforeCommit+1") }
            loop.addObserver(.layout) { _ in log.append("layout") }
            loop.addObserver(.beforeCommit, order: -1) { _ in log.append("beforeCommit-1") }
            let queue = RunLoopQueue<Item>(runLoop: loop, budget: .infinity, phase: .beforeCommit, order: 0) { item, _ in
                log.append("queue " + item.name)
            }
            XCTAssertEqual(queue.phase, .beforeCommit)
            XCTAssertEqual(queue.order, 0)
            queue.enqueue(Item("a"))
            loop.runTurn()
            XCTAssertEqual(log, ["layout", "beforeCommit-1", "queue a", "beforeCommit+1"])
        }
    }

    func testTheDefaultPhaseIsBeforePresent() {
        MainActor.assumeIsolated {
            let loop = FrameLoop(waiter: RecordingWaiter())
            var log: [String] = []
            loop.addObserver(.beforePresent, order: 1) { _ in log.append("beforePresent+1") }
            loop.addObserver(.afterCommit, order: 100) { _ in log.append("afterCommit") }
            let queue = RunLoopQueue<Item>(runLoop: loop) { item, _ in log.append("queue " + item.name) }
            queue.enqueue(Item("a"))
            loop.runTurn(present: { log.append("PRESENT") })
            XCTAssertEqual(log, ["afterCommit", "queue a", "beforePresent+1", "PRESENT"])
        }
    }
}
