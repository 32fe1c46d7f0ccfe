import CanopyGraphics
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import Canopy

/// Asserts a layout's frame, printing the whole tree on failure.
func assertLayoutFrame(
    _ layout: Layout, _ x: CGFloat, _ y: CGFloat, _ w: CGFloat, _ h: CGFloat,
    in root: Layout? = nil, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(
        layout.frame, CGRect(x: x, y: y, width: w, height: h),
        "\n\((root ?? layout).description)", file: file, line: line)
}

final class LayoutSpecTests: XCTestCase {
    // MARK: LayoutSpec (childless)

    func testChildlessSpecIsASpacer() {
        // No style: the range's minimum.
        assertLayoutFrame(LayoutSpec().layoutThatFits(sr(4, 6, 100, 100)), 0, 0, 4, 6)
        // A fixed box.
        assertLayoutFrame(
            LayoutSpec(style: Style { $0.preferredSize = sz(30, 40) })
                .layoutThatFits(sr(0, 0, 100, 100)), 0, 0, 30, 40)
        // minWidth half of the 100-wide parent: 50.
        assertLayoutFrame(
            LayoutSpec(style: Style { $0.minWidth = .fraction(0.5) })
                .layoutThatFits(sr(0, 0, 100, 100)), 0, 0, 50, 0)
        XCTAssertTrue(LayoutSpec().layoutThatFits(.unconstrained).sublayouts.isEmpty)
    }

    // MARK: Wrapper

    func testWrapperTakesTheLargestChild() {
        let a = CountingLeaf(30, 40), b = CountingLeaf(50, 20)
        let layout = WrapperLayoutSpec(children: [a, b]).layoutThatFits(sr(0, 0, 100, 100))
        // 50 = max(30, 50), 40 = max(40, 20); both children at the origin at their own size.
        assertLayoutFrame(layout, 0, 0, 50, 40)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 30, 40, in: layout)
        assertLayoutFrame(layout.sublayouts[1], 0, 0, 50, 20, in: layout)
        XCTAssertTrue(layout.sublayouts[1].element === b)
    }

    func testWrapperPassesItsRangeToChildren() {
        let a = CountingLeaf(30, 40), b = CountingLeaf(50, 20)
        let layout = WrapperLayoutSpec(children: [a, b]).layoutThatFits(sr(60, 10, 100, 100))
        // Children get min 60×10: a 60×40, b 60×20; wrapper 60×40.
        assertLayoutFrame(layout, 0, 0, 60, 40)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 60, 40, in: layout)
        assertLayoutFrame(layout.sublayouts[1], 0, 0, 60, 20, in: layout)
    }

    func testEmptyWrapperTakesTheRangeMinimum() {
        assertLayoutFrame(WrapperLayoutSpec(children: []).layoutThatFits(sr(5, 6, 100, 100)), 0, 0, 5, 6)
    }

    // MARK: Inset

    func testInsetAddsInsetsAroundChild() {
        let spec = InsetLayoutSpec(
            insets: EdgeInsets(top: 10, left: 20, bottom: 30, right: 40),
            child: CountingLeaf(50, 50))
        let layout = spec.layoutThatFits(sr(0, 0, 200, 200))
        // 50 + 20 + 40 = 110 wide, 50 + 10 + 30 = 90 high; child at (left, top).
        assertLayoutFrame(layout, 0, 0, 110, 90)
        assertLayoutFrame(layout.sublayouts[0], 20, 10, 50, 50, in: layout)
    }

    func testInsetShrinksTheChildRange() {
        let spec = InsetLayoutSpec(
            insets: EdgeInsets(top: 10, left: 20, bottom: 30, right: 40),
            child: CountingLeaf(50, 50))
        let layout = spec.layoutThatFits(SizeRange(exactly: sz(200, 200)))
        // Child exactly 200 − 60 = 140 by 200 − 40 = 160.
        assertLayoutFrame(layout, 0, 0, 200, 200)
        assertLayoutFrame(layout.sublayouts[0], 20, 10, 140, 160, in: layout)
    }

    func testInfiniteInsetWrapsAndPushesToTheOtherEdge() {
        let spec = InsetLayoutSpec(
            insets: EdgeInsets(top: 0, left: .infinity, bottom: 0, right: 10),
            child: CountingLeaf(50, 30))
        let layout = spec.layoutThatFits(sr(100, 0, 200, 100))
        // Infinite left: no min width for the child (50 stays 50); width is the max, 200;
        // x = 200 − (10 + 50) = 140. Height 30.
        assertLayoutFrame(layout, 0, 0, 200, 30)
        assertLayoutFrame(layout.sublayouts[0], 140, 0, 50, 30, in: layout)
    }

    func testInfiniteTopInsetPushesToTheBottom() {
        let spec = InsetLayoutSpec(
            insets: EdgeInsets(top: .infinity, left: 0, bottom: 10, right: 0),
            child: CountingLeaf(50, 30))
        let layout = spec.layoutThatFits(sr(0, 50, 100, 200))
        // Height is the max, 200; y = 200 − (10 + 30) = 160. Width 50.
        assertLayoutFrame(layout, 0, 0, 50, 200)
        assertLayoutFrame(layout.sublayouts[0], 0, 160, 50, 30, in: layout)
    }

    func testInfiniteInsetOnAnUnboundedAxisCountsAsZero() {
        let spec = InsetLayoutSpec(
            insets: EdgeInsets(top: .infinity, left: 0, bottom: 10, right: 0),
            child: CountingLeaf(50, 30))
        // No finite max height: no bottom edge to push against, so the top inset is 0: 30 + 10 = 40.
        let layout = spec.layoutThatFits(sr(0, 0, 100, unbounded))
        assertLayoutFrame(layout, 0, 0, 50, 40)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 50, 30, in: layout)
        // Both infinite on that axis: both 0.
        let both = InsetLayoutSpec(
            insets: EdgeInsets(top: .infinity, left: 0, bottom: .infinity, right: 0),
            child: CountingLeaf(50, 30)
        ).layoutThatFits(sr(0, 0, 100, unbounded))
        assertLayoutFrame(both, 0, 0, 50, 30)
        assertLayoutFrame(both.sublayouts[0], 0, 0, 50, 30, in: both)
    }

    func testInfiniteInsetsOnBothSidesCentre() {
        let spec = InsetLayoutSpec(
            insets: EdgeInsets(top: 0, left: .infinity, bottom: 0, right: .infinity),
            child: CountingLeaf(50, 30))
        let layout = spec.layoutThatFits(sr(0, 0, 200, 100))
        // Centre offset (200 − 50) / 2 = 75; x = 200 − (75 + 50) = 75.
        assertLayoutFrame(layout, 0, 0, 200, 30)
        assertLayoutFrame(layout.sublayouts[0], 75, 0, 50, 30, in: layout)
    }

    // MARK: Overlay and background

    func testOverlayIsSizedToTheChildAndOnTop() {
        let child = CountingLeaf(40, 30), overlay = CountingLeaf(10, 10)
        let layout = OverlayLayoutSpec(child: child, overlay: overlay).layoutThatFits(sr(0, 0, 100, 100))
        // Overlay forced to exactly 40×30; order child, overlay.
        assertLayoutFrame(layout, 0, 0, 40, 30)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 40, 30, in: layout)
        assertLayoutFrame(layout.sublayouts[1], 0, 0, 40, 30, in: layout)
        XCTAssertTrue(layout.sublayouts[0].element === child)
        XCTAssertTrue(layout.sublayouts[1].element === overlay)
    }

    func testBackgroundIsSizedToTheChildAndBehind() {
        let child = CountingLeaf(40, 30), background = CountingLeaf(90, 90)
        let layout = BackgroundLayoutSpec(child: child, background: background)
            .layoutThatFits(sr(0, 0, 100, 100))
        // Background forced to exactly 40×30 (not its 90×90); order background, child.
        assertLayoutFrame(layout, 0, 0, 40, 30)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 40, 30, in: layout)
        XCTAssertTrue(layout.sublayouts[0].element === background)
        XCTAssertTrue(layout.sublayouts[1].element === child)
    }

    // MARK: Center

    func testCenterFillsTheMaxAndCentres() {
        let layout = CenterLayoutSpec(child: CountingLeaf(20, 10)).layoutThatFits(sr(0, 0, 100, 80))
        // (100 − 20) / 2 = 40, (80 − 10) / 2 = 35.
        assertLayoutFrame(layout, 0, 0, 100, 80)
        assertLayoutFrame(layout.sublayouts[0], 40, 35, 20, 10, in: layout)
    }

    func testCenterMinimumSizing() {
        let both = CenterLayoutSpec(sizingOptions: .minimumXY, child: CountingLeaf(20, 10))
            .layoutThatFits(sr(0, 0, 100, 80))
        assertLayoutFrame(both, 0, 0, 20, 10)
        assertLayoutFrame(both.sublayouts[0], 0, 0, 20, 10, in: both)
        let xOnly = CenterLayoutSpec(sizingOptions: .minimumX, child: CountingLeaf(20, 10))
            .layoutThatFits(sr(0, 0, 100, 80))
        // Width shrinks to 20; height stays 80, child at (80 − 10) / 2 = 35.
        assertLayoutFrame(xOnly, 0, 0, 20, 80)
        assertLayoutFrame(xOnly.sublayouts[0], 0, 35, 20, 10, in: xOnly)
    }

    func testCenterOnOneAxisStretchesTheOther() {
        let layout = CenterLayoutSpec(centeringOptions: .x, child: CountingLeaf(20, 10))
            .layoutThatFits(SizeRange(exactly: sz(100, 80)))
        // Not centred on Y: the child gets the range's min height, 80; x = (100 − 20) / 2 = 40.
        assertLayoutFrame(layout, 0, 0, 100, 80)
        assertLayoutFrame(layout.sublayouts[0], 40, 0, 20, 80, in: layout)
    }

    func testCenterOnYStretchesX() {
        let layout = CenterLayoutSpec(centeringOptions: .y, child: CountingLeaf(20, 10))
            .layoutThatFits(SizeRange(exactly: sz(100, 80)))
        // Not centred on X: the child gets the min width, 100; y = (80 − 10) / 2 = 35.
        assertLayoutFrame(layout, 0, 0, 100, 80)
        assertLayoutFrame(layout.sublayouts[0], 0, 35, 100, 10, in: layout)
    }

    func testCenterWrapsTheChildWhenUnconstrained() {
        let layout = CenterLayoutSpec(child: CountingLeaf(20, 10)).layoutThatFits(.unconstrained)
        assertLayoutFrame(layout, 0, 0, 20, 10)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 20, 10, in: layout)
    }

    // MARK: Relative

    func testRelativeEndStart() {
        let layout = RelativeLayoutSpec(
            horizontalPosition: .end, verticalPosition: .start,
            child: CountingLeaf(20, 10)
        ).layoutThatFits(sr(0, 0, 100, 80))
        // x = 100 − 20 = 80, y = 0.
        assertLayoutFrame(layout, 0, 0, 100, 80)
        assertLayoutFrame(layout.sublayouts[0], 80, 0, 20, 10, in: layout)
    }

    func testRelativeCenterEndWithMinimumHeight() {
        let layout = RelativeLayoutSpec(
            horizontalPosition: .center, verticalPosition: .end,
            sizingOptions: .minimumHeight, child: CountingLeaf(20, 10)
        )
        .layoutThatFits(sr(0, 0, 100, 80))
        // Height shrinks to 10, so end is y = 0; x = (100 − 20) / 2 = 40.
        assertLayoutFrame(layout, 0, 0, 100, 10)
        assertLayoutFrame(layout.sublayouts[0], 40, 0, 20, 10, in: layout)
    }

    // MARK: Ratio

    func testRatioFromMaxWidth() {
        let layout = RatioLayoutSpec(ratio: 0.5, child: CountingLeaf(0, 0)).layoutThatFits(sr(0, 0, 100, 100))
        // Options: 100 × 50 (ratio 0.5, exact) and 200 × 100 clamped to 100 × 100 (ratio 1): 100 × 50.
        assertLayoutFrame(layout, 0, 0, 100, 50)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 100, 50, in: layout)
    }

    func testRatioFromMaxHeight() {
        let layout = RatioLayoutSpec(ratio: 2, child: CountingLeaf(0, 0)).layoutThatFits(sr(0, 0, 100, 100))
        // Options: 100 × 200 clamped to 100 × 100 (ratio 1) and 50 × 100 (ratio 2): 50 × 100.
        assertLayoutFrame(layout, 0, 0, 50, 100)
    }

    func testRatioWithOnlyAFiniteHeight() {
        let layout = RatioLayoutSpec(ratio: 0.5, child: CountingLeaf(0, 0)).layoutThatFits(sr(0, 0, unbounded, 60))
        // Only option: 60 / 0.5 = 120 wide, 60 high.
        assertLayoutFrame(layout, 0, 0, 120, 60)
    }

    func testRatioUnconstrainedPassesTheRangeThrough() {
        let layout = RatioLayoutSpec(ratio: 0.5, child: CountingLeaf(30, 40)).layoutThatFits(.unconstrained)
        assertLayoutFrame(layout, 0, 0, 30, 40)
    }

    func testRatioThatIsNotAPositiveNumberPassesTheRangeThrough() {
        // An image of no size gives ratio 0, NaN or infinity: the child keeps its own 30×40.
        for ratio in [0, -1, CGFloat.nan, .infinity] {
            let layout = RatioLayoutSpec(ratio: ratio, child: CountingLeaf(30, 40)).layoutThatFits(sr(0, 0, 100, 100))
            assertLayoutFrame(layout, 0, 0, 30, 40)
        }
    }

    // MARK: Absolute

    private func absoluteChildren() -> [any LayoutElement] {
        [
            CountingLeaf(
                0, 0,
                style: Style {
                    $0.preferredSize = sz(20, 30); $0.layoutPosition = CGPoint(x: 10, y: 5)
                }),
            CountingLeaf(40, 10, style: Style { $0.layoutPosition = CGPoint(x: 50, y: 60) }),
        ]
    }

    func testAbsoluteDefaultTakesTheMaxSize() {
        let layout = AbsoluteLayoutSpec(children: absoluteChildren()).layoutThatFits(sr(0, 0, 200, 100))
        assertLayoutFrame(layout, 0, 0, 200, 100)
        assertLayoutFrame(layout.sublayouts[0], 10, 5, 20, 30, in: layout)
        assertLayoutFrame(layout.sublayouts[1], 50, 60, 40, 10, in: layout)
    }

    func testAbsoluteSizeToFit() {
        let layout = AbsoluteLayoutSpec(sizing: .sizeToFit, children: absoluteChildren())
            .layoutThatFits(sr(0, 0, 200, 100))
        // Width max(10 + 20, 50 + 40) = 90; height max(5 + 30, 60 + 10) = 70.
        assertLayoutFrame(layout, 0, 0, 90, 70)
        // Unconstrained, default sizing wraps too.
        assertLayoutFrame(AbsoluteLayoutSpec(children: absoluteChildren()).layoutThatFits(.unconstrained), 0, 0, 90, 70)
    }

    func testAbsoluteChildMaxIsWhatIsLeftPastItsPosition() {
        let wide = CountingLeaf(300, 300, style: Style { $0.layoutPosition = CGPoint(x: 50, y: 60) })
        let layout = AbsoluteLayoutSpec(children: [wide]).layoutThatFits(sr(0, 0, 200, 100))
        // 200 − 50 = 150 wide, 100 − 60 = 40 high.
        assertLayoutFrame(layout.sublayouts[0], 50, 60, 150, 40, in: layout)
    }

    // MARK: Corner

    func testCornerTopRightOverflowsByDefault() {
        let layout = CornerLayoutSpec(child: CountingLeaf(100, 50), corner: CountingLeaf(20, 20), location: .topRight)
            .layoutThatFits(sr(0, 0, 300, 300))
        // Corner centred on (100, 0): (90, −10). Size is the child's.
        assertLayoutFrame(layout, 0, 0, 100, 50)
        assertLayoutFrame(layout.sublayouts[0], 0, 0, 100, 50, in: layout)
        assertLayoutFrame(layout.sublayouts[1], 90, -10, 20, 20, in: layout)
    }

    func testCornerWrapsCorner() {
        let layout = CornerLayoutSpec(
            child: CountingLeaf(100, 50), corner: CountingLeaf(20, 20),
            location: .topRight, wrapsCorner: true
        )
        .layoutThatFits(sr(0, 0, 300, 300))
        // Union of (0, 0, 100, 50) and (90, −10, 20, 20) = (0, −10, 110, 60); shifted down by 10.
        assertLayoutFrame(layout, 0, 0, 110, 60)
        assertLayoutFrame(layout.sublayouts[0], 0, 10, 100, 50, in: layout)
        assertLayoutFrame(layout.sublayouts[1], 90, 0, 20, 20, in: layout)
    }

    func testCornerBottomLeftWithOffset() {
        let layout = CornerLayoutSpec(
            child: CountingLeaf(100, 50), corner: CountingLeaf(20, 20),
            location: .bottomLeft, offset: CGPoint(x: 5, y: -5)
        )
        .layoutThatFits(sr(0, 0, 300, 300))
        // (0 − 10 + 5, 50 − 10 − 5) = (−5, 35).
        assertLayoutFrame(layout.sublayouts[1], -5, 35, 20, 20, in: layout)
        // Top-left and bottom-right, no offset: (−10, −10) and (90, 40).
        let tl = CornerLayoutSpec(child: CountingLeaf(100, 50), corner: CountingLeaf(20, 20), location: .topLeft)
            .layoutThatFits(sr(0, 0, 300, 300))
        assertLayoutFrame(tl.sublayouts[1], -10, -10, 20, 20, in: tl)
        let br = CornerLayoutSpec(child: CountingLeaf(100, 50), corner: CountingLeaf(20, 20), location: .bottomRight)
            .layoutThatFits(sr(0, 0, 300, 300))
        assertLayoutFrame(br.sublayouts[1], 90, 40, 20, 20, in: br)
    }

    // MARK: Nesting and description

    func testNestedSpecsAndDescription() {
        // Background(Inset(10, leaf 30×20)) in 0…100: inset 50×40, leaf at (10, 10).
        let spec = BackgroundLayoutSpec(
            child: InsetLayoutSpec(insets: EdgeInsets(all: 10), child: CountingLeaf(30, 20)),
            background: LayoutSpec())
        let layout = spec.layoutThatFits(sr(0, 0, 100, 100))
        XCTAssertEqual(
            layout.description,
            """
            BackgroundLayoutSpec (0, 0, 50×40)
              LayoutSpec (0, 0, 50×40)
              InsetLayoutSpec (0, 0, 50×40)
                CountingLeaf (10, 10, 30×20)
            """)
        XCTAssertEqual(sr(0, 1.5, unbounded, 3).description, "[0×1.50 … inf×3]")
    }

    // MARK: Caching

    func testSecondLayoutWithTheSameRangeIsCached() {
        let leaf = CountingLeaf(30, 40)
        let first = leaf.layoutThatFits(sr(0, 0, 100, 100))
        let second = leaf.layoutThatFits(sr(0, 0, 100, 100))
        XCTAssertEqual(leaf.measurements, 1)
        XCTAssertEqual(first.size, second.size)
        XCTAssertTrue(second.element === leaf)
        _ = leaf.layoutThatFits(sr(0, 0, 50, 50))
        XCTAssertEqual(leaf.measurements, 2)
        // Same range, other parent size: another entry.
        _ = leaf.layoutThatFits(sr(0, 0, 50, 50), parentSize: sz(10, 10))
        XCTAssertEqual(leaf.measurements, 3)
    }

    func testCachedSpecTreeDoesNotRemeasureLeaves() {
        let leaf = CountingLeaf(30, 40)
        let spec = CenterLayoutSpec(child: InsetLayoutSpec(insets: EdgeInsets(all: 5), child: leaf))
        let first = spec.layoutThatFits(sr(0, 0, 100, 100))
        let second = spec.layoutThatFits(sr(0, 0, 100, 100))
        XCTAssertEqual(first.description, second.description)
        // The cached tree shares its sublayouts: nothing below the root was rebuilt.
        XCTAssertTrue(first.sublayouts[0] === second.sublayouts[0])
        XCTAssertEqual(leaf.measurements, 1)
        // A new parent spec around the same child reuses the child's cached layout.
        _ = WrapperLayoutSpec(child: spec).layoutThatFits(sr(0, 0, 100, 100))
        XCTAssertEqual(leaf.measurements, 1)
    }

    func testCacheDoesNotKeepElementsAlive() {
        weak var weakLeaf: CountingLeaf?
        weak var weakSpec: InsetLayoutSpec?
        do {
            let leaf = CountingLeaf(1, 1)
            let spec = InsetLayoutSpec(insets: EdgeInsets(all: 1), child: leaf)
            _ = spec.layoutThatFits(sr(0, 0, 10, 10))
            weakLeaf = leaf
            weakSpec = spec
        }
        XCTAssertNil(weakSpec)
        XCTAssertNil(weakLeaf)
    }

    func testCacheKeepsTheLastFewRanges() {
        let leaf = CountingLeaf(1, 1)
        for width in 1...LayoutCache.capacity {
            _ = leaf.layoutThatFits(sr(0, 0, CGFloat(width), 10))
        }
        XCTAssertEqual(leaf.measurements, LayoutCache.capacity)
        // The newest is still there…
        _ = leaf.layoutThatFits(sr(0, 0, CGFloat(LayoutCache.capacity), 10))
        XCTAssertEqual(leaf.measurements, LayoutCache.capacity)
        // …and one more range evicts the oldest (width 1).
        _ = leaf.layoutThatFits(sr(0, 0, 1000, 10))
        _ = leaf.layoutThatFits(sr(0, 0, 1, 10))
        XCTAssertEqual(leaf.measurements, LayoutCache.capacity + 2)
    }

    func testAStaleStoreNeitherCachesNorEvictsFreshEntries() {
        let leaf = CountingLeaf(10, 10)
        let old = LayoutCache.generation
        LayoutCache.invalidateAll()
        _ = leaf.layoutThatFits(sr(0, 0, 50, 50))
        // A slow thread finishes a measurement begun before the change: it is not kept…
        let stale = Layout(element: leaf, size: sz(99, 99))
        leaf.layoutCache.store(stale, for: sr(0, 0, 60, 60), parentSize: sz(60, 60), generation: old)
        XCTAssertNil(leaf.layoutCache.layout(for: sr(0, 0, 60, 60), parentSize: sz(60, 60), element: leaf))
        // …and the fresh entry is still there: no second measurement.
        _ = leaf.layoutThatFits(sr(0, 0, 50, 50))
        XCTAssertEqual(leaf.measurements, 1)
    }

    func testLayoutOnManyThreadsGivesOneAnswer() {
        let leaf = CountingLeaf(30, 40)
        let spec = InsetLayoutSpec(insets: EdgeInsets(all: 5), child: leaf)
        let sizes = Mutex<[CGSize]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let layout = spec.layoutThatFits(sr(0, 0, CGFloat(100 + i % 3), 100))
            sizes.withLock { $0.append(layout.sublayouts[0].size) }
        }
        XCTAssertEqual(sizes.withLock { $0 }, Array(repeating: sz(30, 40), count: 64))
    }

    // MARK: Properties of random trees

    // Random trees of every spec, stacks included, every child wrapped in a `RangeProbe` that checks
    // the range its parent gives it and the size it returns; random root ranges, finite and infinite.

    func testRandomLayoutTreesRespectTheirRanges() {
        var rng = SeededRandom(seed: 0xC0FFEE)
        let probes = RangeProbeLog()
        for iteration in 0..<2000 {
            let tree = RandomLayoutTree.element(depth: 4, rng: &rng, probes: probes)
            let constraint = RandomLayoutTree.sizeRange(rng: &rng)
            checkRandomTree(tree, in: constraint, probes: probes, label: "iteration \(iteration)")
        }
    }

    /// "Nothing overflows" (see `RandomLayoutTree.fittingStack`): then every child lies inside the stack.
    func testRandomStacksThatFitKeepTheirChildrenInside() {
        var rng = SeededRandom(seed: 0xF17)
        let probes = RangeProbeLog()
        for iteration in 0..<1000 {
            let (stack, constraint) = RandomLayoutTree.fittingStack(rng: &rng, probes: probes)
            let layout = checkRandomTree(stack, in: constraint, probes: probes, label: "fitting \(iteration)")
            XCTAssertEqual(layout.size, constraint.max)
            let bounds = CGRect(origin: .zero, size: layout.size).insetBy(dx: -tolerance, dy: -tolerance)
            for sublayout in layout.sublayouts where !bounds.contains(sublayout.frame) {
                XCTFail(
                    "fitting \(iteration): \(sublayout.frame) outside \(layout.size), range \(constraint)\n"
                        + layout.description)
            }
        }
    }

    /// The same tree built twice lays out the same, also when one copy's caches already hold layouts
    /// in other ranges (a layout depends on its range, parent size and styles only).
    func testRandomLayoutTreesArePure() {
        for seed in UInt64(1)...300 {
            var a = SeededRandom(seed: seed), b = SeededRandom(seed: seed)
            let treeA = RandomLayoutTree.element(depth: 4, rng: &a), treeB = RandomLayoutTree.element(depth: 4, rng: &b)
            let constraintA = RandomLayoutTree.sizeRange(rng: &a), constraintB = RandomLayoutTree.sizeRange(rng: &b)
            assertSameLayout(treeA, constraintA, treeB, constraintB, "seed \(seed)")
            let (stackA, rangeA) = RandomLayoutTree.fittingStack(rng: &a)
            let (stackB, rangeB) = RandomLayoutTree.fittingStack(rng: &b)
            assertSameLayout(stackA, rangeA, stackB, rangeB, "fitting seed \(seed)")
        }
    }

    private func assertSameLayout(
        _ a: any LayoutElement, _ rangeA: SizeRange, _ b: any LayoutElement,
        _ rangeB: SizeRange, _ label: String
    ) {
        XCTAssertEqual(rangeA, rangeB, label)
        let warmUps = [SizeRange.unconstrained, SizeRange(min: .zero, max: rangeB.min), SizeRange(exactly: rangeB.min)]
        for warmUp in warmUps { _ = b.layoutThatFits(warmUp) }
        XCTAssertEqual(a.layoutThatFits(rangeA).description, b.layoutThatFits(rangeB).description, label)
    }

    /// Lengths are sums of fractions: positions are compared with this much slack.
    private let tolerance: CGFloat = 1e-6

    /// Lays `tree` out in `constraint` and checks the properties every layout has; returns the layout.
    @discardableResult
    private func checkRandomTree(
        _ tree: any LayoutElement, in constraint: SizeRange, probes: RangeProbeLog,
        label: String
    ) -> Layout {
        let layout = tree.layoutThatFits(constraint)
        let message = "\(label), range \(constraint)\n\(layout.description)"
        XCTAssertEqual(RangeProbeLog.problems(range: constraint, size: layout.size), [], "root: \(message)")
        XCTAssertEqual(probes.take(), [], "a child and the range its parent gave it: \(message)")
        checkTree(layout, message: message)
        // Cached: a second layout is the same tree, also after a layout in another range.
        XCTAssertEqual(tree.layoutThatFits(constraint).description, layout.description, message)
        _ = tree.layoutThatFits(SizeRange(min: .zero, max: constraint.min))
        XCTAssertEqual(tree.layoutThatFits(constraint).description, layout.description, message)
        XCTAssertEqual(probes.take(), [], "a child and the range its parent gave it, other range: \(message)")
        return layout
    }

    private func checkTree(_ layout: Layout, message: String) {
        for value in [layout.size.width, layout.size.height, layout.position.x, layout.position.y] {
            XCTAssertTrue(value.isFinite, "NaN or infinity: \(message)")
        }
        XCTAssertGreaterThanOrEqual(layout.size.width, 0, message)
        XCTAssertGreaterThanOrEqual(layout.size.height, 0, message)
        if let stack = layout.element as? StackLayoutSpec {
            checkStack(layout, stack, message: message)
        } else if !mayOverflow(layout) {
            let bounds = CGRect(origin: .zero, size: layout.size).insetBy(dx: -1e-9, dy: -1e-9)
            for sublayout in layout.sublayouts {
                XCTAssertTrue(
                    bounds.contains(sublayout.frame),
                    "\(sublayout.frame) outside \(layout.size): \(message)")
            }
        }
        for sublayout in layout.sublayouts { checkTree(sublayout, message: message) }
    }

    /// Corners overflow by design, absolute children may sit past the max, and insets larger than
    /// the room given push the child out.
    private func mayOverflow(_ layout: Layout) -> Bool {
        if layout.element is CornerLayoutSpec || layout.element is AbsoluteLayoutSpec { return true }
        if let inset = layout.element as? InsetLayoutSpec {
            return inset.insets.horizontal > layout.size.width || inset.insets.vertical > layout.size.height
        }
        return false
    }

    /// A stack lays out each of its children once, in order. Without wrapping:
    /// - consecutive children are apart by at least `spacing` + the first's `spacingAfter` + the
    ///   second's `spacingBefore`, exactly that when justified to the start, centre or end;
    /// - what fits stays inside: along the main axis when the children's lengths and all the spacing
    ///   fit the stack's length, so that justification has no negative free space; across, each child
    ///   that is not aligned on a baseline (baselines align across a row only) and is no longer across
    ///   than the stack.
    private func checkStack(_ layout: Layout, _ stack: StackLayoutSpec, message: String) {
        let children = stack.children.map { ($0 as? RangeProbe)?.child ?? $0 }
        XCTAssertEqual(layout.sublayouts.count, children.count, message)
        for (sublayout, child) in zip(layout.sublayouts, children) {
            XCTAssertTrue(sublayout.element === child, "children out of order: \(message)")
        }
        guard stack.flexWrap == .noWrap, !layout.sublayouts.isEmpty else { return }
        let horizontal = stack.direction == .horizontal
        func main(_ size: CGSize) -> CGFloat { horizontal ? size.width : size.height }
        func cross(_ size: CGSize) -> CGFloat { horizontal ? size.height : size.width }
        func mainOrigin(_ point: CGPoint) -> CGFloat { horizontal ? point.x : point.y }
        func crossOrigin(_ point: CGPoint) -> CGFloat { horizontal ? point.y : point.x }
        func inside(_ origin: CGFloat, _ length: CGFloat, _ total: CGFloat) -> Bool {
            origin >= -tolerance && origin + length <= total + tolerance
        }

        let styles = children.map { $0.style.values }
        let exactGaps = [.start, .center, .end].contains(stack.justifyContent)
        for index in layout.sublayouts.indices.dropFirst() {
            let previous = layout.sublayouts[index - 1], next = layout.sublayouts[index]
            let gap = mainOrigin(next.position) - (mainOrigin(previous.position) + main(previous.size))
            let spacing = stack.spacing + styles[index - 1].spacingAfter + styles[index].spacingBefore
            XCTAssertTrue(
                exactGaps ? abs(gap - spacing) <= tolerance : gap >= spacing - tolerance,
                "children \(index - 1) and \(index) \(gap) apart, spacing \(spacing): \(message)")
        }
        let used = zip(layout.sublayouts, styles).reduce(stack.spacing * CGFloat(children.count - 1)) {
            $0 + main($1.0.size) + $1.1.spacingBefore + $1.1.spacingAfter
        }
        for (sublayout, values) in zip(layout.sublayouts, styles) {
            if used <= main(layout.size) + tolerance {
                XCTAssertTrue(
                    inside(mainOrigin(sublayout.position), main(sublayout.size), main(layout.size)),
                    "\(sublayout.frame) outside \(layout.size) along the main axis: \(message)")
            }
            let align = values.alignSelf == .auto ? stack.alignItems.alignSelf : values.alignSelf
            let onBaseline = horizontal && (align == .baselineFirst || align == .baselineLast)
            if !onBaseline && cross(sublayout.size) <= cross(layout.size) + tolerance {
                XCTAssertTrue(
                    inside(crossOrigin(sublayout.position), cross(sublayout.size), cross(layout.size)),
                    "\(sublayout.frame) outside \(layout.size) across: \(message)")
            }
        }
    }
}

/// Stands in for an element in its parent and checks, at every measurement, the range the parent
/// gives and the size the element returns. Invisible in the layout: it returns the element's own
/// layout, and its style is the element's.
final class RangeProbe: LayoutElement {
    let child: any LayoutElement
    let log: RangeProbeLog
    let layoutCache = LayoutCache()
    var style: Style { child.style }

    init(_ child: any LayoutElement, log: RangeProbeLog) {
        self.child = child
        self.log = log
    }

    func layoutThatFits(_ constrainedSize: SizeRange, parentSize: CGSize) -> Layout {
        let layout = child.layoutThatFits(constrainedSize, parentSize: parentSize)
        log.check(layout, in: constrainedSize)
        return layout
    }

    func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        child.calculateLayoutThatFits(constrainedSize)
    }
}

/// What `RangeProbe`s found wrong, from any thread.
final class RangeProbeLog: Sendable {
    private let found = Mutex<[String]>([])

    /// What is wrong with a layout of `size` given `range`: a range that is not one (a minimum that is
    /// NaN, negative or infinite, a maximum that is NaN or below the minimum) or a size outside it
    /// (NaN and infinity included).
    static func problems(range: SizeRange, size: CGSize) -> [String] {
        var problems: [String] = []
        let axes = [
            ("width", range.min.width, range.max.width, size.width),
            ("height", range.min.height, range.max.height, size.height),
        ]
        for (axis, lower, upper, length) in axes {
            if !(lower.isFinite && lower >= 0) { problems.append("min \(axis) \(lower)") }
            if !(upper >= lower) { problems.append("max \(axis) \(upper) below min \(lower)") }
            if !(length.isFinite && length >= 0 && length >= lower && length <= upper) {
                problems.append("\(axis) \(length) outside \(lower)…\(upper)")
            }
        }
        return problems
    }

    func check(_ layout: Layout, in range: SizeRange) {
        let problems = Self.problems(range: range, size: layout.size)
        guard !problems.isEmpty else { return }
        found.withLock { $0.append("\(type(of: layout.element)) in \(range): \(problems.joined(separator: ", "))") }
    }

    /// The problems found since the last call.
    func take() -> [String] {
        found.withLock { found in
            defer { found = [] }
            return found
        }
    }
}

enum RandomLayoutTree {
    static func length(_ rng: inout SeededRandom, _ upper: CGFloat) -> CGFloat {
        CGFloat(Int.random(in: 0...Int(upper), using: &rng))
    }

    static func dimension(_ rng: inout SeededRandom) -> LayoutDimension {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .points(length(&rng, 150))
        case 1: return .fraction(CGFloat(Int.random(in: 0...10, using: &rng)) / 10)
        default: return .auto
        }
    }

    static func style(_ rng: inout SeededRandom) -> Style {
        let style = Style()
        if Bool.random(using: &rng) {
            style.width = dimension(&rng)
            style.height = dimension(&rng)
            style.minWidth = dimension(&rng)
            style.maxWidth = dimension(&rng)
            style.minHeight = dimension(&rng)
            style.maxHeight = dimension(&rng)
        }
        style.layoutPosition = CGPoint(x: length(&rng, 60), y: length(&rng, 60))
        return style
    }

    static func sizeRange(rng: inout SeededRandom) -> SizeRange {
        let minSize = sz(length(&rng, 100), length(&rng, 100))
        let maxW = Int.random(in: 0..<4, using: &rng) == 0 ? unbounded : minSize.width + length(&rng, 200)
        let maxH = Int.random(in: 0..<4, using: &rng) == 0 ? unbounded : minSize.height + length(&rng, 200)
        return SizeRange(min: minSize, max: sz(maxW, maxH))
    }

    static func pick<T>(_ options: [T], _ rng: inout SeededRandom) -> T {
        options.randomElement(using: &rng)!
    }

    /// `element` in a `RangeProbe` reporting to `probes`, if given.
    static func probed(_ element: any LayoutElement, _ probes: RangeProbeLog?) -> any LayoutElement {
        probes.map { RangeProbe(element, log: $0) } ?? element
    }

    /// A random tree `depth` deep, every child in a `RangeProbe` when `probes` is given.
    static func element(depth: Int, rng: inout SeededRandom, probes: RangeProbeLog? = nil) -> any LayoutElement {
        let kind = depth == 0 ? Int.random(in: 0...1, using: &rng) : Int.random(in: 0...13, using: &rng)
        let style = style(&rng)
        func child() -> any LayoutElement { probed(element(depth: depth - 1, rng: &rng, probes: probes), probes) }
        switch kind {
        case 0: return CountingLeaf(length(&rng, 150), length(&rng, 150), style: style)
        case 1: return LayoutSpec(style: style)
        case 2: return WrapperLayoutSpec(style: style, children: (0..<Int.random(in: 1...3, using: &rng)).map { _ in child() })
        case 3:
            let insets = EdgeInsets(
                top: length(&rng, 20), left: length(&rng, 20),
                bottom: length(&rng, 20), right: length(&rng, 20))
            return InsetLayoutSpec(style: style, insets: insets, child: child())
        case 4: return OverlayLayoutSpec(style: style, child: child(), overlay: child())
        case 5: return BackgroundLayoutSpec(style: style, child: child(), background: child())
        case 6:
            let centering = CenterLayoutSpec.CenteringOptions(rawValue: Int.random(in: 0...3, using: &rng))
            let sizing = CenterLayoutSpec.SizingOptions(rawValue: Int.random(in: 0...3, using: &rng))
            return CenterLayoutSpec(style: style, centeringOptions: centering, sizingOptions: sizing, child: child())
        case 7:
            return RatioLayoutSpec(style: style, ratio: [0.25, 0.5, 1, 1.5, 3].randomElement(using: &rng)!, child: child())
        case 8:
            let positions: [RelativeLayoutSpec.Position] = [.none, .start, .center, .end]
            return RelativeLayoutSpec(
                style: style, horizontalPosition: positions.randomElement(using: &rng)!,
                verticalPosition: positions.randomElement(using: &rng)!,
                sizingOptions: .init(rawValue: Int.random(in: 0...3, using: &rng)),
                child: child())
        case 9:
            return AbsoluteLayoutSpec(
                style: style, sizing: Bool.random(using: &rng) ? .default : .sizeToFit,
                children: (0..<Int.random(in: 1...3, using: &rng)).map { _ in child() })
        case 10:
            let locations: [CornerLayoutSpec.Location] = [.topLeft, .topRight, .bottomLeft, .bottomRight]
            return CornerLayoutSpec(
                style: style, child: child(), corner: child(),
                location: locations.randomElement(using: &rng)!,
                offset: CGPoint(x: length(&rng, 10) - 5, y: length(&rng, 10) - 5),
                wrapsCorner: Bool.random(using: &rng))
        default:
            return stack(
                style: style, children: (0..<Int.random(in: 0...4, using: &rng)).map { _ in child() },
                rng: &rng)
        }
    }

    // MARK: Stacks

    static let alignSelves: [AlignSelf] = [.auto, .auto, .start, .end, .center, .stretch, .baselineFirst, .baselineLast]
    static let alignItems: [StackLayoutSpec.AlignItems] = [
        .start, .end, .center, .stretch, .baselineFirst, .baselineLast,
    ]

    /// A stack of `children` with every property random, set after creation; the children get random
    /// flex properties (their style already has random sizes, mins and maxes, half the time).
    static func stack(style: Style, children: [any LayoutElement], rng: inout SeededRandom) -> StackLayoutSpec {
        let stack = StackLayoutSpec(style: style, children: children)
        stack.direction = pick([.horizontal, .vertical], &rng)
        stack.spacing = pick([0, 0, length(&rng, 12)], &rng)
        stack.justifyContent = pick([.start, .center, .end, .spaceBetween, .spaceAround, .spaceEvenly], &rng)
        stack.alignItems = pick(alignItems, &rng)
        stack.flexWrap = pick([.noWrap, .wrap], &rng)
        stack.alignContent = pick([.start, .center, .end, .spaceBetween, .spaceAround, .stretch], &rng)
        stack.lineSpacing = pick([0, length(&rng, 12)], &rng)
        for child in children {
            let style = child.style
            style.flexGrow = pick([0, 0, 0.5, 1, 2], &rng)
            style.flexShrink = pick([0, 0.5, 1, 1, 3], &rng)
            style.flexBasis = dimension(&rng)
            style.alignSelf = pick(alignSelves, &rng)
            style.spacingBefore = pick([0, 0, length(&rng, 8)], &rng)
            style.spacingAfter = pick([0, 0, length(&rng, 8)], &rng)
            style.ascender = length(&rng, 40)
            style.descender = -length(&rng, 20)
        }
        return stack
    }

    /// A stack and a range in which nothing overflows, so every child must lie inside the stack:
    /// - the range is exact (the stack's size is known, and no child is measured longer across);
    /// - no wrapping (lines could add up to more than the cross length);
    /// - no baseline alignment (a shared baseline can push a child past the line's end);
    /// - every child has `flexShrink` ≥ 1 (shrink factors summing below 1 take only their share of
    ///   the overflow, CSS's rule, so `flexShrink` > 0 is not enough);
    /// - min sizes in points only, the main-axis mins and all the spacing (`spacing` between
    ///   children, their `spacingBefore`/`spacingAfter`) fitting the main length, and every cross-axis
    ///   min fitting the cross length.
    /// Children are random trees two deep (which may overflow inside themselves).
    static func fittingStack(rng: inout SeededRandom, probes: RangeProbeLog? = nil) -> (StackLayoutSpec, SizeRange) {
        let children = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
            probed(element(depth: 2, rng: &rng, probes: probes), probes)
        }
        let stack = stack(style: style(&rng), children: children, rng: &rng)
        stack.flexWrap = .noWrap
        stack.alignItems = pick([.start, .end, .center, .stretch], &rng)
        for child in children {
            child.style.flexShrink = pick([1, 2, 3], &rng)
            child.style.minWidth = pick([.auto, .auto, .points(length(&rng, 60))], &rng)
            child.style.minHeight = pick([.auto, .auto, .points(length(&rng, 60))], &rng)
            if child.style.alignSelf == .baselineFirst || child.style.alignSelf == .baselineLast {
                child.style.alignSelf = .auto
            }
        }
        let horizontal = stack.direction == .horizontal
        func points(_ dimension: LayoutDimension) -> CGFloat { dimension.resolve(parent: .nan, auto: 0) }
        let minMains = children.map { points(horizontal ? $0.style.minWidth : $0.style.minHeight) }
        let minCrosses = children.map { points(horizontal ? $0.style.minHeight : $0.style.minWidth) }
        let spacing = children.reduce(stack.spacing * CGFloat(children.count - 1)) {
            $0 + $1.style.spacingBefore + $1.style.spacingAfter
        }
        let main = spacing + minMains.reduce(0, +) + length(&rng, 200)
        let cross = minCrosses.max()! + length(&rng, 200)
        return (stack, SizeRange(exactly: horizontal ? sz(main, cross) : sz(cross, main)))
    }
}
