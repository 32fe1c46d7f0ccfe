import Foundation
import XCTest
@testable import Canopy

final class ScrollControllerTests: XCTestCase {
    private func controller(content: CGFloat = 10_000) -> ScrollController {
        var c = ScrollController()
        c.setGeometry(viewport: CGRect(x: 0, y: 0, width: 1000, height: 800), contentHeight: content)
        return c
    }

    private func settle(_ c: inout ScrollController, from start: TimeInterval) -> TimeInterval {
        var t = start
        repeat { t += 1.0 / 60; c.step(to: t) } while c.physics.isAnimating && t - start < 20
        return t
    }

    func testWheelClicksScrollByAHundredPointsEach() {
        var c = controller()
        c.handle(.wheel(WheelEvent(kind: .clicks, deltaY: 3, time: 0)), at: 0)
        _ = settle(&c, from: 0)
        XCTAssertEqual(c.offset, 300)
    }

    func testDragScrollsWithThePointerAndFlingsOnRelease() {
        var c = controller()
        c.physics.setOffset(5000, at: 0)
        XCTAssertFalse(c.handle(.pointerDown(.left, CGPoint(x: 500, y: 600), clickCount: 1), at: 0))
        XCTAssertFalse(c.handle(.pointerMoved(CGPoint(x: 500, y: 598)), at: 0.005), "within the slop it is still a click")
        for i in 1...10 {
            XCTAssertTrue(c.handle(.pointerMoved(CGPoint(x: 500, y: 600 - CGFloat(i) * 15)), at: Double(i) * 0.01))
        }
        XCTAssertEqual(c.offset, 5150, accuracy: 0.001, "the content follows the pointer")
        XCTAssertTrue(c.isDragging)
        XCTAssertTrue(c.handle(.pointerUp(.left, CGPoint(x: 500, y: 450)), at: 0.1))
        _ = settle(&c, from: 0.1)
        // 1500 pt/s released: about 750 pt more.
        XCTAssertEqual(c.offset - 5150, 1500 / (1000 * -log(0.998)), accuracy: 40)
    }

    func testDraggingTheThumbMapsTheTrackToTheContent() {
        var c = controller()
        let viewport = c.viewport
        let thumb = c.indicator.thumbRect(viewport: viewport, physics: c.physics)!
        XCTAssertEqual(thumb.height, (800 - 6) * 800 / 10_000 < 36 ? 36 : (800 - 6) * 800 / 10_000, accuracy: 0.01)
        let grab = CGPoint(x: thumb.midX, y: thumb.midY)
        XCTAssertTrue(c.handle(.pointerDown(.left, grab, clickCount: 1), at: 0))
        XCTAssertTrue(c.indicator.isDragging)
        XCTAssertTrue(c.handle(.pointerMoved(CGPoint(x: grab.x, y: grab.y + 2000)), at: 0.1))
        XCTAssertEqual(c.offset, c.physics.maxOffset, "dragging past the end stops at the end")
        XCTAssertTrue(c.handle(.pointerMoved(CGPoint(x: grab.x, y: grab.y + 100)), at: 0.2))
        let track = c.indicator.trackRect(viewport: viewport)
        let newThumb = c.indicator.thumbRect(viewport: viewport, physics: c.physics)!
        XCTAssertEqual(c.offset, 100 * c.physics.maxOffset / (track.height - newThumb.height), accuracy: 0.5)
        XCTAssertTrue(c.handle(.pointerUp(.left, grab), at: 0.3))
        XCTAssertFalse(c.indicator.isDragging)
    }

    func testClickingTheTrackPagesTowardThePointer() {
        var c = controller()
        XCTAssertTrue(c.handle(.pointerDown(.left, CGPoint(x: 995, y: 700), clickCount: 1), at: 0))
        _ = settle(&c, from: 0)
        XCTAssertEqual(c.offset, c.pageLength)
    }

    func testKeys() {
        var c = controller()
        c.handle(.key(KeyEvent(key: .end)), at: 0)
        var t = settle(&c, from: 0)
        XCTAssertEqual(c.offset, 9200)
        c.handle(.key(KeyEvent(key: .space, modifiers: .shift)), at: t)
        t = settle(&c, from: t)
        XCTAssertEqual(c.offset, 9200 - 760)
        c.handle(.key(KeyEvent(key: .up)), at: t)
        t = settle(&c, from: t)
        XCTAssertEqual(c.offset, 9200 - 760 - 60)
        c.handle(.key(KeyEvent(key: .home)), at: t)
        t = settle(&c, from: t)
        XCTAssertEqual(c.offset, 0)
        c.handle(.key(KeyEvent(key: .pageDown)), at: t)
        _ = settle(&c, from: t)
        XCTAssertEqual(c.offset, 760)
    }

    func testTheScrollbarShowsWhileScrollingThenFades() {
        var c = controller()
        c.handle(.wheel(WheelEvent(kind: .clicks, deltaY: 1, time: 0)), at: 0)
        let end = settle(&c, from: 0)
        XCTAssertEqual(c.indicator.opacity(at: end + 0.5, physics: c.physics), 1)
        XCTAssertTrue(c.needsFrames(at: end + 0.5), "frames continue while it will fade")
        let half = c.indicator.opacity(
            at: end + ScrollIndicator.holdDuration + ScrollIndicator.fadeDuration / 2, physics: c.physics)
        XCTAssertGreaterThan(half, 0.3)
        XCTAssertLessThan(half, 0.7)
        XCTAssertEqual(c.indicator.opacity(at: end + 2, physics: c.physics), 0)
        XCTAssertFalse(c.needsFrames(at: end + 2))
        c.handle(.pointerMoved(CGPoint(x: 995, y: 100)), at: end + 3)
        XCTAssertEqual(c.indicator.opacity(at: end + 3, physics: c.physics), 1, "hovering the edge shows it")
    }

    func testNoScrollbarWhenEverythingFits() {
        let c = controller(content: 500)
        XCTAssertNil(c.indicator.thumbRect(viewport: c.viewport, physics: c.physics))
        XCTAssertEqual(c.indicator.opacity(at: 0, physics: c.physics), 0)
    }
}
