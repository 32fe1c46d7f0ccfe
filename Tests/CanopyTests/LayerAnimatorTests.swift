import CanopyTestSupport
import Foundation
import XCTest
@testable import Canopy

@MainActor
private final class StubBacking: LayerBacking {
    let bitmap: Bitmap
    init(_ bitmap: Bitmap) { self.bitmap = bitmap }
}

final class LayerAnimatorTests: XCTestCase {
    func testAnAnimationRunsFromItsFirstTurnToItsEndThenCompletes() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let animator = LayerAnimator(runLoop: loop)
            let layer = Layer()
            var finished: [Bool] = []
            animator.animate(layer, .alpha, from: 1, to: 0, duration: 0.05) { finished.append($0) }
            XCTAssertEqual(layer.alpha, 1, "it starts from `from`")
            XCTAssertTrue(loop.needsFrame)
            var values: [CGFloat] = []
            let ended = HangGuard.wait(until: { !animator.isActive }, pause: 0.005) {
                loop.runTurn()
                values.append(layer.alpha)
            }
            XCTAssertTrue(ended, "the animation never ended")
            XCTAssertEqual(values.first, 1, "the first frame shows the start")
            XCTAssertEqual(values.last, 0)
            XCTAssertTrue(zip(values, values.dropFirst()).allSatisfy { $0 >= $1 })
            XCTAssertEqual(finished, [true])
            XCTAssertFalse(loop.needsFrame, "an idle animator asks for nothing")
        }
    }

    func testReplacingOrRemovingAnAnimationCompletesItUnfinished() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let animator = LayerAnimator(runLoop: loop)
            let layer = Layer()
            var log: [String] = []
            animator.animate(layer, .fadeOpacity, from: 0, to: 1, duration: 10) { log.append("first \($0)") }
            animator.animate(layer, .fadeOpacity, from: 0.5, to: 1, duration: 10) { log.append("second \($0)") }
            XCTAssertEqual(log, ["first false"])
            XCTAssertEqual(layer.fadeOpacity, 0.5)
            animator.removeAnimation(of: layer, .fadeOpacity)
            XCTAssertEqual(log, ["first false", "second false"])
            XCTAssertFalse(animator.isActive)
            animator.animate(layer, .alpha, from: 1, to: 0.25, duration: 0) { log.append("instant \($0)") }
            XCTAssertEqual(layer.alpha, 0.25)
            XCTAssertEqual(log.last, "instant true")
        }
    }

    func testWhenPresentedWaitsForTheBackendToUploadTheTree() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            let animator = LayerAnimator(runLoop: loop)
            let root = Layer()
            let child = Layer()
            root.addSublayer(child)
            var ran = 0
            // No backend observes the tree: at once.
            child.contents = Bitmap(width: 1, height: 1, fill: .black)
            animator.whenPresented(root) { ran += 1 }
            XCTAssertEqual(ran, 1)
            // A backend observes it: only once the contents have a backing.
            root.contentsChangeHandler = { _ in }
            animator.whenPresented(root) { ran += 1 }
            loop.runTurn()
            XCTAssertEqual(ran, 1)
            child.backing = StubBacking(child.contents!)
            loop.runTurn()
            XCTAssertEqual(ran, 2)
        }
    }

    func testTheRootHearsOfContentsChangesAndOfAttachedLayersWaitingForUpload() {
        MainActor.assumeIsolated {
            let root = Layer()
            var heard: [String] = []
            root.contentsChangeHandler = { heard.append($0.name ?? "?") }
            let a = Layer()
            a.name = "a"
            root.addSublayer(a)
            XCTAssertEqual(heard, [], "nothing to upload")
            let bitmap = Bitmap(width: 1, height: 1, fill: .black)
            a.contents = bitmap
            a.contents = bitmap  // the same bitmap again is no news
            XCTAssertEqual(heard, ["a"])
            let b = Layer(), c = Layer()
            b.name = "b"
            c.name = "c"
            c.contents = bitmap
            b.addSublayer(c)
            root.setSublayers([a, b])
            XCTAssertEqual(heard, ["a", "c"], "an attached subtree's pending contents are news")
        }
    }
}
