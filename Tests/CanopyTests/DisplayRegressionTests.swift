import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

private final class Gated: DisplayNode, ContentDrawing, @unchecked Sendable {
    let gate = Mutex<DispatchSemaphore?>(nil)
    let started = DispatchSemaphore(value: 0)
    let color = Mutex(Color.white)
    let landedTurn = Mutex<[Int]>([])
    var turn: @Sendable () -> Int = { 0 }
    struct P: Sendable { let gate: DispatchSemaphore?; let started: DispatchSemaphore; let color: Color }
    func drawParameters() -> P { P(gate: gate.withLock { $0 }, started: started, color: color.withLock { $0 }) }
    class func draw(_ p: P, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        p.started.signal()
        if let g = p.gate { _ = g.wait(timeout: HangGuard.deadline) }
        context.fill(CGRect(x: 0, y: 0, width: 1000, height: 1000), with: p.color)
    }
    @MainActor override func didDisplay() { let t = turn(); landedTurn.withLock { $0.append(t) } }
}

private final class Counter: Sendable { let v = Mutex(0) }

/// Display behaviours that a review found broken, each kept as a regression test.
final class DisplayRegressionTests: XCTestCase {
    override func tearDown() { MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() } }

    @MainActor private static func spin(_ loop: FrameLoop, _ n: Int = 200) {
        for _ in 0..<n { loop.runTurn(); Thread.sleep(forTimeInterval: 0.002) }
    }

    /// Turns once, which starts every display owed (the scheduler starts them in the turn's
    /// commit, on the main thread), then turns until every transaction of `group` has completed:
    /// those displays have then landed or been dropped, however slow the workers are. A display
    /// that was never started leaves nothing to wait for, so its absence fails at once.
    @MainActor private static func settle(
        _ loop: FrameLoop, _ group: TransactionGroup,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        loop.runTurn()
        XCTAssertTrue(
            HangGuard.wait(until: { group.pendingCount == 0 }, step: { loop.runTurn() }),
            "a display never finished", file: file, line: line)
    }

    // 1. Suspend while a display is in flight, then resume: nothing ever redisplays.
    func testResumeAfterInFlightSuspensionRedisplays() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            DisplayScheduler.shared.install(on: loop, group: group)
            let node = Gated()
            let gate = DispatchSemaphore(value: 0)
            node.gate.withLock { $0 = gate }
            node.frame = CGRect(x: 0, y: 0, width: 4, height: 4)
            let layer = node.layer
            loop.runTurn()
            XCTAssertEqual(node.started.wait(timeout: HangGuard.deadline), .success)
            node.displaySuspended = true  // e.g. the cell scrolled out of the preload range
            gate.signal()
            // Until the suspended display has returned and been dropped (its transaction completed).
            XCTAssertTrue(HangGuard.wait(until: { group.pendingCount == 0 }, step: { loop.runTurn() }))
            node.gate.withLock { $0 = nil }
            node.displaySuspended = false  // back in range
            Self.settle(loop, group)
            XCTAssertNotNil(layer.contents, "resumed node stays blank forever")
        }
    }

    // 2. Removing a subnode of a loaded rasterizing node leaves its pixels in the bitmap.
    func testRemovingAChildOfARasterizerRedisplays() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            DisplayScheduler.shared.install(on: loop, group: group)
            let r = DisplayNode(); r.rasterizesSubtree = true
            r.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
            let a = DisplayNode(); a.frame = r.frame; a.backgroundColor = Color(red: 1, green: 0, blue: 0)
            r.addSubnode(a)
            let layer = r.layer
            Self.settle(loop, group)
            XCTAssertEqual(layer.contents?.pixel(x: 5, y: 5).a, 255)
            a.removeFromSupernode()
            Self.settle(loop, group)
            XCTAssertEqual(layer.contents?.pixel(x: 5, y: 5).a, 0, "removed child still drawn")
        }
    }

    // 2b. Adding a grandchild inside a rasterized subtree does not redisplay.
    func testAddingAGrandchildInARasterizedSubtreeRedisplays() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            DisplayScheduler.shared.install(on: loop, group: group)
            let r = DisplayNode(); r.rasterizesSubtree = true
            r.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
            let c = DisplayNode(); c.frame = r.frame
            r.addSubnode(c)
            let layer = r.layer
            Self.settle(loop, group)
            let g = DisplayNode(); g.frame = r.frame; g.backgroundColor = Color(red: 1, green: 0, blue: 0)
            c.addSubnode(g)
            Self.settle(loop, group)
            XCTAssertEqual(layer.contents?.pixel(x: 5, y: 5).a, 255, "new grandchild never drawn")
        }
    }

    // 3. A rasterizing node inside a container lands on its own, not with the container's transaction.
    func testARasterizerInsideAContainerLandsWithIt() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            DisplayScheduler.shared.install(on: loop, group: group)
            let cell = DisplayNode(); cell.isTransactionContainer = true
            cell.frame = CGRect(x: 0, y: 0, width: 20, height: 10)
            let slow = Gated(); let gate = DispatchSemaphore(value: 0); slow.gate.withLock { $0 = gate }
            slow.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
            let r = DisplayNode(); r.rasterizesSubtree = true; r.frame = CGRect(x: 10, y: 0, width: 10, height: 10)
            let inner = DisplayNode(); inner.frame = CGRect(x: 0, y: 0, width: 10, height: 10); inner.backgroundColor = .white
            r.addSubnode(inner)
            cell.addSubnode(slow); cell.addSubnode(r)
            _ = cell.layer
            loop.runTurn()
            // Until the rasterizer's drawing has returned, however slow its worker: both drawings
            // were queued by the turn above, so once the gated one has started, a queue that runs
            // one job and holds none has finished the other. (A single worker runs them in turn:
            // the rasterizer's returned before the gated one started, or cannot start before the
            // gate opens.) A rasterizer landing on its own would land within the turns below.
            XCTAssertEqual(slow.started.wait(timeout: HangGuard.deadline), .success)
            let queue = DisplayQueue.shared
            XCTAssertTrue(
                HangGuard.wait(until: {
                    queue.workerCount == 1 || (queue.runningCount == 1 && queue.pendingCount == 0)
                }), "the rasterizer's drawing never returned")
            for _ in 0..<3 { loop.runTurn() }
            XCTAssertNil(r.layer.contents, "the rasterizer landed before its cell's other parts")
            gate.signal(); Self.settle(loop, group)
        }
    }

    // 4. A transaction whose queue was shut down never completes; the group keeps it forever.
    func testATransactionOnAStoppedQueueCompletes() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            let queue = DisplayQueue(workers: 1, name: "t"); queue.shutdown()
            let t = AsyncTransaction(group: group, queue: queue)
            t.addOperation({ _ in 1 }) { _, _ in }
            Self.spin(loop, 20)
            XCTAssertEqual(t.state, .completed)
            XCTAssertEqual(group.pendingCount, 0)
        }
    }

    // 5. displayWaiting() before install drops the requests for good.
    func testDisplayWaitingBeforeInstallKeepsRequests() {
        MainActor.assumeIsolated {
            DisplayScheduler.shared.uninstall()
            let node = Gated(); node.frame = CGRect(x: 0, y: 0, width: 4, height: 4)
            let layer = node.layer  // schedules it
            DisplayScheduler.shared.displayWaiting()  // not installed: clears the list
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            DisplayScheduler.shared.install(on: loop, group: group)
            Self.settle(loop, group)
            XCTAssertNotNil(layer.contents)
        }
    }

    // 6. A node that draws nothing still gets a full-size transparent bitmap.
    func testANonDrawingNodeGetsNoBitmap() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let group = TransactionGroup(runLoop: loop)
            DisplayScheduler.shared.install(on: loop, group: group)
            let node = DisplayNode(); node.frame = CGRect(x: 0, y: 0, width: 500, height: 500)
            let layer = node.layer
            node.setNeedsDisplay()
            // A bitmap drawn on a worker would land once its transaction completes: wait for that.
            Self.settle(loop, group)
            XCTAssertNil(layer.contents, "allocated \(layer.contents.map { "\($0.width)x\($0.height)" } ?? "")")
        }
    }

    // 7. A node does not keep its completed transaction (nor, through it, an uninstalled group).
    func testANodeDoesNotKeepItsCompletedTransaction() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            DisplayScheduler.shared.install(on: loop)
            guard let group = DisplayScheduler.shared.transactionGroup else { return XCTFail("not installed") }
            let node = Gated(); node.frame = CGRect(x: 0, y: 0, width: 4, height: 4)
            let layer = node.layer
            Self.settle(loop, group)
            XCTAssertNotNil(layer.contents)
            XCTAssertNil(node.state.withLock { $0.transaction }, "the completed transaction is released")
        }
    }
}
final class DisplaySchedulerInstallTests: XCTestCase {
    func testInstallUninstallLeavesNoObservers() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            func count() -> Int { Mirror(reflecting: Mirror(reflecting: loop).descendant("observers")!).children.count }
            let before = count()
            for _ in 0..<5 { DisplayScheduler.shared.install(on: loop); DisplayScheduler.shared.uninstall() }
            XCTAssertEqual(count(), before, "afterCommit observers of install-made groups remain")
        }
    }
}
