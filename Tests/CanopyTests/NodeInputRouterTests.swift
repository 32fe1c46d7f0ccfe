import Foundation
import XCTest
@testable import Canopy

final class NodeInputRouterTests: XCTestCase {
    /// A 300 x 300 root with a control `button` at (10, 10, 100, 40) holding a plain `label`, a
    /// plain node `panel` at (150, 10, 100, 40), and a disabled control at (10, 100, 100, 40).
    private struct Scene {
        let root = DisplayNode()
        let button = LoggingControl()
        let label = DisplayNode()
        let panel = DisplayNode()
        let disabled = LoggingControl()

        init() {
            root.frame = CGRect(x: 0, y: 0, width: 300, height: 300)
            button.frame = CGRect(x: 10, y: 10, width: 100, height: 40)
            label.frame = CGRect(x: 10, y: 10, width: 50, height: 20)
            panel.frame = CGRect(x: 150, y: 10, width: 100, height: 40)
            disabled.frame = CGRect(x: 10, y: 100, width: 100, height: 40)
            disabled.isEnabled = false
            root.addSubnode(button)
            button.addSubnode(label)
            root.addSubnode(panel)
            root.addSubnode(disabled)
        }
    }

    private static func down(_ x: CGFloat, _ y: CGFloat, _ button: PointerButton = .left, clicks: Int = 1) -> InputEvent {
        .pointerDown(button, CGPoint(x: x, y: y), clickCount: clicks)
    }
    private static func up(_ x: CGFloat, _ y: CGFloat, _ button: PointerButton = .left) -> InputEvent {
        .pointerUp(button, CGPoint(x: x, y: y))
    }
    private static func move(_ x: CGFloat, _ y: CGFloat) -> InputEvent { .pointerMoved(CGPoint(x: x, y: y)) }

    func testHoverFollowsThePointerAndAsksForAHandOverEnabledControls() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            XCTAssertFalse(router.handle(Self.move(20, 20)), "hovering uses no event")
            XCTAssertTrue(router.hoveredControl === scene.button)
            XCTAssertTrue(router.wantsHandCursor)
            router.handle(Self.move(30, 25))  // over the label, inside the button
            XCTAssertTrue(router.hoveredControl === scene.button)
            router.handle(Self.move(160, 20))  // a plain node
            XCTAssertNil(router.hoveredControl)
            XCTAssertFalse(router.wantsHandCursor)
            router.handle(Self.move(20, 110))  // the disabled control
            XCTAssertNil(router.hoveredControl)
            XCTAssertFalse(router.wantsHandCursor)
            router.handle(Self.move(20, 20))
            XCTAssertTrue(router.wantsHandCursor)
            XCTAssertFalse(router.handle(.pointerExited))
            XCTAssertNil(router.hoveredControl)
            XCTAssertNil(router.pointerLocation)
            XCTAssertFalse(router.wantsHandCursor)
            // Disabled while hovered: no hand.
            router.handle(Self.move(20, 20))
            scene.button.isEnabled = false
            XCTAssertFalse(router.wantsHandCursor)
        }
    }

    func testAClickOnAControlIsUsedAndDeliversDownThenUpInside() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            XCTAssertTrue(router.handle(Self.down(30, 25)))
            XCTAssertTrue(router.trackedControl === scene.button)
            XCTAssertTrue(scene.button.isHighlighted)
            XCTAssertTrue(router.handle(Self.up(31, 25)))
            XCTAssertNil(router.trackedControl)
            XCTAssertFalse(scene.button.isHighlighted)
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchUpInside])
            // The control got points in its own coordinates.
            XCTAssertTrue(scene.button.log.entries.contains(.begin(CGPoint(x: 20, y: 15), 1)))
            XCTAssertTrue(scene.button.log.entries.contains(.end(CGPoint(x: 21, y: 15))))
        }
    }

    func testEventsThatHitNoControlAreLeftToTheApp() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            XCTAssertFalse(router.handle(Self.down(160, 20)))  // a plain node: the app may scroll
            XCTAssertFalse(router.handle(Self.move(170, 20)))
            XCTAssertFalse(router.handle(Self.up(170, 20)))
            XCTAssertFalse(router.handle(Self.down(20, 110)))  // a disabled control
            XCTAssertFalse(router.handle(Self.up(20, 110)))
            XCTAssertFalse(router.handle(Self.down(500, 500)))  // outside the root
            XCTAssertFalse(router.handle(.wheel(WheelEvent(kind: .clicks, deltaY: 1, time: 0))))
            XCTAssertFalse(router.handle(.key(KeyEvent(key: .space))))
            XCTAssertEqual(scene.disabled.log.events, [])
            XCTAssertNil(router.trackedControl)
        }
    }

    func testOnlyTheLeftButtonTracks() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            XCTAssertFalse(router.handle(Self.down(30, 25, .right)))
            XCTAssertFalse(router.handle(Self.up(30, 25, .right)))
            XCTAssertFalse(router.handle(Self.down(30, 25, .middle)))
            XCTAssertEqual(scene.button.log.events, [])
            XCTAssertNil(router.trackedControl)
        }
    }

    func testDraggingOutAndBackThenReleasingOutside() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25))
            XCTAssertTrue(router.handle(Self.move(130, 25)))  // 20 pt right of the button: still highlighted
            XCTAssertTrue(scene.button.isHighlighted)
            XCTAssertTrue(router.handle(Self.move(200, 25)))  // over the panel, far out
            XCTAssertFalse(scene.button.isHighlighted)
            XCTAssertTrue(router.handle(Self.move(40, 25)))  // back
            XCTAssertTrue(scene.button.isHighlighted)
            XCTAssertTrue(router.handle(Self.move(200, 200)))
            XCTAssertTrue(router.handle(Self.up(200, 200)))  // the up goes to the tracked control
            XCTAssertEqual(
                scene.button.log.events,
                [
                    .touchDown, .touchDragOutside, .touchDragOutside,
                    .touchDragInside, .touchDragOutside, .touchUpOutside,
                ])
            XCTAssertNil(router.trackedControl)
            XCTAssertFalse(router.handle(Self.move(210, 200)))
        }
    }

    func testLeavingTheWindowOrASecondDownCancels() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25))
            XCTAssertTrue(router.handle(.pointerExited))
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertFalse(scene.button.isHighlighted)
            XCTAssertNil(router.trackedControl)
            XCTAssertFalse(router.handle(Self.up(30, 25)), "the cancelled press's up is not the router's")

            scene.button.log.clear()
            router.handle(Self.down(30, 25))
            XCTAssertTrue(router.handle(Self.down(35, 25)))  // a lost up: the second down cancels
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertFalse(router.handle(Self.up(35, 25)))

            scene.button.log.clear()
            router.handle(Self.down(30, 25))
            XCTAssertTrue(router.handle(Self.down(30, 25, .right)))  // another button during the press
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertFalse(router.handle(Self.up(30, 25, .right)))
            XCTAssertFalse(router.handle(Self.up(30, 25)))
        }
    }

    func testATrackedControlLeavingTheTreeIsCancelled() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25))
            scene.button.removeFromSupernode()
            XCTAssertTrue(router.handle(Self.move(31, 25)))  // noticed at the next event
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertNil(router.trackedControl)
            XCTAssertFalse(router.handle(Self.up(31, 25)))

            // revalidate() notices it without an event.
            let other = Scene()
            let router2 = NodeInputRouter(rootNode: other.root)
            router2.handle(Self.down(30, 25))
            other.button.removeFromSupernode()
            router2.revalidate()
            XCTAssertEqual(other.button.log.events, [.touchDown, .touchCancel])
            XCTAssertNil(router2.hoveredControl)
        }
    }

    func testADownAfterTheTrackedControlLeftTheTreeCancelsItAndStartsANewPress() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25))
            scene.button.removeFromSupernode()
            let replacement = LoggingControl()
            replacement.frame = CGRect(x: 10, y: 10, width: 100, height: 40)
            scene.root.addSubnode(replacement)
            XCTAssertTrue(router.handle(Self.down(30, 25)))
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertEqual(replacement.log.events, [.touchDown])
            XCTAssertTrue(router.trackedControl === replacement)
        }
    }

    func testAControlThatStopsTrackingByItselfIsForgotten() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25))
            scene.button.isEnabled = false  // cancels its own press
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertFalse(router.handle(Self.move(31, 25)))
            XCTAssertNil(router.trackedControl)

            let other = Scene()
            let router2 = NodeInputRouter(rootNode: other.root)
            other.button.refuseContinue.withLock { $0 = true }
            router2.handle(Self.down(30, 25))
            XCTAssertTrue(router2.handle(Self.move(31, 25)))  // the refused move was still the press's
            XCTAssertNil(router2.trackedControl)
            XCTAssertFalse(router2.handle(Self.up(31, 25)))
            XCTAssertEqual(other.button.log.events, [.touchDown])
        }
    }

    func testARefusedBeginLeavesTheEventToTheApp() {
        MainActor.assumeIsolated {
            let scene = Scene()
            scene.button.refuseBegin.withLock { $0 = true }
            let router = NodeInputRouter(rootNode: scene.root)
            XCTAssertFalse(router.handle(Self.down(30, 25)))
            XCTAssertNil(router.trackedControl)
            XCTAssertTrue(router.hoveredControl === scene.button)
        }
    }

    func testADoubleClickSendsTouchDownRepeat() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25, clicks: 1))
            router.handle(Self.up(30, 25))
            router.handle(Self.down(30, 25, clicks: 2))
            router.handle(Self.up(30, 25))
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchUpInside, .touchDownRepeat, .touchUpInside])
        }
    }

    func testALayerBackedOrNonInteractiveSubnodeGivesTheHitToItsControl() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            XCTAssertTrue(router.node(at: CGPoint(x: 30, y: 25)) === scene.label)
            scene.label.isLayerBacked = true
            XCTAssertTrue(router.node(at: CGPoint(x: 30, y: 25)) === scene.button)
            XCTAssertTrue(router.control(at: CGPoint(x: 30, y: 25)) === scene.button)
            // A control inside a control: the nearest one wins.
            let inner = LoggingControl()
            inner.frame = CGRect(x: 60, y: 0, width: 40, height: 40)
            scene.button.addSubnode(inner)
            XCTAssertTrue(router.control(at: CGPoint(x: 80, y: 25)) === inner)
            inner.isEnabled = false  // refuses the pointer: the outer control takes it
            XCTAssertTrue(router.control(at: CGPoint(x: 80, y: 25)) === scene.button)
        }
    }

    func testWindowPointsAreMappedToTheRootByTheClosure() {
        MainActor.assumeIsolated {
            let scene = Scene()
            scene.root.frame = CGRect(x: 5, y: 0, width: 300, height: 300)
            // The root sits in content scrolled up by 100 pt.
            let router = NodeInputRouter(rootNode: scene.root) { CGPoint(x: $0.x, y: $0.y + 100) }
            XCTAssertNil(router.control(at: CGPoint(x: 35, y: 25)))
            XCTAssertTrue(router.control(at: CGPoint(x: 35, y: -75)) === scene.button)
            router.handle(Self.down(35, -75))
            router.handle(Self.up(35, -75))
            XCTAssertTrue(scene.button.log.entries.contains(.begin(CGPoint(x: 20, y: 15), 1)))
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchUpInside])
        }
    }

    func testWithoutAClosureALoadedRootIsPlacedWhereItsLayerIs() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let window = Layer(frame: CGRect(x: 0, y: 0, width: 800, height: 600))
            let scroller = Layer(frame: CGRect(x: 100, y: 0, width: 400, height: 600))
            scroller.boundsOrigin = CGPoint(x: 0, y: 50)
            window.addSublayer(scroller)
            scroller.addSublayer(scene.root.layer)
            let router = NodeInputRouter(rootNode: scene.root)
            // The button's (20, 15) is at window (100 + 10 + 20, -50 + 10 + 15).
            XCTAssertTrue(router.control(at: CGPoint(x: 130, y: -25)) === scene.button)
            XCTAssertNil(router.control(at: CGPoint(x: 30, y: 25)))
            // Not loaded: window coordinates.
            let plain = Scene()
            XCTAssertTrue(NodeInputRouter(rootNode: plain.root).control(at: CGPoint(x: 30, y: 25)) === plain.button)
        }
    }

    func testRevalidateUpdatesTheHoverAfterTheTreeMoved() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.move(30, 25))
            XCTAssertTrue(router.wantsHandCursor)
            scene.button.frame = CGRect(x: 10, y: 200, width: 100, height: 40)  // scrolled away
            XCTAssertTrue(router.wantsHandCursor, "nothing noticed yet")
            router.revalidate()
            XCTAssertNil(router.hoveredControl)
            XCTAssertFalse(router.wantsHandCursor)
            scene.button.frame = CGRect(x: 10, y: 10, width: 100, height: 40)
            router.revalidate()
            XCTAssertTrue(router.hoveredControl === scene.button)
        }
    }

    func testChangingTheRootCancelsAndClearsTheHover() {
        MainActor.assumeIsolated {
            let scene = Scene()
            let router = NodeInputRouter(rootNode: scene.root)
            router.handle(Self.down(30, 25))
            router.rootNode = DisplayNode()
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
            XCTAssertNil(router.hoveredControl)
            XCTAssertNil(router.trackedControl)
            router.cancelTracking()  // nothing to cancel
            XCTAssertEqual(scene.button.log.events, [.touchDown, .touchCancel])
        }
    }
}
