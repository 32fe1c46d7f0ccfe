import Foundation
import XCTest
@testable import Canopy

final class ScrollPhysicsTests: XCTestCase {
    private let frame = 1.0 / 60.0

    /// Steps at 60 Hz from `start` until the motion stops (or `limit` seconds); returns the
    /// offsets seen and the time it stopped.
    private func run(_ physics: inout ScrollPhysics, from start: TimeInterval, limit: TimeInterval = 20) -> (
        offsets: [CGFloat], end: TimeInterval
    ) {
        var t = start
        var offsets: [CGFloat] = []
        while t - start < limit {
            t += frame
            let moving = physics.step(to: t)
            offsets.append(physics.offset)
            if !moving { break }
        }
        return (offsets, t)
    }

    func testFlingDistanceMatchesTheDecelerationFormula() {
        for velocity in [300.0, 1500.0, 4000.0, -2500.0] as [CGFloat] {
            var physics = ScrollPhysics(contentLength: 1_000_000, viewportLength: 800)
            physics.setOffset(500_000, at: 0)
            physics.fling(velocity: velocity, at: 0)
            _ = run(&physics, from: 0)
            // Velocity keeps 0.998 of itself per millisecond: the distance is the sum of a
            // geometric series, v / 1000 * 1 / (1 - 0.998) per ms, or v / (1000 * -ln 0.998)
            // continuously.
            let expected = velocity / (1000 * -log(0.998))
            let travelled = physics.offset - 500_000
            XCTAssertEqual(travelled, expected, accuracy: abs(expected) * 0.01, "velocity \(velocity)")
            XCTAssertEqual(physics.motion, .idle)
        }
    }

    func testFlingSlowsByTheRatePerMillisecond() {
        var physics = ScrollPhysics(contentLength: 1_000_000, viewportLength: 800)
        physics.setOffset(1000, at: 0)
        physics.fling(velocity: 2000, at: 0)
        physics.step(to: 0.100)
        let a = physics.offset
        physics.step(to: 0.101)
        let b = physics.offset
        // Over the millisecond after 100 ms the content moves about v * 0.998^100 / 1000.
        XCTAssertEqual(b - a, 2000 * pow(0.998, 100) / 1000, accuracy: 0.01)
    }

    func testRubberBandIsBoundedAndMonotonic() {
        var previous: CGFloat = 0
        for pull in stride(from: 10 as CGFloat, through: 100_000, by: 997) {
            let banded = RubberBand.offset(forOverscroll: pull, dimension: 800)
            XCTAssertLessThan(banded, 800)
            XCTAssertLessThan(banded, pull)
            XCTAssertGreaterThan(banded, previous)
            previous = banded
            XCTAssertEqual(RubberBand.overscroll(forOffset: banded, dimension: 800), pull, accuracy: pull * 1e-6)
        }
        XCTAssertEqual(RubberBand.offset(forOverscroll: -100, dimension: 800), -100 * 800 * 0.55 / (800 + 55))
    }

    func testDragPastTheTopStretchesThenSpringsBack() {
        var physics = ScrollPhysics(contentLength: 5000, viewportLength: 800)
        physics.beginDrag(at: 0)
        for i in 1...50 { physics.drag(by: -200, at: Double(i) * 0.01) }  // 10,000 pt of pull
        XCTAssertLessThan(physics.offset, 0)
        XCTAssertGreaterThan(physics.offset, -800, "the band never stretches past the viewport")
        // Rest the pointer, then let go: no fling, just the spring back.
        physics.endDrag(at: 1.0)
        let (offsets, end) = run(&physics, from: 1.0, limit: 3)
        XCTAssertEqual(physics.offset, 0)
        XCTAssertEqual(physics.motion, .idle)
        XCTAssertLessThan(end - 1.0, 1.5, "springs back within a second and a half")
        XCTAssertTrue(offsets.allSatisfy { $0 <= 0.5 }, "the spring does not overshoot into the content")
        XCTAssertGreaterThan(offsets.count, 5, "the return is animated")
    }

    func testFlingIntoTheEndBouncesBoundedAndSettlesAtTheEdge() {
        var physics = ScrollPhysics(contentLength: 5000, viewportLength: 800)
        physics.setOffset(4000, at: 0)
        physics.fling(velocity: 9000, at: 0)
        let (offsets, _) = run(&physics, from: 0)
        let peak = offsets.max()!
        XCTAssertGreaterThan(peak, 4200, "it overshoots the end")
        XCTAssertLessThanOrEqual(peak, 4200 + 800 * 0.25 + 1, "by at most a quarter of the viewport")
        XCTAssertEqual(physics.offset, 4200)
    }

    func testAWheelClickAnimatesOverSeveralFramesAndLandsExactly() {
        var physics = ScrollPhysics(contentLength: 5000, viewportLength: 800)
        physics.scrollAnimated(by: 100, at: 0)
        let (offsets, end) = run(&physics, from: 0)
        let between = offsets.filter { $0 > 0 && $0 < 100 }
        XCTAssertGreaterThanOrEqual(between.count, 5, "several in-between frames, not a jump")
        XCTAssertEqual(offsets, offsets.sorted(), "it moves one way only")
        XCTAssertEqual(physics.offset, 100, "lands exactly")
        XCTAssertLessThan(end, 0.25)
    }

    func testQuickClicksAccumulateIntoOneMovement() {
        var physics = ScrollPhysics(contentLength: 5000, viewportLength: 800)
        physics.scrollAnimated(by: 100, at: 0)
        physics.step(to: 0.05)
        physics.scrollAnimated(by: 100, at: 0.05)
        physics.step(to: 0.1)
        physics.scrollAnimated(by: 100, at: 0.1)
        _ = run(&physics, from: 0.1)
        XCTAssertEqual(physics.offset, 300)
    }

    func testClicksStopAtTheEnds() {
        var physics = ScrollPhysics(contentLength: 1000, viewportLength: 800)
        for i in 0..<5 { physics.scrollAnimated(by: 100, at: Double(i) * 0.01) }
        _ = run(&physics, from: 0.05)
        XCTAssertEqual(physics.offset, 200)
        physics.scrollAnimated(by: -1000, at: 2)
        _ = run(&physics, from: 2)
        XCTAssertEqual(physics.offset, 0)
    }

    func testPreciseDeltasApplyDirectlyAndFlingWhenTheyStop() {
        var physics = ScrollPhysics(contentLength: 100_000, viewportLength: 800)
        physics.setOffset(1000, at: 0)
        // A trackpad: 10 pt every 10 ms (1000 pt/s) for 150 ms.
        for i in 1...15 { physics.scroll(byPrecise: 10, at: Double(i) * 0.01) }
        XCTAssertEqual(physics.offset, 1150, "precise deltas move the content at once")
        physics.step(to: 0.16)
        XCTAssertEqual(physics.offset, 1150, "no fling while the deltas may still come")
        let _ = run(&physics, from: 0.16)
        let expectedFling = 1000 / (1000 * -log(0.998))
        XCTAssertEqual(physics.offset - 1150, expectedFling, accuracy: expectedFling * 0.05)
    }

    func testSlowPreciseDeltasDoNotFling() {
        var physics = ScrollPhysics(contentLength: 100_000, viewportLength: 800)
        physics.setOffset(1000, at: 0)
        for i in 1...10 { physics.scroll(byPrecise: 0.2, at: Double(i) * 0.02) }  // 10 pt/s
        _ = run(&physics, from: 0.2)
        XCTAssertEqual(physics.offset, 1002, accuracy: 0.001)
    }

    func testResizingKeepsTheOffsetInBounds() {
        var physics = ScrollPhysics(contentLength: 5000, viewportLength: 800)
        physics.setOffset(4200, at: 0)
        physics.setLengths(content: 3000, viewport: 800)
        physics.step(to: 0.1)
        XCTAssertEqual(physics.offset, 2200)
    }

    func testVelocityTrackerUsesOnlyRecentMovements() {
        var tracker = VelocityTracker(window: 0.15)
        for i in 0..<20 { tracker.add(delta: 5, at: Double(i) * 0.01) }  // 500 pt/s
        XCTAssertEqual(tracker.velocity, 500, accuracy: 1)
        for i in 20..<40 { tracker.add(delta: 20, at: Double(i) * 0.01) }  // then 2000 pt/s
        XCTAssertEqual(tracker.velocity, 2000, accuracy: 1, "older movements have left the window")
        var pair = VelocityTracker()
        pair.add(delta: 10, at: 1.00)
        pair.add(delta: 10, at: 1.01)
        XCTAssertEqual(pair.velocity, 1000, accuracy: 1e-6, "two movements give their exact rate")
        var single = VelocityTracker()
        single.add(delta: 50, at: 1)
        XCTAssertEqual(single.velocity, 0, "one movement alone has no velocity")
    }
}
