import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// A leaf node with content of a settable size (like text), counting `didLoad`.
private final class ContentNode: DisplayNode, @unchecked Sendable {
    private let content = Mutex(CGSize.zero)
    let loads = Mutex(0)

    init(_ width: CGFloat, _ height: CGFloat) {
        super.init()
        content.withLock { $0 = CGSize(width: width, height: height) }
    }

    var contentSize: CGSize {
        get { content.withLock { $0 } }
        set { content.withLock { $0 = newValue }; setNeedsLayout() }
    }

    override func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize { contentSize }

    @MainActor override func didLoad() {
        super.didLoad()
        loads.withLock { $0 += 1 }
    }
}

final class DisplayNodeTests: XCTestCase {
    func testAnyThreadConfiguresAnUnloadedNodeAndTheLayerGetsItAllOnLoad() {
        let node = DisplayNode()
        let child = ContentNode(10, 10)
        let configured = DispatchSemaphore(value: 0)
        Thread {
            node.frame = CGRect(x: 1, y: 2, width: 30, height: 40)
            node.backgroundColor = .white
            node.borderColor = .black
            node.borderWidth = 2
            node.cornerRadius = 4
            node.clipsToBounds = true
            node.alpha = 0.5
            node.addSubnode(child)
            configured.signal()
        }.start()
        XCTAssertEqual(configured.wait(timeout: HangGuard.deadline), .success)
        XCTAssertFalse(node.isNodeLoaded)
        MainActor.assumeIsolated {
            let layer = node.layer
            XCTAssertTrue(node.isNodeLoaded)
            XCTAssertEqual(layer.frame, CGRect(x: 1, y: 2, width: 30, height: 40))
            XCTAssertEqual(layer.backgroundColor, .white)
            XCTAssertEqual(layer.borderColor, .black)
            XCTAssertEqual(layer.borderWidth, 2)
            XCTAssertEqual(layer.cornerRadius, 4)
            XCTAssertTrue(layer.clipsToBounds)
            XCTAssertEqual(layer.alpha, 0.5)
            // The subnode's layer was loaded with it, once.
            XCTAssertTrue(layer.sublayers.first === child.layer)
            XCTAssertEqual(child.loads.withLock { $0 }, 1)
            _ = child.layer
            XCTAssertEqual(child.loads.withLock { $0 }, 1)
        }
    }

    func testALoadedNodeAppliesMainThreadChangesToItsLayer() {
        MainActor.assumeIsolated {
            let node = DisplayNode()
            let layer = node.layer
            node.frame = CGRect(x: 0, y: 0, width: 5, height: 6)
            node.isHidden = true
            node.position = CGPoint(x: 10, y: 10)
            XCTAssertEqual(layer.frame, CGRect(x: 7.5, y: 7, width: 5, height: 6))
            XCTAssertTrue(layer.isHidden)
            XCTAssertEqual(node.bounds, CGRect(x: 0, y: 0, width: 5, height: 6))
        }
    }

    func testChangingALoadedNodeOffTheMainThreadIsReported() {
        let reports = Mutex<[String]>([])
        let saved = DisplayNode.threadAffinityViolation
        DisplayNode.threadAffinityViolation = { message in reports.withLock { $0.append(message) } }
        defer { DisplayNode.threadAffinityViolation = saved }

        let node = DisplayNode()
        let done = DispatchSemaphore(value: 0)
        // Before loading, any thread may change it: no report.
        Thread {
            node.alpha = 0.3; done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
        XCTAssertTrue(reports.withLock { $0.isEmpty })

        MainActor.assumeIsolated { _ = node.layer }
        Thread {
            node.alpha = 0.7; node.addSubnode(DisplayNode()); done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
        let messages = reports.withLock { $0 }
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(messages[0].hasPrefix("Incorrect display node thread affinity"), messages[0])
        XCTAssertTrue(messages[0].contains("alpha"))
        XCTAssertTrue(messages[1].contains("subnodes"))
        // Properties that are not layer state stay free on any thread.
        Thread {
            node.hitTestSlop = EdgeInsets(all: -8); node.isOpaque = true; done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
        XCTAssertEqual(reports.withLock { $0.count }, 2)
    }

    func testSubnodesAndTheirLayersStayInStep() {
        MainActor.assumeIsolated {
            let parent = DisplayNode(), a = DisplayNode(), b = DisplayNode(), c = DisplayNode()
            parent.addSubnode(a)
            parent.addSubnode(c)
            parent.insertSubnode(b, at: 1)
            XCTAssertEqual(parent.subnodes.map(ObjectIdentifier.init), [a, b, c].map(ObjectIdentifier.init))
            XCTAssertTrue(b.supernode === parent)
            let layer = parent.layer
            XCTAssertEqual(layer.sublayers.map(ObjectIdentifier.init), [a.layer, b.layer, c.layer].map(ObjectIdentifier.init))
            b.removeFromSupernode()
            XCTAssertNil(b.supernode)
            XCTAssertNil(b.layer.superlayer)
            XCTAssertEqual(layer.sublayers.count, 2)
            // Moving a node to another parent takes it out of the first.
            let other = DisplayNode()
            other.addSubnode(a)
            XCTAssertEqual(parent.subnodes.count, 1)
            XCTAssertTrue(a.supernode === other)
            XCTAssertTrue(parent.layer.sublayers.first === c.layer)
        }
    }

    func testALeafIsSizedByItsContentAndStyle() {
        let leaf = ContentNode(40, 20)
        XCTAssertEqual(
            leaf.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 100, height: 100))).size,
            CGSize(width: 40, height: 20))
        leaf.style.minWidth = .points(60)
        XCTAssertEqual(
            leaf.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 100, height: 100))).size,
            CGSize(width: 60, height: 20))
        // New content: setNeedsLayout makes the next measurement see it.
        leaf.contentSize = CGSize(width: 80, height: 30)
        XCTAssertEqual(
            leaf.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 100, height: 100))).size,
            CGSize(width: 80, height: 30))
    }

    func testASpecBlockLaysOutSubnodesThroughSpecsAndApplyLayoutPlacesThem() {
        let card = DisplayNode()
        let title = ContentNode(100, 20), body = ContentNode(80, 50)
        card.automaticallyManagesSubnodes = true
        card.layoutSpecBlock = { _, _ in
            InsetLayoutSpec(
                insets: EdgeInsets(top: 10, left: 12, bottom: 10, right: 12),
                child: StackLayoutSpec(
                    direction: .vertical, spacing: 5, alignItems: .start,
                    children: [title, body]))
        }
        let layout = card.layoutThatFits(
            SizeRange(
                min: CGSize(width: 200, height: 0),
                max: CGSize(width: 200, height: CGFloat.infinity)))
        // Insets 12 + 12 across, 10 + 10 down; column 20 + 5 + 50 = 75 → 200 × 95.
        XCTAssertEqual(layout.size, CGSize(width: 200, height: 95))
        // The specs are flattened away: the card's sublayouts are its two nodes, relative to it.
        XCTAssertEqual(layout.sublayouts.count, 2)
        XCTAssertTrue(layout.sublayouts[0].element === title)
        XCTAssertEqual(layout.sublayouts[0].frame, CGRect(x: 12, y: 10, width: 100, height: 20))
        XCTAssertEqual(layout.sublayouts[1].frame, CGRect(x: 12, y: 35, width: 80, height: 50))

        XCTAssertTrue(card.subnodes.isEmpty)
        card.applyLayout(layout)
        // Automatic subnode management added both, in layout order, and placed them.
        XCTAssertEqual(card.subnodes.map(ObjectIdentifier.init), [title, body].map(ObjectIdentifier.init))
        XCTAssertEqual(title.frame, CGRect(x: 12, y: 10, width: 100, height: 20))
        XCTAssertEqual(body.frame, CGRect(x: 12, y: 35, width: 80, height: 50))
        XCTAssertTrue(card.calculatedLayout === layout)
    }

    func testAutomaticSubnodesFollowTheSpecWhenItChanges() {
        let node = DisplayNode()
        let a = ContentNode(10, 10), b = ContentNode(20, 10)
        let showsB = Mutex(true)
        node.automaticallyManagesSubnodes = true
        node.layoutSpecBlock = { _, _ in
            StackLayoutSpec(children: showsB.withLock { $0 } ? [a, b] : [a])
        }
        node.applyLayout(node.layoutThatFits(.unconstrained))
        XCTAssertEqual(node.subnodes.count, 2)
        showsB.withLock { $0 = false }
        node.setNeedsLayout()
        node.applyLayout(node.layoutThatFits(.unconstrained))
        XCTAssertEqual(node.subnodes.map(ObjectIdentifier.init), [ObjectIdentifier(a)])
        XCTAssertNil(b.supernode)
    }

    func testASpecThatIsANodeItselfBecomesTheOnlySublayout() {
        let wrapper = DisplayNode()
        let inner = DisplayNode()
        let leaf = ContentNode(10, 10)
        inner.layoutSpecBlock = { _, _ in StackLayoutSpec(children: [leaf]) }
        wrapper.layoutSpecBlock = { _, _ in inner }
        let layout = wrapper.layoutThatFits(.unconstrained)
        XCTAssertEqual(layout.sublayouts.count, 1)
        XCTAssertTrue(layout.sublayouts[0].element === inner)
        XCTAssertTrue(layout.sublayouts[0].sublayouts[0].element === leaf)
    }
}

/// Who keeps whom alive between nodes and their layouts (a node holds its own layout; a layout must
/// not hold its node back).
final class LayoutOwnershipTests: XCTestCase {
    func testALaidOutNodeIsReleasedWithItsLastOwner() {
        weak var released: DisplayNode?
        weak var releasedChild: DisplayNode?
        do {
            let node = DisplayNode()
            let child = DisplayNode()
            child.style.preferredSize = CGSize(width: 10, height: 10)
            node.automaticallyManagesSubnodes = true
            node.layoutSpecBlock = { _, _ in InsetLayoutSpec(insets: EdgeInsets(all: 2), child: child) }
            node.layoutAndApply(SizeRange(exactly: CGSize(width: 20, height: 20)))
            XCTAssertNotNil(node.calculatedLayout)
            XCTAssertTrue(node.subnodes.first === child)
            released = node
            releasedChild = child
        }
        XCTAssertNil(released, "its calculated layout and cached layouts do not keep it")
        XCTAssertNil(releasedChild)
    }

    func testALayoutKeepsTheNodesItPlacesUntilTheyAreApplied() {
        let node = DisplayNode()
        node.automaticallyManagesSubnodes = true
        weak var made: DisplayNode?
        // The spec makes a new node each time: only the layout holds it until applyLayout adds it.
        node.layoutSpecBlock = { _, _ in
            let fresh = DisplayNode()
            fresh.style.preferredSize = CGSize(width: 5, height: 5)
            return InsetLayoutSpec(insets: EdgeInsets(all: 1), child: fresh)
        }
        let layout = node.layoutThatFits(SizeRange(exactly: CGSize(width: 10, height: 10)))
        made = layout.sublayouts.first?.element as? DisplayNode
        XCTAssertNotNil(made, "the layout kept the fresh node alive")
        node.applyLayout(layout)
        XCTAssertTrue(node.subnodes.first === made)
        XCTAssertEqual(made?.frame, CGRect(x: 1, y: 1, width: 8, height: 8), "the inset passes the exact range on")
    }
}
