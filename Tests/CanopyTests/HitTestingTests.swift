import Foundation
import XCTest
@testable import Canopy

final class HitTestingTests: XCTestCase {
    private static func node(_ name: String, _ frame: CGRect, in parent: DisplayNode? = nil) -> DisplayNode {
        let node = DisplayNode()
        node.name = name
        node.frame = frame
        parent?.addSubnode(node)
        return node
    }

    /// Asserts that `root.hitTest(point)` finds `expected` (nil: nothing), naming what it found.
    @MainActor
    private static func assertHit(
        _ root: DisplayNode, _ point: CGPoint, _ expected: DisplayNode?, _ message: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let hit = root.hitTest(point)
        XCTAssertTrue(
            hit === expected,
            "(\(point.x), \(point.y)) hit \(hit?.name ?? "nothing"), expected "
                + "\(expected?.name ?? "nothing")\(message.isEmpty ? "" : ": " + message)", file: file, line: line)
    }

    @MainActor
    private static func assertHit(
        _ root: DisplayNode, _ x: CGFloat, _ y: CGFloat, _ expected: DisplayNode?,
        _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        assertHit(root, CGPoint(x: x, y: y), expected, message, file: file, line: line)
    }

    // MARK: point(inside:)

    func testNegativeSlopGrowsTheAreaEdgeByEdge() {
        MainActor.assumeIsolated {
            let node = Self.node("n", CGRect(x: 10, y: 10, width: 40, height: 20))
            node.hitTestSlop = EdgeInsets(top: -5, left: -6, bottom: -7, right: -8)
            // Own coordinates: x in [-6, 48), y in [-5, 27).
            XCTAssertEqual(node.tappableArea, CGRect(x: -6, y: -5, width: 54, height: 32))
            XCTAssertTrue(node.point(inside: CGPoint(x: -6, y: -5)))
            XCTAssertTrue(node.point(inside: CGPoint(x: 47.9, y: 26.9)))
            XCTAssertFalse(node.point(inside: CGPoint(x: 48, y: 0)))
            XCTAssertFalse(node.point(inside: CGPoint(x: 0, y: 27)))
            XCTAssertFalse(node.point(inside: CGPoint(x: -6.1, y: 0)))
            XCTAssertFalse(node.point(inside: CGPoint(x: 0, y: -5.1)))
        }
    }

    func testPositiveSlopShrinksTheArea() {
        MainActor.assumeIsolated {
            let node = Self.node("n", CGRect(x: 0, y: 0, width: 40, height: 20))
            node.hitTestSlop = EdgeInsets(all: 5)
            XCTAssertEqual(node.tappableArea, CGRect(x: 5, y: 5, width: 30, height: 10))
            XCTAssertFalse(node.point(inside: CGPoint(x: 2, y: 10)))
            XCTAssertFalse(node.point(inside: CGPoint(x: 20, y: 16)))
            XCTAssertTrue(node.point(inside: CGPoint(x: 5, y: 5)))
            XCTAssertTrue(node.point(inside: CGPoint(x: 34, y: 14)))
        }
    }

    func testWithoutSlopTheBoundsAreHalfOpenAndAnAreaShrunkToNothingTakesNothing() {
        MainActor.assumeIsolated {
            let node = Self.node("n", CGRect(x: 3, y: 4, width: 10, height: 10))
            XCTAssertTrue(node.point(inside: .zero))
            XCTAssertFalse(node.point(inside: CGPoint(x: 10, y: 5)))
            XCTAssertFalse(node.point(inside: CGPoint(x: 5, y: 10)))
            node.hitTestSlop = EdgeInsets(all: 6)  // 10 - 12: negative size
            for point in [CGPoint(x: 5, y: 5), CGPoint(x: 4, y: 4), CGPoint(x: 6, y: 6), CGPoint(x: 0, y: 0)] {
                XCTAssertFalse(node.point(inside: point), "\(point)")
            }
            XCTAssertNil(node.hitTest(CGPoint(x: 5, y: 5)))
            let empty = Self.node("empty", .zero)
            XCTAssertFalse(empty.point(inside: .zero))
        }
    }

    // MARK: hitTest

    func testSubnodesAreAskedFrontToBackWithPointsMovedByFrames() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 0, y: 0, width: 100, height: 100))
            let back = Self.node("back", CGRect(x: 0, y: 0, width: 60, height: 60), in: root)
            let front = Self.node("front", CGRect(x: 40, y: 40, width: 60, height: 60), in: root)
            let inner = Self.node("inner", CGRect(x: 10, y: 10, width: 10, height: 10), in: front)
            Self.assertHit(root, 45, 45, front)  // both: the later wins
            Self.assertHit(root, 10, 10, back)
            Self.assertHit(root, 90, 10, root)  // no subnode there
            Self.assertHit(root, 55, 55, inner)  // 40 + 10 .. 40 + 20
            Self.assertHit(root, 100, 50, nil)  // outside the root
            // Reordering changes who is on top.
            front.removeFromSupernode()
            root.insertSubnode(front, at: 0)
            Self.assertHit(root, 45, 45, back)
        }
    }

    func testHiddenTransparentNonInteractiveAndLayerBackedSubtreesAreSkipped() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 0, y: 0, width: 100, height: 100))
            let behind = Self.node("behind", CGRect(x: 0, y: 0, width: 100, height: 100), in: root)
            let top = Self.node("top", CGRect(x: 0, y: 0, width: 100, height: 100), in: root)
            let child = Self.node("child", CGRect(x: 0, y: 0, width: 50, height: 50), in: top)
            let p = CGPoint(x: 10, y: 10)
            Self.assertHit(root, p, child)

            top.isHidden = true
            Self.assertHit(root, p, behind, "a hidden node and its subtree take nothing")
            top.isHidden = false
            top.alpha = 0.009
            Self.assertHit(root, p, behind, "alpha below 0.01 counts as invisible")
            top.alpha = 0.01
            Self.assertHit(root, p, child)
            top.isUserInteractionEnabled = false
            Self.assertHit(root, p, behind, "no input: the whole subtree is skipped")
            top.isUserInteractionEnabled = true
            top.isLayerBacked = true
            XCTAssertFalse(top.isUserInteractionEnabled)
            Self.assertHit(root, p, behind, "a layer-backed node takes no input")
            top.isLayerBacked = false

            // A layer-backed leaf gives the hit to its supernode.
            child.isLayerBacked = true
            Self.assertHit(root, p, top)
            child.isLayerBacked = false
            // The root itself.
            root.isHidden = true
            Self.assertHit(root, p, nil)
        }
    }

    func testSlopLetsASubnodeTakePointsAroundItsFrame() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 0, y: 0, width: 100, height: 100))
            let button = Self.node("button", CGRect(x: 20, y: 20, width: 20, height: 20), in: root)
            Self.assertHit(root, 15, 15, root)
            button.hitTestSlop = EdgeInsets(all: -10)
            Self.assertHit(root, 15, 15, button)
            Self.assertHit(root, 10, 49.5, button)
            Self.assertHit(root, 50, 50, root)
            // Shrinking: the frame's rim no longer counts.
            button.hitTestSlop = EdgeInsets(all: 5)
            Self.assertHit(root, 22, 22, root)
            Self.assertHit(root, 30, 30, button)
        }
    }

    func testASubnodesSlopOutsideItsSupernodesAreaTakesNothingUntilTheSupernodeGrowsToo() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 0, y: 0, width: 200, height: 200))
            let parent = Self.node("parent", CGRect(x: 0, y: 0, width: 50, height: 50), in: root)
            let child = Self.node("child", CGRect(x: 40, y: 0, width: 10, height: 10), in: parent)
            child.hitTestSlop = EdgeInsets(all: -20)  // x in [20, 70) in the parent
            Self.assertHit(root, 45, 5, child)
            Self.assertHit(root, 25, 25, child)  // slop inside the parent
            Self.assertHit(root, 65, 5, root, "slop beyond the parent's area")
            parent.hitTestSlop = EdgeInsets(top: 0, left: 0, bottom: 0, right: -30)
            Self.assertHit(root, 65, 5, child)
            // Points in the parent's slop but in no subnode's area hit the parent.
            Self.assertHit(root, 75, 5, parent)
            Self.assertHit(root, 75, 45, parent)
            // A subnode placed wholly outside a zero-size container is unreachable.
            let container = Self.node("container", CGRect(x: 100, y: 100, width: 0, height: 0), in: root)
            _ = Self.node("orphan", CGRect(x: 0, y: 0, width: 40, height: 40), in: container)
            Self.assertHit(root, 110, 110, root)
        }
    }

    func testClippingDoesNotLimitHitsOnlyTheTappableAreaDoes() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 0, y: 0, width: 200, height: 200))
            let clipper = Self.node("clipper", CGRect(x: 50, y: 50, width: 50, height: 50), in: root)
            clipper.clipsToBounds = true
            let child = Self.node("child", CGRect(x: 30, y: 30, width: 40, height: 40), in: clipper)
            // Inside the clipper's bounds: the child.
            Self.assertHit(root, 90, 90, child)
            // The child's drawn-outside part is outside the clipper's area: nothing.
            Self.assertHit(root, 110, 110, root)
            // With slop the clipper's area reaches there, and so does the hidden part of the child
            // (UIKit's and Texture's rule: clipping is drawing only).
            clipper.hitTestSlop = EdgeInsets(all: -20)
            Self.assertHit(root, 110, 110, child)
            Self.assertHit(root, 115, 40, clipper)
        }
    }

    func testAControlOverridesHitTestToRefuseThePointerWhenDisabled() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 0, y: 0, width: 100, height: 100))
            let control = ControlNode()
            control.frame = CGRect(x: 0, y: 0, width: 50, height: 50)
            root.addSubnode(control)
            let label = Self.node("label", CGRect(x: 0, y: 0, width: 20, height: 20), in: control)
            XCTAssertFalse(control.isUserInteractionEnabled, "no action yet: no input, as in Texture")
            Self.assertHit(root, 10, 10, root)
            control.addAction(for: .touchUpInside) { _, _ in }
            XCTAssertTrue(control.isUserInteractionEnabled)
            Self.assertHit(root, 10, 10, label)
            Self.assertHit(root, 30, 30, control)
            control.isEnabled = false
            Self.assertHit(root, 10, 10, root)
            Self.assertHit(root, 30, 30, root)
        }
    }

    // MARK: Coordinates

    func testConvertingPointsAndRectsBetweenNodes() {
        MainActor.assumeIsolated {
            let root = Self.node("root", CGRect(x: 5, y: 5, width: 300, height: 300))
            let a = Self.node("a", CGRect(x: 10, y: 20, width: 100, height: 100), in: root)
            let b = Self.node("b", CGRect(x: 3, y: 4, width: 10, height: 10), in: a)
            let c = Self.node("c", CGRect(x: 200, y: 100, width: 10, height: 10), in: root)
            let p = CGPoint(x: 1, y: 2)
            XCTAssertEqual(b.convert(p, to: a), CGPoint(x: 4, y: 6))
            XCTAssertEqual(b.convert(p, to: root), CGPoint(x: 14, y: 26))
            XCTAssertEqual(b.convert(p, to: nil), CGPoint(x: 19, y: 31))  // the root's frame space
            XCTAssertEqual(b.convert(p, to: c), CGPoint(x: -186, y: -74))
            XCTAssertEqual(c.convert(CGPoint(x: -186, y: -74), to: b), p)
            XCTAssertEqual(b.convert(CGPoint(x: 14, y: 26), from: root), p)
            XCTAssertEqual(b.convert(CGPoint(x: 19, y: 31), from: nil), p)
            XCTAssertEqual(root.convert(p, from: b), CGPoint(x: 14, y: 26))
            XCTAssertEqual(
                b.convert(CGRect(x: 1, y: 2, width: 7, height: 8), to: root),
                CGRect(x: 14, y: 26, width: 7, height: 8))
            XCTAssertEqual(
                b.convert(CGRect(x: 14, y: 26, width: 7, height: 8), from: root),
                CGRect(x: 1, y: 2, width: 7, height: 8))
            XCTAssertEqual(b.convert(CGPoint(x: 14, y: 26), fromAncestor: root), p)
            XCTAssertNil(b.convert(p, fromAncestor: c))
            XCTAssertTrue(b.isDescendant(of: root))
            XCTAssertTrue(b.isDescendant(of: b))
            XCTAssertFalse(b.isDescendant(of: c))
            XCTAssertFalse(root.isDescendant(of: b))
        }
    }

    func testLayerWindowConversionFollowsFramesAndBoundsOrigins() {
        MainActor.assumeIsolated {
            let window = Layer(frame: CGRect(x: 0, y: 0, width: 400, height: 400))
            let scroller = Layer(frame: CGRect(x: 20, y: 30, width: 200, height: 200))
            scroller.boundsOrigin = CGPoint(x: 0, y: 100)  // scrolled down 100
            let content = Layer(frame: CGRect(x: 5, y: 150, width: 50, height: 50))
            window.addSublayer(scroller)
            scroller.addSublayer(content)
            XCTAssertEqual(scroller.convertToWindow(.zero), CGPoint(x: 20, y: -70))
            XCTAssertEqual(content.convertToWindow(CGPoint(x: 1, y: 1)), CGPoint(x: 26, y: 81))
            XCTAssertEqual(content.convertFromWindow(CGPoint(x: 26, y: 81)), CGPoint(x: 1, y: 1))
            XCTAssertEqual(window.convertFromWindow(CGPoint(x: 7, y: 8)), CGPoint(x: 7, y: 8))
        }
    }
}
