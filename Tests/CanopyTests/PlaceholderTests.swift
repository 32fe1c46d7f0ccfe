import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// A node that fills its bounds with one colour, optionally waiting for a gate first.
private final class FillNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    let gate = Mutex<DispatchSemaphore?>(nil)
    let neverShows: Bool

    init(neverShowsPlaceholders: Bool = false) {
        neverShows = neverShowsPlaceholders
        super.init()
    }

    override var suppressesPlaceholders: Bool { neverShows }

    func drawParameters() -> DispatchSemaphore? { gate.withLock { $0 } }

    class func draw(_ gate: DispatchSemaphore?, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        if let gate { _ = gate.wait(timeout: HangGuard.deadline) }
        context.fill(CGRect(x: 0, y: 0, width: 1000, height: 1000), with: .white)
    }
}

/// What a backend would make of contents: here, nothing but the bitmap.
@MainActor
private final class FakeBacking: LayerBacking {
    let bitmap: Bitmap
    init(_ bitmap: Bitmap) { self.bitmap = bitmap }
}

final class PlaceholderTests: XCTestCase {
    @MainActor
    private static func makeLoop() -> FrameLoop {
        let loop = FrameLoop()
        DisplayScheduler.shared.install(on: loop, scale: 1)
        return loop
    }

    /// Whether a fade of `duration` seconds had no turn within it, from the placeholder's alpha at
    /// the end of each turn and the turn's time: the turn at which it began (the last at alpha 1)
    /// and the next one are `duration` apart or more, so the fade went from 1 to 0 in one step.
    private static func noTurnWithin(
        _ samples: [(time: TimeInterval, alpha: CGFloat)],
        duration: TimeInterval
    ) -> Bool {
        guard let began = samples.lastIndex(where: { $0.alpha == 1 }), began + 1 < samples.count else { return false }
        return samples[began + 1].time - samples[began].time >= duration
    }

    @MainActor
    private static func placeholder(of node: DisplayNode) -> Layer? {
        node.layerIfLoaded?.sublayers.first { $0.name?.hasPrefix("placeholder") == true }
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    func testAPlaceholderCoversTheNodeUntilItDisplaysThenGoes() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let node = FillNode()
            let gate = DispatchSemaphore(value: 0)
            node.gate.withLock { $0 = gate }
            node.placeholderEnabled = true
            node.placeholderColor = Color(white: 0.5)
            node.frame = CGRect(x: 0, y: 0, width: 20, height: 10)
            let layer = node.layer
            let placeholder = try! XCTUnwrap(Self.placeholder(of: node))
            XCTAssertTrue(node.isShowingPlaceholder)
            XCTAssertEqual(placeholder.backgroundColor, Color(white: 0.5))
            XCTAssertEqual(placeholder.frame, CGRect(x: 0, y: 0, width: 20, height: 10))
            for _ in 0..<3 { loop.runTurn() }
            XCTAssertTrue(node.isShowingPlaceholder, "still drawing: the placeholder stays")
            node.frame = CGRect(x: 0, y: 0, width: 30, height: 10)
            XCTAssertEqual(placeholder.frame.width, 30, "it follows the bounds")
            gate.signal()  // the first display, now stale
            gate.signal()  // the one for the new size
            TestLoop.turn(loop, until: { !node.isShowingPlaceholder }, "the placeholder never went")
            XCTAssertNotNil(layer.contents)
            XCTAssertNil(Self.placeholder(of: node))
        }
    }

    func testANodeThatDisplaysSynchronouslyNeverShowsItsPlaceholder() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let node = FillNode()
            node.placeholderEnabled = true
            node.contentsFadeDuration = 0.6
            node.displaysAsynchronously = false
            node.frame = CGRect(x: 0, y: 0, width: 20, height: 10)
            _ = node.layer
            XCTAssertFalse(node.isShowingPlaceholder, "its contents come before the frame is drawn")
            loop.runTurn()
            XCTAssertNotNil(node.layerIfLoaded?.contents)
            XCTAssertNil(Self.placeholder(of: node))
        }
    }

    func testThePlaceholderWaitsForEverySubnodeAndStaysOnTop() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let container = FillNode()
            container.placeholderEnabled = true
            container.frame = CGRect(x: 0, y: 0, width: 20, height: 20)
            let child = FillNode()
            let gate = DispatchSemaphore(value: 0)
            child.gate.withLock { $0 = gate }
            child.frame = CGRect(x: 0, y: 0, width: 5, height: 5)
            container.addSubnode(child)
            let layer = container.layer
            TestLoop.turn(loop, until: { layer.contents != nil }, "the container never displayed")
            XCTAssertTrue(container.isShowingPlaceholder, "its subnode has not displayed yet")
            // A subnode added later goes below the placeholder.
            let late = DisplayNode()
            container.addSubnode(late)
            XCTAssertEqual(layer.sublayers.last?.name, "placeholder")
            gate.signal()
            TestLoop.turn(loop, until: { !container.isShowingPlaceholder }, "the placeholder never went")
            XCTAssertNotNil(child.layer.contents)
        }
    }

    func testThePlaceholderWaitsUntilTheBackendHasUploadedTheContents() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let root = Layer()
            root.contentsChangeHandler = { _ in }  // a backend that uploads when told below
            let node = FillNode()
            node.placeholderEnabled = true
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            root.addSublayer(node.layer)
            TestLoop.turn(loop, until: { node.layer.contents != nil }, "never displayed")
            for _ in 0..<3 { loop.runTurn() }
            XCTAssertTrue(node.isShowingPlaceholder, "the contents are not on screen yet")
            node.layer.backing = FakeBacking(node.layer.contents!)
            TestLoop.turn(loop, until: { !node.isShowingPlaceholder }, "the placeholder never went after the upload")
        }
    }

    func testThePlaceholderFadesOutOverItsDuration() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let node = FillNode()
            var duration: TimeInterval = 0.15
            node.placeholderEnabled = true
            node.placeholderFadeDuration = duration
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            _ = node.layer
            var placeholder = try! XCTUnwrap(Self.placeholder(of: node))
            // The placeholder's alpha at the end of each turn (after the animator's step) and the
            // turn's time.
            var samples: [(time: TimeInterval, alpha: CGFloat)] = []
            loop.addObserver(.beforePresent, order: .max) { turn in samples.append((turn.time, placeholder.alpha)) }
            // The fade runs on the run loop's clock, which a test cannot set: a machine that stalls
            // for as long as the fade turns no frame within it, and such a fade shows no partial
            // alpha without anything being wrong. So a fade that had no turn within it proves
            // nothing: the node loses its contents and fades again, for twice as long, until a
            // fade outlasts the machine's stalls.
            var fades = 0
            let faded = HangGuard.wait(
                until: { fades > 0 && !Self.noTurnWithin(samples, duration: duration) }, pause: 0
            ) {
                if fades > 0 {
                    XCTAssertNil(placeholder.superlayer)
                    node.clearContents()
                    placeholder = try! XCTUnwrap(Self.placeholder(of: node))
                    duration *= 2
                    node.placeholderFadeDuration = duration
                    samples = []
                    node.setNeedsDisplay()
                }
                fades += 1
                TestLoop.turn(loop, until: { !node.isShowingPlaceholder }, "the fade never ended")
            }
            XCTAssertTrue(faded, "no fade had a turn within it")
            let alphas = samples.map(\.alpha)
            XCTAssertTrue(zip(alphas, alphas.dropFirst()).allSatisfy { $0 >= $1 }, "the alpha only falls: \(alphas)")
            XCTAssertTrue(alphas.contains { $0 > 0 && $0 < 1 }, "it went through partial alphas: \(alphas)")
            XCTAssertNil(placeholder.superlayer)
        }
    }

    func testContentsFadeInWhereTheNodeHadNone() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let node = FillNode()
            node.contentsFadeDuration = 0.15
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            let layer = node.layer
            TestLoop.turn(loop, until: { layer.contents != nil }, "never displayed")
            XCTAssertLessThan(layer.fadeOpacity, 1, "the fade starts from transparent")
            var opacities: [CGFloat] = []
            TestLoop.turn(
                loop,
                until: {
                    opacities.append(layer.fadeOpacity)
                    return layer.fadeOpacity == 1
                }, "the fade never ended")
            XCTAssertTrue(zip(opacities, opacities.dropFirst()).allSatisfy { $0 <= $1 }, "\(opacities)")
            // A redisplay over existing contents does not fade again.
            node.setNeedsDisplay()
            let before = layer.contents
            TestLoop.turn(loop, until: { layer.contents !== before }, "never redisplayed")
            XCTAssertEqual(layer.fadeOpacity, 1)
        }
    }

    func testClearingContentsBringsThePlaceholderBack() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let node = FillNode()
            node.placeholderEnabled = true
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            let layer = node.layer
            TestLoop.turn(loop, until: { !node.isShowingPlaceholder }, "never displayed")
            node.clearContents()
            XCTAssertNil(layer.contents)
            XCTAssertTrue(node.isShowingPlaceholder)
            XCTAssertFalse(node.isSubtreeDisplayed)
            node.setNeedsDisplay()
            TestLoop.turn(loop, until: { !node.isShowingPlaceholder && layer.contents != nil }, "never displayed again")
        }
    }

    func testClearingContentsWhileThePlaceholderFadesOutKeepsItCovering() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let node = FillNode()
            node.placeholderEnabled = true
            // Far longer than the test, however slow the machine (the fade must not end by itself).
            node.placeholderFadeDuration = 100 * HangGuard.seconds
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            let layer = node.layer
            let placeholder = try! XCTUnwrap(Self.placeholder(of: node))
            TestLoop.turn(loop, until: { placeholder.alpha < 1 }, "the fade never started")
            // The node leaves the display range mid-fade: with nothing to show, the placeholder
            // covers it again instead of finishing its fade over an empty layer.
            node.clearContents()
            XCTAssertTrue(node.isShowingPlaceholder)
            XCTAssertEqual(placeholder.alpha, 1)
            for _ in 0..<3 { loop.runTurn() }
            XCTAssertEqual(placeholder.alpha, 1, "the old fade stopped")
            XCTAssertTrue(placeholder.superlayer === layer)
            XCTAssertFalse(DisplayScheduler.shared.animator!.isAnimating(placeholder, .alpha))
            // Displayed again, it goes again.
            node.placeholderFadeDuration = 0
            node.setNeedsDisplay()
            TestLoop.turn(loop, until: { !node.isShowingPlaceholder && layer.contents != nil }, "never displayed again")
            XCTAssertNil(placeholder.superlayer)
        }
    }

    func testACellThatNeverShowsPlaceholdersIsDisplayedBeforeTheCallReturns() {
        MainActor.assumeIsolated {
            _ = Self.makeLoop()
            let cell = FillNode(neverShowsPlaceholders: true)
            cell.isTransactionContainer = true
            cell.placeholderEnabled = true
            cell.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            let child = FillNode()
            child.placeholderEnabled = true
            child.frame = CGRect(x: 0, y: 0, width: 4, height: 4)
            cell.addSubnode(child)
            let root = Layer()
            var uploadedAtOnce: [Bool] = []
            root.contentsChangeHandler = { layer in
                uploadedAtOnce.append(layer.prefersImmediateUpload)
                if let bitmap = layer.contents { layer.backing = FakeBacking(bitmap) }
            }
            root.addSublayer(cell.layer)
            XCTAssertFalse(cell.isShowingPlaceholder, "placeholders are suppressed in the cell")
            XCTAssertFalse(child.isShowingPlaceholder)
            cell.recursivelyEnsureDisplaySynchronously(true)
            // No run-loop turn happened: the displays ran on workers while the main thread waited.
            XCTAssertNotNil(cell.layer.contents)
            XCTAssertNotNil(child.layer.contents)
            XCTAssertTrue(cell.isSubtreeDisplayed)
            XCTAssertEqual(uploadedAtOnce, [true, true], "the backend was asked to upload both at once")
            XCTAssertFalse(cell.layer.prefersImmediateUpload, "the request ends with the call")
        }
    }

    func testTheLayerOfAReleasedNodeIsLetGoOnTheMainThread() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let parent = Layer()
            weak var released: Layer?
            do {
                let node = DisplayNode()
                parent.addSublayer(node.layer)
                released = node.layer
            }
            // The node is gone; its layer waits for the main thread's release queue.
            XCTAssertNotNil(released)
            loop.runTurn()
            XCTAssertTrue(parent.sublayers.isEmpty)
            XCTAssertNil(released)
        }
    }

    func testALayerOfANodeReleasedOnAWorkerGoesOnTheMainThread() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let parent = Layer()
            let box = Mutex<DisplayNode?>(nil)
            do {
                let node = DisplayNode()
                parent.addSublayer(node.layer)
                box.withLock { $0 = node }
            }
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                box.withLock { $0 = nil }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            TestLoop.turn(loop, until: { parent.sublayers.isEmpty }, "the layer was never released")
        }
    }
}

extension PlaceholderTests {
    func testACellThatNeverShowsPlaceholdersIsDisplayedAsItJoinsALoadedTree() {
        MainActor.assumeIsolated {
            _ = Self.makeLoop()
            let parent = DisplayNode()
            _ = parent.layer
            let cell = CellNode()
            cell.neverShowPlaceholders = true
            cell.placeholderEnabled = true
            cell.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            let image = ImageNode()
            image.image = Bitmap(width: 8, height: 8, fill: .white)
            image.frame = cell.bounds
            cell.addSubnode(image)
            parent.addSubnode(cell)
            // No turn ran: the display happened on the workers while the main thread waited.
            XCTAssertNotNil(image.layer.contents)
            XCTAssertFalse(cell.isShowingPlaceholder)
            XCTAssertTrue(cell.isSubtreeDisplayed)
        }
    }

    func testTheScalingOverlayLabelsImagesDrawnAtAnotherScaleInsideARasterizedCard() {
        MainActor.assumeIsolated {
            let loop = Self.makeLoop()
            let card = DisplayNode()
            card.rasterizesSubtree = true
            card.frame = CGRect(x: 10, y: 20, width: 100, height: 100)
            let big = ImageNode()  // 4 times the pixels its 50 x 50 pt need at scale 1
            big.image = Bitmap(width: 200, height: 200, fill: .white)
            big.frame = CGRect(x: 0, y: 0, width: 50, height: 50)
            let exact = ImageNode()  // pixel for pixel: no label
            exact.image = Bitmap(width: 50, height: 50, fill: .white)
            exact.frame = CGRect(x: 50, y: 50, width: 50, height: 50)
            card.addSubnode(big)
            card.addSubnode(exact)
            let layer = card.layer
            TestLoop.turn(loop, until: { layer.contents != nil }, "never displayed")
            XCTAssertEqual(big.imageScaleFactor, 4, "published by the rasterizing card's landing")
            XCTAssertEqual(exact.imageScaleFactor, 1)
            let labels = ImageScalingOverlay.labels(in: card, origin: CGPoint(x: 0, y: 5))
            XCTAssertEqual(labels.count, 1)
            XCTAssertEqual(labels.first?.frame, CGRect(x: 10, y: 25, width: 50, height: 50))
            XCTAssertEqual(labels.first?.text, "4.00x")
        }
    }
}
