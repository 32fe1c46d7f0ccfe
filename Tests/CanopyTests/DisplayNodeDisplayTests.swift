import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// What a `SolidNode` draws: a colour, after an optional gate opens, recording where it ran.
private struct SolidParameters: Sendable {
    let color: Color
    let gate: DispatchSemaphore?
    let started: DispatchSemaphore?
    let log: DrawLog
}

private final class DrawLog: Sendable {
    private let entries = Mutex<[(color: Color, onMain: Bool, cancelled: Bool, lane: String)]>([])
    /// Draws that have started (before their gate).
    let began = Atomic<Int>(0)
    func add(_ color: Color, onMain: Bool, cancelled: Bool) {
        // Which queue's worker drew (by the thread itself: its name may not read back under a
        // sanitizer).
        let lane =
            DisplayQueue.long.containsCurrentThread ? "long" : DisplayQueue.shared.containsCurrentThread ? "pool" : "other"
        entries.withLock { $0.append((color, onMain, cancelled, lane)) }
    }
    var all: [(color: Color, onMain: Bool, cancelled: Bool, lane: String)] { entries.withLock { $0 } }
}

/// A node that fills its bounds with `color`.
private final class SolidNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    let settings = Mutex<(color: Color, gate: DispatchSemaphore?, started: DispatchSemaphore?)>((.white, nil, nil))
    let log = DrawLog()
    let displays = Mutex<[Int]>([])
    let turn: @Sendable () -> Int

    init(turn: @escaping @Sendable () -> Int = { 0 }) {
        self.turn = turn
        super.init()
    }

    func drawParameters() -> SolidParameters {
        let s = settings.withLock { $0 }
        return SolidParameters(color: s.color, gate: s.gate, started: s.started, log: log)
    }

    class func draw(_ p: SolidParameters, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        p.log.began.add(1, ordering: .relaxed)
        p.started?.signal()
        if let gate = p.gate { _ = gate.wait(timeout: HangGuard.deadline) }
        p.log.add(p.color, onMain: Thread.isMainThread, cancelled: isCancelled())
        context.fill(CGRect(x: 0, y: 0, width: 1000, height: 1000), with: p.color)
    }

    @MainActor override func didDisplay() {
        displays.withLock { $0.append(turn()) }
    }
}

/// The run loop's current turn number, readable from any thread.
private final class TurnCounter: Sendable {
    private let number = Mutex(0)
    var value: Int { number.withLock { $0 } }
    func set(_ value: Int) { number.withLock { $0 = value } }
}

private final class ContainerNode: DisplayNode, @unchecked Sendable {
    let finished = Mutex(0)
    @MainActor override func hierarchyDisplayDidFinish() { finished.withLock { $0 += 1 } }
}

final class DisplayNodeDisplayTests: XCTestCase {
    /// A run loop with the shared scheduler installed on it, and its current turn number.
    @MainActor
    private static func makeLoop() -> (FrameLoop, TransactionGroup, TurnCounter) {
        let loop = FrameLoop()
        let group = TransactionGroup(runLoop: loop)
        let turn = TurnCounter()
        loop.addObserver(.afterInput) { t in turn.set(t.number) }
        DisplayScheduler.shared.install(on: loop, group: group, scale: 1)
        return (loop, group, turn)
    }

    private static func color(of bitmap: Bitmap?) -> Color? {
        guard let bitmap, bitmap.width > 0 else { return nil }
        let p = bitmap.pixel(x: 0, y: 0)
        return Color(red: CGFloat(p.r) / 255, green: CGFloat(p.g) / 255, blue: CGFloat(p.b) / 255, alpha: CGFloat(p.a) / 255)
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    func testANodeDrawsOnAWorkerAndItsLayerGetsTheBitmap() {
        MainActor.assumeIsolated {
            let (loop, _, _) = Self.makeLoop()
            let node = SolidNode()
            node.settings.withLock { $0.color = Color(red: 1, green: 0, blue: 0, alpha: 1) }
            node.frame = CGRect(x: 0, y: 0, width: 12, height: 7)
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertEqual(layer.contents?.width, 12)
            XCTAssertEqual(layer.contents?.height, 7)
            XCTAssertEqual(Self.color(of: layer.contents), Color(red: 1, green: 0, blue: 0, alpha: 1))
            XCTAssertEqual(node.log.all.map(\.onMain), [false], "drawn once, on a worker")
            XCTAssertEqual(node.displays.withLock { $0.count }, 1)
        }
    }

    func testAReconfiguredNodesStaleDisplayNeverLands() {
        MainActor.assumeIsolated {
            let (loop, group, _) = Self.makeLoop()
            let node = SolidNode()
            let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
            let red = Color(red: 1, green: 0, blue: 0, alpha: 1), blue = Color(red: 0, green: 0, blue: 1, alpha: 1)
            node.settings.withLock { $0 = (red, gate, started) }
            node.frame = CGRect(x: 0, y: 0, width: 4, height: 4)
            let layer = node.layer
            loop.runTurn()
            XCTAssertEqual(started.wait(timeout: HangGuard.deadline), .success)
            // While red draws, the node is reconfigured: blue, no gate.
            node.settings.withLock { $0 = (blue, nil, nil) }
            node.setNeedsDisplay()
            loop.runTurn()
            gate.signal()
            // Until blue has landed and the cancelled red drawing has returned too (its
            // transaction completed), so that red has logged and had its chance to land.
            TestLoop.turn(loop) { layer.contents != nil && group.pendingCount == 0 }
            for _ in 0..<5 { loop.runTurn() }
            XCTAssertEqual(Self.color(of: layer.contents), blue)
            XCTAssertEqual(node.displays.withLock { $0.count }, 1, "only the current display set contents")
            // The red drawing saw its cancellation.
            XCTAssertEqual(node.log.all.first { $0.color == red }?.cancelled, true)
        }
    }

    func testASuspendedNodeDoesNotDisplayAndSuspendingCancelsWorkInFlight() {
        MainActor.assumeIsolated {
            let (loop, group, _) = Self.makeLoop()
            let node = SolidNode()
            node.frame = CGRect(x: 0, y: 0, width: 4, height: 4)
            node.displaySuspended = true
            let layer = node.layer
            for _ in 0..<5 { loop.runTurn() }
            XCTAssertNil(layer.contents)
            XCTAssertEqual(group.pendingCount, 0, "nothing was started")

            let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
            node.settings.withLock { $0 = (.black, gate, started) }
            node.displaySuspended = false
            loop.runTurn()
            XCTAssertEqual(started.wait(timeout: HangGuard.deadline), .success)
            node.displaySuspended = true
            gate.signal()
            TestLoop.turn(loop) { group.pendingCount == 0 }
            XCTAssertNil(layer.contents, "work cancelled by suspension never lands")

            node.settings.withLock { $0 = (.white, nil, nil) }
            node.setNeedsDisplay()
            node.displaySuspended = false
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertEqual(Self.color(of: layer.contents), .white)
        }
    }

    func testAContainersSubtreeLandsInOneTurn() {
        MainActor.assumeIsolated {
            let (loop, _, turn) = Self.makeLoop()
            let container = ContainerNode()
            container.isTransactionContainer = true
            let currentTurn: @Sendable () -> Int = { turn.value }
            let parts = (0..<3).map { _ in SolidNode(turn: currentTurn) }
            let gates = parts.map { _ in DispatchSemaphore(value: 0) }
            for (index, part) in parts.enumerated() {
                part.settings.withLock { $0 = (.white, gates[index], nil) }
                part.frame = CGRect(x: CGFloat(index) * 10, y: 0, width: 10, height: 10)
                container.addSubnode(part)
            }
            _ = container.layer
            loop.runTurn()
            // Release the parts one by one, turning in between: nothing lands until all are done.
            // Each part is waited for until it has passed its gate (its log entry; the parts were
            // queued in order, so each is drawing or next when its gate opens), so the turns in
            // between come after its drawing however slow the workers are. Only the end of a
            // drawing (a 10×10 fill) is left to the turns and sleeps after it; were the worker
            // slower still, that could only hide a part landing early, never fail a correct
            // container.
            for (part, gate) in zip(parts, gates) {
                gate.signal()
                XCTAssertTrue(
                    HangGuard.wait(until: { part.log.all.count == 1 }, step: { loop.runTurn() }),
                    "a part never drew")
                for _ in 0..<3 { loop.runTurn(); Thread.sleep(forTimeInterval: 0.002) }
            }
            TestLoop.turn(loop) { parts.allSatisfy { $0.layerIfLoaded?.contents != nil } }
            let turns = parts.map { $0.displays.withLock { $0 } }
            XCTAssertEqual(turns.map(\.count), [1, 1, 1])
            XCTAssertEqual(Set(turns.flatMap { $0 }).count, 1, "every part of the container landed in the same turn")
            XCTAssertEqual(container.finished.withLock { $0 }, 1)
        }
    }

    func testASynchronousNodeDrawsOnTheMainThreadWithinTheTurn() {
        MainActor.assumeIsolated {
            let (loop, _, _) = Self.makeLoop()
            let node = SolidNode()
            node.displaysAsynchronously = false
            node.frame = CGRect(x: 0, y: 0, width: 3, height: 3)
            let layer = node.layer
            loop.runTurn()
            XCTAssertNotNil(layer.contents)
            XCTAssertEqual(node.log.all.map(\.onMain), [true])
        }
    }

    func testResizingALoadedNodeRedisplaysItAtTheNewSize() {
        MainActor.assumeIsolated {
            let (loop, _, _) = Self.makeLoop()
            let node = SolidNode()
            node.frame = CGRect(x: 0, y: 0, width: 3, height: 3)
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 5)
            TestLoop.turn(loop) { layer.contents?.width == 8 }
            XCTAssertEqual(layer.contents?.height, 5)
        }
    }

    func testARasterizedSubtreeIsDrawnIntoOneBitmap() {
        MainActor.assumeIsolated {
            let (loop, _, _) = Self.makeLoop()
            let parent = DisplayNode()
            parent.rasterizesSubtree = true
            parent.frame = CGRect(x: 0, y: 0, width: 40, height: 40)
            let a = DisplayNode()  // half-transparent red square
            a.frame = CGRect(x: 0, y: 0, width: 20, height: 20)
            a.backgroundColor = Color(red: 1, green: 0, blue: 0)
            a.alpha = 0.5
            let b = DisplayNode()  // blue, clipping a green child that overflows it
            b.frame = CGRect(x: 20, y: 0, width: 20, height: 20)
            b.backgroundColor = Color(red: 0, green: 0, blue: 1)
            b.clipsToBounds = true
            let g = DisplayNode()
            g.frame = CGRect(x: 10, y: 10, width: 30, height: 30)
            g.backgroundColor = Color(red: 0, green: 1, blue: 0)
            b.addSubnode(g)
            let c = SolidNode()  // a node with its own drawing: white
            c.frame = CGRect(x: 0, y: 20, width: 20, height: 20)
            for node in [a, b, c] { parent.addSubnode(node) }

            let layer = parent.layer
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertTrue(layer.sublayers.isEmpty, "the subnodes have no layers of their own")
            XCTAssertFalse(a.isNodeLoaded)
            guard let bitmap = layer.contents else { return XCTFail("no contents") }
            XCTAssertEqual(bitmap.width, 40)
            func pixel(_ x: Int, _ y: Int) -> [UInt8] { let p = bitmap.pixel(x: x, y: y); return [p.r, p.g, p.b, p.a] }
            XCTAssertEqual(pixel(5, 5), [128, 0, 0, 128], "red at alpha 0.5, premultiplied")
            XCTAssertEqual(pixel(25, 5), [0, 0, 255, 255], "blue")
            XCTAssertEqual(pixel(35, 15), [0, 255, 0, 255], "green, inside blue's bounds")
            XCTAssertEqual(pixel(35, 25), [0, 0, 0, 0], "green cut by blue's clip")
            XCTAssertEqual(pixel(5, 25), [255, 255, 255, 255], "the drawing node's own contents")

            // A change deep in the subtree redisplays the rasterizing node.
            g.backgroundColor = Color(red: 1, green: 1, blue: 0)
            TestLoop.turn(loop) { layer.contents.map { $0.pixel(x: 35, y: 15).r == 255 } ?? false }
            XCTAssertEqual(layer.contents.map { [$0.pixel(x: 35, y: 15).g, $0.pixel(x: 35, y: 15).b] }, [255, 0])
        }
    }

    func testLongDisplaysQueueInTheirOwnLaneWhileOrdinaryOnesLand() {
        MainActor.assumeIsolated {
            let (loop, _, _) = Self.makeLoop()
            let gate = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            // Three long displays, each held at a gate: in the pool they would hold every worker.
            let longs = (0..<3).map { index -> SolidNode in
                let node = SolidNode()
                node.settings.withLock { $0 = (Color(red: 0, green: 0, blue: 1), gate, started) }
                node.expectsLongDisplay = true
                node.frame = CGRect(x: CGFloat(index) * 10, y: 0, width: 8, height: 8)
                return node
            }
            // A rasterizing container with a long subnode displays in the lane too.
            let card = DisplayNode()
            card.rasterizesSubtree = true
            card.frame = CGRect(x: 0, y: 20, width: 8, height: 8)
            let photo = SolidNode()
            photo.expectsLongDisplay = true
            photo.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            card.addSubnode(photo)
            let ordinary = SolidNode()
            ordinary.frame = CGRect(x: 40, y: 0, width: 8, height: 8)

            let layers = longs.map(\.layer) + [card.layer]
            let ordinaryLayer = ordinary.layer
            TestLoop.turn(loop) { ordinaryLayer.contents != nil }
            XCTAssertEqual(ordinary.log.all.first?.onMain, false)
            XCTAssertEqual(ordinary.log.all.first?.lane, "pool", "an ordinary display runs in the pool")
            XCTAssertEqual(started.wait(timeout: HangGuard.deadline), .success)
            XCTAssertEqual(longs.map { $0.log.began.load(ordering: .relaxed) }.reduce(0, +), 1, "one long display at a time")
            XCTAssertTrue(layers.allSatisfy { $0.contents == nil })

            for _ in 0..<3 { gate.signal() }
            TestLoop.turn(loop) { layers.allSatisfy { $0.contents != nil } }
            let lanes = longs.flatMap { $0.log.all.map(\.lane) } + photo.log.all.map(\.lane)
            XCTAssertEqual(lanes, Array(repeating: "long", count: 4))
        }
    }
}
