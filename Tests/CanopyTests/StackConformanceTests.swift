import Foundation
import XCTest

@testable import Canopy

// Conformance tests for StackLayoutSpec against CSS Flexible Box Layout Level 1 (§9.2–9.7) with the
// Texture adaptations the engine documents (flexShrink defaults to 0, no automatic minimum size,
// the size range plays the container, growth only below the range's min main length, shrinking
// only above its max, children measured across with [0, stack cross max]).
//
// Every expected value below was derived by hand from those rules; the arithmetic is in the
// comment next to it. Notation: "free" is the container main length minus the children's
// (hypothetical or base) sizes and spacing.

// MARK: - Helpers

private func rect(_ x: CGFloat, _ y: CGFloat, _ w: CGFloat, _ h: CGFloat) -> CGRect {
    CGRect(x: x, y: y, width: w, height: h)
}

/// An exact size range: the container has a definite size on both axes.
private func exact(_ w: CGFloat, _ h: CGFloat) -> SizeRange { sr(w, h, w, h) }

/// A childless box with an explicit width and height (so it is never stretched).
private func fixed(_ w: CGFloat, _ h: CGFloat, _ configure: (Style) -> Void = { _ in }) -> LayoutSpec {
    LayoutSpec().styled {
        $0.preferredSize = sz(w, h)
        configure($0)
    }
}

/// A leaf with content size w×h and no explicit size (stretchable, growable, squashable).
private func leaf(_ w: CGFloat, _ h: CGFloat, _ configure: (Style) -> Void = { _ in }) -> CountingLeaf {
    CountingLeaf(w, h).styled(configure)
}

/// A childless box with an explicit height only: its main (width) content size in a row is 0.
private func bar(height: CGFloat, _ configure: (Style) -> Void = { _ in }) -> LayoutSpec {
    LayoutSpec().styled {
        $0.height = .points(height)
        configure($0)
    }
}

/// Compares a layout's size and its children's frames (in order) with a 0.001 tolerance and prints
/// the layout tree on failure.
private func assertFrames(
    _ layout: Layout, _ expected: [CGRect], size: CGSize,
    file: StaticString = #filePath, line: UInt = #line
) {
    let tolerance: CGFloat = 0.001
    func close(_ a: CGFloat, _ b: CGFloat) -> Bool { abs(a - b) <= tolerance }
    if !close(layout.size.width, size.width) || !close(layout.size.height, size.height) {
        XCTFail(
            "stack size \(layout.size.width)×\(layout.size.height), expected \(size.width)×\(size.height)\n"
                + layout.description, file: file, line: line)
    }
    guard layout.sublayouts.count == expected.count else {
        XCTFail(
            "\(layout.sublayouts.count) children, expected \(expected.count)\n" + layout.description,
            file: file, line: line)
        return
    }
    for (index, (sublayout, want)) in zip(layout.sublayouts, expected).enumerated() {
        let got = sublayout.frame
        if !close(got.origin.x, want.origin.x) || !close(got.origin.y, want.origin.y)
            || !close(got.size.width, want.size.width) || !close(got.size.height, want.size.height)
        {
            XCTFail(
                "child \(index): got (\(got.origin.x), \(got.origin.y), \(got.size.width)×\(got.size.height)), "
                    + "expected (\(want.origin.x), \(want.origin.y), \(want.size.width)×\(want.size.height))\n"
                    + layout.description, file: file, line: line)
        }
    }
}

final class StackConformanceTests: XCTestCase {

    // MARK: - justify-content (CSS §9.5 step 12), row in an exact 300×100 container

    private func justifyRow(
        _ justify: StackLayoutSpec.JustifyContent, spacing: CGFloat = 0,
        _ children: [any LayoutElement]
    ) -> Layout {
        StackLayoutSpec(spacing: spacing, justifyContent: justify, alignItems: .start, children: children)
            .layoutThatFits(exact(300, 100))
    }

    func testJustifyStart() {
        let layout = justifyRow(.start, [fixed(50, 20), fixed(100, 30)])
        // Packed at the main start: 0, then 0 + 50 = 50.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 100, 30)], size: sz(300, 100))
    }

    func testJustifyCenter() {
        let layout = justifyRow(.center, [fixed(50, 20), fixed(100, 30)])
        // free = 300 − (50 + 100) = 150; offset 150 / 2 = 75 → 75, 75 + 50 = 125.
        assertFrames(layout, [rect(75, 0, 50, 20), rect(125, 0, 100, 30)], size: sz(300, 100))
    }

    func testJustifyEnd() {
        let layout = justifyRow(.end, [fixed(50, 20), fixed(100, 30)])
        // free = 150, all of it before the first item → 150, 200 (ends at 300).
        assertFrames(layout, [rect(150, 0, 50, 20), rect(200, 0, 100, 30)], size: sz(300, 100))
    }

    func testJustifySpaceBetween() {
        let layout = justifyRow(.spaceBetween, [fixed(50, 20), fixed(100, 30), fixed(50, 20)])
        // free = 300 − 200 = 100; 2 gaps of 50 → 0, 50 + 50 = 100, 100 + 100 + 50 = 250 (ends at 300).
        assertFrames(
            layout, [rect(0, 0, 50, 20), rect(100, 0, 100, 30), rect(250, 0, 50, 20)],
            size: sz(300, 100))
    }

    func testJustifySpaceAround() {
        let layout = justifyRow(.spaceAround, [fixed(50, 20), fixed(100, 30), fixed(50, 20)])
        // free = 100; each item gets 100/3 around it, half at each side: 50/3 ≈ 16.667 at the ends.
        // x0 = 50/3; x1 = 50/3 + 50 + 100/3 = 100; x2 = 100 + 100 + 100/3 = 700/3 ≈ 233.333.
        assertFrames(
            layout, [rect(50.0 / 3, 0, 50, 20), rect(100, 0, 100, 30), rect(700.0 / 3, 0, 50, 20)],
            size: sz(300, 100))
    }

    func testJustifySpaceEvenly() {
        let layout = justifyRow(.spaceEvenly, [fixed(50, 20), fixed(100, 30), fixed(50, 20)])
        // free = 100 over 4 equal gaps of 25 → 25, 25 + 50 + 25 = 100, 100 + 100 + 25 = 225.
        assertFrames(
            layout, [rect(25, 0, 50, 20), rect(100, 0, 100, 30), rect(225, 0, 50, 20)],
            size: sz(300, 100))
    }

    func testJustifySpaceBetweenSingleItemIsStart() {
        let layout = justifyRow(.spaceBetween, [fixed(50, 20)])
        // CSS: space-between with a single item is flex-start → x = 0.
        assertFrames(layout, [rect(0, 0, 50, 20)], size: sz(300, 100))
    }

    func testJustifySpaceAroundSingleItemIsCentered() {
        let layout = justifyRow(.spaceAround, [fixed(50, 20)])
        // CSS: space-around with a single item is center → (300 − 50) / 2 = 125.
        assertFrames(layout, [rect(125, 0, 50, 20)], size: sz(300, 100))
    }

    func testJustifySpaceEvenlySingleItemIsCentered() {
        let layout = justifyRow(.spaceEvenly, [fixed(50, 20)])
        // Two equal gaps of (300 − 50) / 2 = 125 → x = 125.
        assertFrames(layout, [rect(125, 0, 50, 20)], size: sz(300, 100))
    }

    func testJustifyCenterWithSpacing() {
        let layout = justifyRow(.center, spacing: 10, [fixed(50, 20), fixed(100, 30)])
        // used = 50 + 10 + 100 = 160; free = 140; offset 70 → 70, 70 + 50 + 10 = 130.
        assertFrames(layout, [rect(70, 0, 50, 20), rect(130, 0, 100, 30)], size: sz(300, 100))
    }

    func testJustifyEndWithSpacing() {
        let layout = justifyRow(.end, spacing: 10, [fixed(50, 20), fixed(100, 30)])
        // used = 160; free = 140 → 140, 140 + 50 + 10 = 200 (ends at 300).
        assertFrames(layout, [rect(140, 0, 50, 20), rect(200, 0, 100, 30)], size: sz(300, 100))
    }

    func testJustifySpaceBetweenWithSpacing() {
        let layout = justifyRow(.spaceBetween, spacing: 10, [fixed(50, 20), fixed(100, 30), fixed(50, 20)])
        // used = 200 + 2·10 = 220; free = 80; 2 gaps of 40 added to the spacing:
        // 0, 50 + 10 + 40 = 100, 100 + 100 + 10 + 40 = 250.
        assertFrames(
            layout, [rect(0, 0, 50, 20), rect(100, 0, 100, 30), rect(250, 0, 50, 20)],
            size: sz(300, 100))
    }

    func testJustifySpaceAroundWithSpacing() {
        let layout = justifyRow(.spaceAround, spacing: 10, [fixed(50, 20), fixed(100, 30), fixed(50, 20)])
        // free = 300 − 220 = 80; 80/3 per item, 40/3 ≈ 13.333 at the ends.
        // x0 = 40/3; x1 = 40/3 + 50 + 10 + 80/3 = 100; x2 = 100 + 100 + 10 + 80/3 = 710/3 ≈ 236.667.
        assertFrames(
            layout, [rect(40.0 / 3, 0, 50, 20), rect(100, 0, 100, 30), rect(710.0 / 3, 0, 50, 20)],
            size: sz(300, 100))
    }

    func testJustifySpaceEvenlyWithSpacing() {
        let layout = justifyRow(.spaceEvenly, spacing: 10, [fixed(50, 20), fixed(100, 30), fixed(50, 20)])
        // free = 80 over 4 gaps of 20 → 20, 20 + 50 + 10 + 20 = 100, 100 + 100 + 10 + 20 = 230.
        assertFrames(
            layout, [rect(20, 0, 50, 20), rect(100, 0, 100, 30), rect(230, 0, 50, 20)],
            size: sz(300, 100))
    }

    // Overflow: 200 + 150 = 350 in 300, flexShrink 0 → free = −50.

    func testJustifyStartOverflowsAtTheEnd() {
        let layout = justifyRow(.start, [fixed(200, 20), fixed(150, 20)])
        // 0, 200 (the second ends at 350 > 300); the stack stays 300 (content 350 clamped to [300, 300]).
        assertFrames(layout, [rect(0, 0, 200, 20), rect(200, 0, 150, 20)], size: sz(300, 100))
    }

    func testJustifyEndOverflowsAtTheStart() {
        let layout = justifyRow(.end, [fixed(200, 20), fixed(150, 20)])
        // offset = free = −50 → −50, −50 + 200 = 150 (ends at 300).
        assertFrames(layout, [rect(-50, 0, 200, 20), rect(150, 0, 150, 20)], size: sz(300, 100))
    }

    func testJustifyCenterOverflowsOnBothSides() {
        let layout = justifyRow(.center, [fixed(200, 20), fixed(150, 20)])
        // offset = −50 / 2 = −25 → −25, 175.
        assertFrames(layout, [rect(-25, 0, 200, 20), rect(175, 0, 150, 20)], size: sz(300, 100))
    }

    func testJustifySpaceBetweenOverflowIsStart() {
        let layout = justifyRow(.spaceBetween, [fixed(200, 20), fixed(150, 20)])
        // Negative free space: space-between = flex-start → 0, 200.
        assertFrames(layout, [rect(0, 0, 200, 20), rect(200, 0, 150, 20)], size: sz(300, 100))
    }

    func testJustifySpaceAroundOverflowIsCenter() {
        let layout = justifyRow(.spaceAround, [fixed(200, 20), fixed(150, 20)])
        // Negative free space: space-around = center → −25, 175.
        assertFrames(layout, [rect(-25, 0, 200, 20), rect(175, 0, 150, 20)], size: sz(300, 100))
    }

    func testJustifySpaceEvenlyOverflowIsCenter() {
        let layout = justifyRow(.spaceEvenly, [fixed(200, 20), fixed(150, 20)])
        // Negative free space: space-evenly = center → −25, 175.
        assertFrames(layout, [rect(-25, 0, 200, 20), rect(175, 0, 150, 20)], size: sz(300, 100))
    }

    func testJustifyCenterOverflowWithSpacing() {
        let layout = justifyRow(.center, spacing: 10, [fixed(200, 20), fixed(150, 20)])
        // used = 200 + 10 + 150 = 360; free = −60; offset −30 → −30, −30 + 200 + 10 = 180.
        assertFrames(layout, [rect(-30, 0, 200, 20), rect(180, 0, 150, 20)], size: sz(300, 100))
    }

    // MARK: - align-items / align-self (CSS §9.4, §9.6 step 14), row in an exact 300×100 container

    private func alignRow(
        _ align: StackLayoutSpec.AlignItems, _ children: [any LayoutElement],
        range: SizeRange = exact(300, 100)
    ) -> Layout {
        StackLayoutSpec(alignItems: align, children: children).layoutThatFits(range)
    }

    func testAlignStart() {
        let layout = alignRow(.start, [leaf(50, 20), leaf(60, 40)])
        // Single line, cross = 100; both at the cross start with their content heights.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 60, 40)], size: sz(300, 100))
    }

    func testAlignEnd() {
        let layout = alignRow(.end, [leaf(50, 20), leaf(60, 40)])
        // y = 100 − 20 = 80; 100 − 40 = 60.
        assertFrames(layout, [rect(0, 80, 50, 20), rect(50, 60, 60, 40)], size: sz(300, 100))
    }

    func testAlignCenter() {
        let layout = alignRow(.center, [leaf(50, 20), leaf(60, 40)])
        // y = (100 − 20)/2 = 40; (100 − 40)/2 = 30.
        assertFrames(layout, [rect(0, 40, 50, 20), rect(50, 30, 60, 40)], size: sz(300, 100))
    }

    func testAlignStretchFillsTheLine() {
        let layout = alignRow(.stretch, [leaf(50, 20), leaf(60, 40)])
        // Cross size auto → the line's cross size, 100 (single-line container with a definite cross size).
        assertFrames(layout, [rect(0, 0, 50, 100), rect(50, 0, 60, 100)], size: sz(300, 100))
    }

    func testAlignStretchIsTheDefault() {
        let layout = StackLayoutSpec(children: [leaf(50, 20), leaf(60, 40)]).layoutThatFits(exact(300, 100))
        // Default alignItems = stretch → both 100 high.
        assertFrames(layout, [rect(0, 0, 50, 100), rect(50, 0, 60, 100)], size: sz(300, 100))
    }

    func testAlignStretchWithIndefiniteCrossUsesTheTallestItem() {
        let layout = alignRow(.stretch, [leaf(50, 20), leaf(60, 40)], range: sr(300, 0, 300, 200))
        // Stack cross = max(20, 40) = 40 clamped into [0, 200] = 40; the line is 40 → both 40 high.
        assertFrames(layout, [rect(0, 0, 50, 40), rect(50, 0, 60, 40)], size: sz(300, 40))
    }

    func testAlignStretchClampedByMaxCross() {
        let layout = alignRow(.stretch, [leaf(50, 20) { $0.maxHeight = .points(70) }, leaf(60, 40)])
        // Stretched to 100, clamped by max-height 70 → 70, at the cross start (y = 0).
        assertFrames(layout, [rect(0, 0, 50, 70), rect(50, 0, 60, 100)], size: sz(300, 100))
    }

    func testAlignStretchWithMinAndMaxCross() {
        let layout = alignRow(
            .stretch,
            [
                leaf(50, 10) {
                    $0.minHeight = .points(30); $0.maxHeight = .points(60)
                },
                leaf(60, 10) { $0.minHeight = .points(30) },
            ])
        // First: line 100 clamped into [30, 60] = 60. Second: 100 clamped into [30, ∞) = 100.
        assertFrames(layout, [rect(0, 0, 50, 60), rect(50, 0, 60, 100)], size: sz(300, 100))
    }

    func testAlignStretchSkipsExplicitCrossSize() {
        let layout = alignRow(.stretch, [leaf(50, 20) { $0.height = .points(30) }, leaf(60, 40)])
        // First has height 30 (not auto) → not stretched, 30 high at y = 0; second stretched to 100.
        assertFrames(layout, [rect(0, 0, 50, 30), rect(50, 0, 60, 100)], size: sz(300, 100))
    }

    func testAlignSelfOverridesAlignItems() {
        let layout = alignRow(
            .start,
            [
                leaf(50, 20),
                leaf(50, 20) { $0.alignSelf = .end },
                leaf(50, 20) { $0.alignSelf = .center },
                leaf(50, 20) { $0.alignSelf = .stretch },
            ])
        // start y 0; end 100 − 20 = 80; center (100 − 20)/2 = 40; stretch 0, height 100.
        assertFrames(
            layout,
            [
                rect(0, 0, 50, 20), rect(50, 80, 50, 20), rect(100, 40, 50, 20),
                rect(150, 0, 50, 100),
            ], size: sz(300, 100))
    }

    func testAlignSelfStartInAStretchStack() {
        let layout = alignRow(.stretch, [leaf(50, 20) { $0.alignSelf = .start }, leaf(60, 40)])
        // First keeps 20 at y 0 (start); second stretched to 100.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 60, 100)], size: sz(300, 100))
    }

    func testAlignSelfAutoFollowsAlignItems() {
        let layout = alignRow(.end, [leaf(50, 20) { $0.alignSelf = .auto }])
        // auto → alignItems end → y = 100 − 20 = 80.
        assertFrames(layout, [rect(0, 80, 50, 20)], size: sz(300, 100))
    }

    func testAlignCenterWithIndefiniteCross() {
        let layout = alignRow(.center, [leaf(50, 20), leaf(60, 40)], range: sr(300, 0, 300, 200))
        // Line = max(20, 40) = 40 → y = (40 − 20)/2 = 10 and 0.
        assertFrames(layout, [rect(0, 10, 50, 20), rect(50, 0, 60, 40)], size: sz(300, 40))
    }

    // MARK: - Baselines (horizontal only)

    func testBaselineFirst() {
        let layout = alignRow(
            .baselineFirst,
            [
                leaf(50, 30) { $0.ascender = 20 },
                leaf(50, 50) { $0.ascender = 10 },
                leaf(50, 20) { $0.ascender = 15 },
            ], range: sr(300, 0, 300, 200))
        // Largest ascent = 20 → baseline at y 20: y = 20 − 20 = 0, 20 − 10 = 10, 20 − 15 = 5.
        // Extents: 0…30, 10…60, 5…25 → line cross = 60 (ascent 20 + largest descent 50 − 10 = 40).
        assertFrames(
            layout, [rect(0, 0, 50, 30), rect(50, 10, 50, 50), rect(100, 5, 50, 20)],
            size: sz(300, 60))
    }

    func testBaselineLast() {
        let layout = alignRow(
            .baselineLast,
            [
                leaf(50, 30) { $0.descender = -5 },
                leaf(50, 50) { $0.descender = -20 },
                leaf(50, 20) { $0.descender = 0 },
            ], range: sr(300, 0, 300, 200))
        // Last baselines from the top (height + descender): 30 − 5 = 25, 50 − 20 = 30, 20 − 0 = 20; largest 30.
        // y = 30 − 25 = 5, 0, 30 − 20 = 10. Extents 5…35, 0…50, 10…30 → line = 50.
        assertFrames(
            layout, [rect(0, 5, 50, 30), rect(50, 0, 50, 50), rect(100, 10, 50, 20)],
            size: sz(300, 50))
    }

    func testBaselineFirstInAnExactContainerStartsAtTheTop() {
        let layout = alignRow(
            .baselineFirst,
            [
                leaf(50, 30) { $0.ascender = 20 },
                leaf(50, 50) { $0.ascender = 10 },
            ])
        // Same baseline group as above at the cross start of the 100-high line: y = 0 and 10.
        assertFrames(layout, [rect(0, 0, 50, 30), rect(50, 10, 50, 50)], size: sz(300, 100))
    }

    func testAlignSelfBaselineMixedWithStart() {
        let layout = alignRow(
            .start,
            [
                leaf(50, 30) {
                    $0.ascender = 20; $0.alignSelf = .baselineFirst
                },
                leaf(50, 50) {
                    $0.ascender = 10; $0.alignSelf = .baselineFirst
                },
                leaf(50, 20),
            ], range: sr(300, 0, 300, 200))
        // Baseline items: max ascent 20 → y 0 and 10 (extents 0…30, 10…60); the start item y 0.
        // Line = max(60, 20) = 60.
        assertFrames(
            layout, [rect(0, 0, 50, 30), rect(50, 10, 50, 50), rect(100, 0, 50, 20)],
            size: sz(300, 60))
    }

    func testBaselineInVerticalStackFallsBackToStart() {
        let stack = StackLayoutSpec(
            direction: .vertical, alignItems: .baselineFirst,
            children: [
                leaf(30, 50) { $0.ascender = 20 },
                leaf(60, 40) { $0.ascender = 10 },
            ])
        let layout = stack.layoutThatFits(sr(100, 0, 100, 300))
        // Vertical: baseline → start: x = 0, not stretched (30 and 60 wide); y = 0, 50.
        // Height = 50 + 40 = 90 clamped into [0, 300]; width exact 100.
        assertFrames(layout, [rect(0, 0, 30, 50), rect(0, 50, 60, 40)], size: sz(100, 90))
    }

    // MARK: - flex-grow (CSS §9.7), row in an exact 300×100 container, alignItems start

    private func flexRow(
        _ children: [any LayoutElement], spacing: CGFloat = 0,
        range: SizeRange = exact(300, 100)
    ) -> Layout {
        StackLayoutSpec(spacing: spacing, alignItems: .start, children: children).layoutThatFits(range)
    }

    func testGrowEqual() {
        let layout = flexRow([leaf(50, 20) { $0.flexGrow = 1 }, leaf(100, 20) { $0.flexGrow = 1 }])
        // free = 300 − (50 + 100) = 150; grow 1:1 → +75 each: 125, 175.
        assertFrames(layout, [rect(0, 0, 125, 20), rect(125, 0, 175, 20)], size: sz(300, 100))
    }

    func testGrowUnequal() {
        let layout = flexRow([leaf(50, 20) { $0.flexGrow = 1 }, leaf(100, 20) { $0.flexGrow = 2 }])
        // free = 150; grow 1:2 → 50 + 50 = 100, 100 + 100 = 200.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 200, 20)], size: sz(300, 100))
    }

    func testGrowOnlyTheGrowingChild() {
        let layout = flexRow([leaf(50, 20), leaf(100, 20) { $0.flexGrow = 1 }])
        // First is inflexible (grow 0) → 50; second takes all 150 → 250.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 250, 20)], size: sz(300, 100))
    }

    func testGrowFactorsSummingBelowOneTakeOnlyTheirShare() {
        let layout = flexRow([leaf(50, 20) { $0.flexGrow = 0.25 }, leaf(100, 20) { $0.flexGrow = 0.25 }])
        // §9.7 4b: sum 0.5 < 1 → free = 150 × 0.5 = 75 (< 150); shared 0.25:0.25 → +37.5 each:
        // 87.5, 137.5 (75 left unused at the end).
        assertFrames(layout, [rect(0, 0, 87.5, 20), rect(87.5, 0, 137.5, 20)], size: sz(300, 100))
    }

    func testSingleHalfGrowTakesHalfTheFreeSpace() {
        let layout = flexRow([leaf(100, 20) { $0.flexGrow = 0.5 }])
        // free = 200; sum 0.5 → 100 → 200 wide.
        assertFrames(layout, [rect(0, 0, 200, 20)], size: sz(300, 100))
    }

    func testGrowFactorsSummingToOneTakeAll() {
        let layout = flexRow([leaf(50, 20) { $0.flexGrow = 0.6 }, leaf(50, 20) { $0.flexGrow = 0.4 }])
        // free = 200; sum 1 → all of it: +120, +80 → 170, 130.
        assertFrames(layout, [rect(0, 0, 170, 20), rect(170, 0, 130, 20)], size: sz(300, 100))
    }

    func testGrowWithMaxHandsSpaceBack() {
        let layout = flexRow([
            leaf(50, 20) {
                $0.flexGrow = 1; $0.maxWidth = .points(80)
            },
            leaf(50, 20) { $0.flexGrow = 1 },
        ])
        // free = 200 → 150 each; first violates max 80 (−70), total < 0 → freeze it at 80.
        // Again: free = 300 − 80 − 50 = 170 → second 50 + 170 = 220.
        assertFrames(layout, [rect(0, 0, 80, 20), rect(80, 0, 220, 20)], size: sz(300, 100))
    }

    func testGrowWithTwoMaxClamps() {
        let layout = flexRow([
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.maxWidth = .points(80)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.maxWidth = .points(90)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
        ])
        // Bases 0: 100 each; 100 → 80 (−20), 100 → 90 (−10): total −30 → freeze both.
        // free = 300 − 170 = 130 → third 130. x = 0, 80, 170.
        assertFrames(
            layout, [rect(0, 0, 80, 20), rect(80, 0, 90, 20), rect(170, 0, 130, 20)],
            size: sz(300, 100))
    }

    func testGrowWithMinFreezesTheMinViolator() {
        let layout = flexRow([
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.minWidth = .points(120)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
        ])
        // Flex base sizes 0 (hypothetical 120, 0, 0 → sum 120 < 300: grow).
        // free = 300 − 0 = 300 → 100 each; first < min 120 (+20), total > 0 → freeze it at 120.
        // free = 300 − 120 = 180 → 90, 90. x = 0, 120, 210.
        assertFrames(
            layout, [rect(0, 0, 120, 20), rect(120, 0, 90, 20), rect(210, 0, 90, 20)],
            size: sz(300, 100))
    }

    func testGrowNegativeTotalViolationFreezesOnlyMaxViolators() {
        let layout = flexRow([
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.minWidth = .points(110)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.maxWidth = .points(20)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
        ])
        // Pass 1: 100 each → A 110 (+10), B 20 (−80), C 100: total −70 < 0 → freeze only B at 20.
        // Pass 2: free = 300 − 20 − 0 − 0 = 280 → A 140, C 140; no violations.
        // x = 0, 140, 160.
        assertFrames(
            layout, [rect(0, 0, 140, 20), rect(140, 0, 20, 20), rect(160, 0, 140, 20)],
            size: sz(300, 100))
    }

    func testGrowPositiveTotalViolationFreezesOnlyMinViolators() {
        let layout = flexRow([
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.minWidth = .points(150)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0); $0.maxWidth = .points(90)
            },
            bar(height: 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
        ])
        // Pass 1: 100 each → A 150 (+50), B 90 (−10): total +40 > 0 → freeze only A at 150.
        // Pass 2: free = 300 − 150 = 150 → B 75, C 75 (B < 90, fine). x = 0, 150, 225.
        assertFrames(
            layout, [rect(0, 0, 150, 20), rect(150, 0, 75, 20), rect(225, 0, 75, 20)],
            size: sz(300, 100))
    }

    func testGrowWithSpacing() {
        let layout = flexRow(
            [
                bar(height: 20) { $0.flexGrow = 1 },
                bar(height: 20) { $0.flexGrow = 1 },
                bar(height: 20) { $0.flexGrow = 1 },
            ], spacing: 10)
        // Content widths 0; free = 300 − 2·10 = 280 → 280/3 each.
        // x = 0, 280/3 + 10 = 310/3, 2·280/3 + 20 = 620/3.
        assertFrames(
            layout,
            [
                rect(0, 0, 280.0 / 3, 20), rect(310.0 / 3, 0, 280.0 / 3, 20),
                rect(620.0 / 3, 0, 280.0 / 3, 20),
            ], size: sz(300, 100))
    }

    func testAbsoluteFlexWithZeroBasis() {
        // CSS §7.1 figure: "flex: 1", "flex: 1", "flex: 2" with basis 0 → sizes proportional 1:1:2.
        let layout = flexRow([
            leaf(100, 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
            leaf(20, 20) {
                $0.flexGrow = 1; $0.flexBasis = .points(0)
            },
            leaf(20, 20) {
                $0.flexGrow = 2; $0.flexBasis = .points(0)
            },
        ])
        // free = 300 → 75, 75, 150 whatever the content. x = 0, 75, 150.
        assertFrames(
            layout, [rect(0, 0, 75, 20), rect(75, 0, 75, 20), rect(150, 0, 150, 20)],
            size: sz(300, 100))
    }

    func testRelativeFlexWithAutoBasis() {
        // The same factors with basis auto: only the free space is shared 1:1:2.
        let layout = flexRow([
            leaf(100, 20) { $0.flexGrow = 1 },
            leaf(20, 20) { $0.flexGrow = 1 },
            leaf(20, 20) { $0.flexGrow = 2 },
        ])
        // free = 300 − 140 = 160 → +40, +40, +80 → 140, 60, 100. x = 0, 140, 200.
        assertFrames(
            layout, [rect(0, 0, 140, 20), rect(140, 0, 60, 20), rect(200, 0, 100, 20)],
            size: sz(300, 100))
    }

    func testNoGrowWhenContentReachesTheRangeMin() {
        let layout = flexRow([leaf(50, 20) { $0.flexGrow = 1 }, leaf(100, 20)], range: sr(0, 100, 300, 100))
        // Range min width 0 ≤ 150: no growth; stack width = 150 clamped into [0, 300] = 150.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 100, 20)], size: sz(150, 100))
    }

    func testGrowToTheRangeMin() {
        let layout = flexRow(
            [leaf(50, 20) { $0.flexGrow = 1 }, leaf(100, 20) { $0.flexGrow = 1 }],
            range: sr(200, 100, 400, 100))
        // Content 150 < min 200 → free = 50 → +25 each: 75, 125; stack 200.
        assertFrames(layout, [rect(0, 0, 75, 20), rect(75, 0, 125, 20)], size: sz(200, 100))
    }

    // MARK: - flex-shrink (CSS §9.7, scaled shrink factor = flexShrink × flex base size)

    func testShrinkWeightedByBasis() {
        let layout = flexRow(
            [leaf(200, 20) { $0.flexShrink = 1 }, leaf(100, 20) { $0.flexShrink = 1 }],
            range: exact(150, 100))
        // free = 150 − 300 = −150; scaled 200:100 → −100, −50 → 100, 50.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 50, 20)], size: sz(150, 100))
    }

    func testShrinkWeightedByFactorTimesBasis() {
        let layout = flexRow(
            [leaf(200, 20) { $0.flexShrink = 1 }, leaf(100, 20) { $0.flexShrink = 2 }],
            range: exact(150, 100))
        // Scaled 1·200 = 200 and 2·100 = 200 → −75 each: 125, 25.
        assertFrames(layout, [rect(0, 0, 125, 20), rect(125, 0, 25, 20)], size: sz(150, 100))
    }

    func testShrinkToMin() {
        let layout = flexRow(
            [
                leaf(200, 20) {
                    $0.flexShrink = 1; $0.minWidth = .points(150)
                },
                leaf(100, 20) { $0.flexShrink = 1 },
            ], range: exact(200, 100))
        // free = −100; 200:100 → 133.333 (< min 150, +16.667), 66.667; total > 0 → freeze A at 150.
        // free = 200 − 150 − 100 = −50 → B 50. x = 0, 150.
        assertFrames(layout, [rect(0, 0, 150, 20), rect(150, 0, 50, 20)], size: sz(200, 100))
    }

    func testShrinkWithMaxBelowBasis() {
        let layout = flexRow(
            [
                leaf(50, 20) {
                    $0.flexShrink = 1; $0.flexBasis = .points(200); $0.maxWidth = .points(120)
                },
                leaf(100, 20) { $0.flexShrink = 1 },
            ], range: exact(200, 100))
        // A: base 200, hypothetical 120; B: 100. Hypothetical sum 220 > 200 → shrink.
        // A is not frozen (base 200 > hypothetical). free = 200 − (200 + 100) = −100;
        // scaled 200:100 → A 133.333 (> max 120, −13.333), B 66.667; total < 0 → freeze A at 120.
        // free = 200 − 120 − 100 = −20 → B 80. x = 0, 120.
        assertFrames(layout, [rect(0, 0, 120, 20), rect(120, 0, 80, 20)], size: sz(200, 100))
    }

    func testShrinkZeroChildOverflowsAndOnlyTheOtherShrinks() {
        let layout = flexRow([leaf(200, 20), leaf(200, 20) { $0.flexShrink = 1 }])
        // free = 300 − 400 = −100; only the second shrinks: 200 − 100 = 100. x = 0, 200.
        assertFrames(layout, [rect(0, 0, 200, 20), rect(200, 0, 100, 20)], size: sz(300, 100))
    }

    func testShrinkDefaultZeroOverflows() {
        let layout = flexRow([leaf(200, 20), leaf(200, 20)])
        // flexShrink defaults to 0: no shrinking, 0 and 200 (ends at 400); stack 300.
        assertFrames(layout, [rect(0, 0, 200, 20), rect(200, 0, 200, 20)], size: sz(300, 100))
    }

    func testShrinkBelowContentHasNoAutomaticMinimum() {
        let layout = flexRow([leaf(200, 20) { $0.flexShrink = 1 }, fixed(250, 20)])
        // free = 300 − 450 = −150; only the leaf shrinks: 200 − 150 = 50 (min-width treated as 0).
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 250, 20)], size: sz(300, 100))
    }

    func testNoShrinkWhenContentFitsTheRangeMax() {
        let layout = flexRow(
            [leaf(200, 20) { $0.flexShrink = 1 }, leaf(100, 20) { $0.flexShrink = 1 }],
            range: sr(0, 100, 400, 100))
        // 300 ≤ max 400: no shrinking; stack width 300.
        assertFrames(layout, [rect(0, 0, 200, 20), rect(200, 0, 100, 20)], size: sz(300, 100))
    }

    func testShrinkWithSpacing() {
        let layout = flexRow(
            [leaf(200, 20) { $0.flexShrink = 1 }, leaf(100, 20) { $0.flexShrink = 1 }],
            spacing: 20, range: exact(220, 100))
        // free = 220 − (200 + 20 + 100) = −100; 200:100 → 133.333, 66.667.
        // x = 0, 133.333 + 20 = 153.333.
        assertFrames(
            layout, [rect(0, 0, 400.0 / 3, 20), rect(460.0 / 3, 0, 200.0 / 3, 20)],
            size: sz(220, 100))
    }

    func testShrinkFactorsSummingBelowOneShrinkOnlyPartly() {
        let layout = flexRow(
            [leaf(200, 20) { $0.flexShrink = 0.25 }, leaf(100, 20) { $0.flexShrink = 0.25 }],
            range: exact(200, 100))
        // §9.7 4b applies to shrink too: sum 0.5 → free = −100 × 0.5 = −50 (|−50| < |−100|).
        // Scaled 0.25·200 = 50, 0.25·100 = 25 → −33.333, −16.667 → 166.667, 83.333 (50 overflow).
        assertFrames(
            layout, [rect(0, 0, 500.0 / 3, 20), rect(500.0 / 3, 0, 250.0 / 3, 20)],
            size: sz(200, 100))
    }

    // MARK: - flex-basis

    func testPointsBasisReplacesContent() {
        let layout = flexRow([leaf(50, 20) { $0.flexBasis = .points(100) }, leaf(50, 20)])
        // Basis 100 replaces the content 50 (no flex): 100, then 50 at x 100.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 50, 20)], size: sz(300, 100))
    }

    func testFractionBasis() {
        let layout = flexRow([leaf(50, 20) { $0.flexBasis = .fraction(0.5) }, leaf(50, 20)])
        // 0.5 × 300 (range max) = 150; then 50 at x 150.
        assertFrames(layout, [rect(0, 0, 150, 20), rect(150, 0, 50, 20)], size: sz(300, 100))
    }

    func testBasisWithGrow() {
        let layout = flexRow([
            leaf(100, 20) {
                $0.flexBasis = .points(0); $0.flexGrow = 1
            },
            leaf(50, 20) {
                $0.flexBasis = .points(0); $0.flexGrow = 1
            },
        ])
        // Bases 0 → free 300 → 150 each regardless of content.
        assertFrames(layout, [rect(0, 0, 150, 20), rect(150, 0, 150, 20)], size: sz(300, 100))
    }

    func testBasisLargerThanContent() {
        let layout = flexRow([leaf(50, 20) { $0.flexBasis = .points(200) }, leaf(50, 20) { $0.flexGrow = 1 }])
        // First 200 (basis > content 50); free = 300 − 250 = 50 → second 100. x = 0, 200.
        assertFrames(layout, [rect(0, 0, 200, 20), rect(200, 0, 100, 20)], size: sz(300, 100))
    }

    func testBasisWinsOverWidth() {
        let layout = flexRow([fixed(80, 20) { $0.flexBasis = .points(120) }, fixed(50, 20)])
        // flex-basis 120 (not auto) is used instead of width 80 → 120; next at 120.
        assertFrames(layout, [rect(0, 0, 120, 20), rect(120, 0, 50, 20)], size: sz(300, 100))
    }

    func testAutoBasisUsesWidthThenGrows() {
        let layout = flexRow([fixed(80, 20) { $0.flexGrow = 1 }, fixed(20, 20) { $0.flexGrow = 1 }])
        // Bases = widths 80, 20; free = 200 → +100 each: 180, 120.
        assertFrames(layout, [rect(0, 0, 180, 20), rect(180, 0, 120, 20)], size: sz(300, 100))
    }

    func testBasisWithShrink() {
        let layout = flexRow(
            [
                leaf(50, 20) {
                    $0.flexBasis = .points(200); $0.flexShrink = 1
                },
                leaf(50, 20) {
                    $0.flexBasis = .points(100); $0.flexShrink = 1
                },
            ],
            range: exact(150, 100))
        // free = 150 − 300 = −150; scaled by bases 200:100 → −100, −50 → 100, 50.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 50, 20)], size: sz(150, 100))
    }

    func testBasisBelowMinIsClampedUp() {
        let layout = flexRow([
            leaf(50, 20) {
                $0.flexBasis = .points(10); $0.minWidth = .points(40)
            },
            fixed(30, 20),
        ])
        // Hypothetical = 10 clamped into [40, ∞) = 40 (no flex). Next at 40.
        assertFrames(layout, [rect(0, 0, 40, 20), rect(40, 0, 30, 20)], size: sz(300, 100))
    }

    func testBasisAboveMaxIsClampedDown() {
        let layout = flexRow([
            leaf(50, 20) {
                $0.flexBasis = .points(200); $0.maxWidth = .points(120)
            },
            fixed(30, 20),
        ])
        // Hypothetical = 200 clamped into [0, 120] = 120 (no flex). Next at 120.
        assertFrames(layout, [rect(0, 0, 120, 20), rect(120, 0, 30, 20)], size: sz(300, 100))
    }

    // MARK: - min/max on children without flexing

    func testChildMinWidthAboveContent() {
        let layout = flexRow([leaf(30, 20) { $0.minWidth = .points(60) }, fixed(50, 20)])
        // 30 clamped into [60, ∞) = 60; next at 60.
        assertFrames(layout, [rect(0, 0, 60, 20), rect(60, 0, 50, 20)], size: sz(300, 100))
    }

    func testChildMaxWidthBelowContent() {
        let layout = flexRow([leaf(100, 20) { $0.maxWidth = .points(40) }, fixed(50, 20)])
        // 100 clamped into [0, 40] = 40; next at 40.
        assertFrames(layout, [rect(0, 0, 40, 20), rect(40, 0, 50, 20)], size: sz(300, 100))
    }

    func testFractionWidthResolvesAgainstTheRangeMax() {
        let layout = flexRow([fixed(0, 20) { $0.width = .fraction(0.25) }, fixed(0, 20) { $0.width = .fraction(0.5) }])
        // 0.25 × 300 = 75, 0.5 × 300 = 150; x = 0, 75.
        assertFrames(layout, [rect(0, 0, 75, 20), rect(75, 0, 150, 20)], size: sz(300, 100))
    }

    func testFractionWidthWithNonExactRange() {
        let layout = StackLayoutSpec(children: [fixed(0, 20) { $0.width = .fraction(0.25) }, leaf(50, 20)])
            .layoutThatFits(sr(0, 100, 400, 100))
        // 0.25 × 400 (range max) = 100; content 150 → stack 150. Default stretch: the fixed box keeps
        // its explicit height 20, the leaf is stretched to 100.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 50, 100)], size: sz(150, 100))
    }

    // MARK: - spacingBefore / spacingAfter

    func testSpacingBeforeAndAfter() {
        let layout = flexRow([fixed(50, 20) { $0.spacingAfter = 5 }, fixed(50, 20) { $0.spacingBefore = 10 }])
        // x0 = 0; x1 = 50 + 5 + 10 = 65.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(65, 0, 50, 20)], size: sz(300, 100))
    }

    func testSpacingBeforeFirstChildOffsetsIt() {
        let layout = flexRow([fixed(50, 20) { $0.spacingBefore = 10 }, fixed(50, 20)])
        // x0 = 10; x1 = 10 + 50 = 60.
        assertFrames(layout, [rect(10, 0, 50, 20), rect(60, 0, 50, 20)], size: sz(300, 100))
    }

    func testSpacingAfterLastChildCountsWithJustifyEnd() {
        let layout = StackLayoutSpec(
            justifyContent: .end, alignItems: .start,
            children: [fixed(50, 20), fixed(50, 20) { $0.spacingAfter = 20 }]
        )
        .layoutThatFits(exact(300, 100))
        // used = 50 + 50 + 20 = 120; free 180 → x0 = 180, x1 = 230 (ends at 280, +20 = 300).
        assertFrames(layout, [rect(180, 0, 50, 20), rect(230, 0, 50, 20)], size: sz(300, 100))
    }

    func testSpacingAddsToSpacingBefore() {
        let layout = flexRow([fixed(50, 20), fixed(50, 20) { $0.spacingBefore = 5 }, fixed(50, 20)], spacing: 10)
        // x0 = 0; x1 = 50 + 10 + 5 = 65; x2 = 65 + 50 + 10 = 125.
        assertFrames(
            layout, [rect(0, 0, 50, 20), rect(65, 0, 50, 20), rect(125, 0, 50, 20)],
            size: sz(300, 100))
    }

    func testSpacingBeforeReducesGrowSpace() {
        let layout = flexRow([fixed(50, 20) { $0.spacingBefore = 20 }, bar(height: 20) { $0.flexGrow = 1 }])
        // free = 300 − (20 + 50 + 0) = 230 → second 230 at x 70.
        assertFrames(layout, [rect(20, 0, 50, 20), rect(70, 0, 230, 20)], size: sz(300, 100))
    }

    func testSpacingDeterminesContentSize() {
        let layout = flexRow(
            [fixed(50, 20) { $0.spacingAfter = 7 }, fixed(50, 20)], spacing: 3,
            range: sr(0, 100, 400, 100))
        // Content = 50 + 7 + 3 + 50 = 110 → stack width 110; x1 = 60.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(60, 0, 50, 20)], size: sz(110, 100))
    }

    // MARK: - The stack's own style min/max

    func testStackMaxWidthMakesChildrenShrink() {
        let stack = StackLayoutSpec(children: [leaf(150, 20) { $0.flexShrink = 1 }, leaf(150, 20) { $0.flexShrink = 1 }])
        stack.style.maxWidth = .points(200)
        let layout = stack.layoutThatFits(sr(0, 100, 500, 100))
        // Range [0, 500] ∩ style [0, 200] = [0, 200]; 300 > 200 → shrink 50 each → 100, 100.
        // Default stretch → heights 100.
        assertFrames(layout, [rect(0, 0, 100, 100), rect(100, 0, 100, 100)], size: sz(200, 100))
    }

    func testStackMinWidthMakesChildrenGrow() {
        let stack = StackLayoutSpec(
            alignItems: .start,
            children: [leaf(50, 20) { $0.flexGrow = 1 }, leaf(100, 20) { $0.flexGrow = 1 }])
        stack.style.minWidth = .points(300)
        let layout = stack.layoutThatFits(sr(0, 100, 500, 100))
        // Range [300, 500]; 150 < 300 → free 150 → 125, 175.
        assertFrames(layout, [rect(0, 0, 125, 20), rect(125, 0, 175, 20)], size: sz(300, 100))
    }

    func testStackExplicitWidthIsADefiniteContainer() {
        let stack = StackLayoutSpec(
            alignItems: .start,
            children: [leaf(50, 20) { $0.flexGrow = 1 }, leaf(100, 20) { $0.flexGrow = 1 }])
        stack.style.width = .points(250)
        let layout = stack.layoutThatFits(sr(0, 100, 500, 100))
        // Exact 250: free 100 → +50 each: 100, 150.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 150, 20)], size: sz(250, 100))
    }

    func testStackExplicitHeightIsTheLineForStretch() {
        let stack = StackLayoutSpec(children: [leaf(50, 20), leaf(60, 40)])
        stack.style.height = .points(60)
        let layout = stack.layoutThatFits(sr(300, 0, 300, 200))
        // Cross exactly 60 → both stretched to 60.
        assertFrames(layout, [rect(0, 0, 50, 60), rect(50, 0, 60, 60)], size: sz(300, 60))
    }

    func testStackMaxHeightLimitsTheCrossRange() {
        let stack = StackLayoutSpec(alignItems: .start, children: [leaf(50, 20), leaf(60, 50)])
        stack.style.maxHeight = .points(30)
        let layout = stack.layoutThatFits(sr(300, 0, 300, 200))
        // Cross range [0, 30]: children measured with [0, 30] → 20 and 50 clamped to 30;
        // stack cross = 30.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 60, 30)], size: sz(300, 30))
    }

    // MARK: - Wrapping (CSS §9.3 line collection, §9.4 line cross sizes, §9.6 align-content)

    private func wrapRow(
        _ children: [any LayoutElement], spacing: CGFloat = 0, lineSpacing: CGFloat = 0,
        justify: StackLayoutSpec.JustifyContent = .start,
        alignItems: StackLayoutSpec.AlignItems = .start,
        alignContent: StackLayoutSpec.AlignContent = .start,
        range: SizeRange = sr(200, 0, 200, 300)
    ) -> Layout {
        let stack = StackLayoutSpec(
            spacing: spacing, justifyContent: justify, alignItems: alignItems,
            children: children)
        stack.flexWrap = .wrap
        stack.alignContent = alignContent
        stack.lineSpacing = lineSpacing
        return stack.layoutThatFits(range)
    }

    func testWrapBreaksLines() {
        let layout = wrapRow((0..<5).map { _ in fixed(60, 20) })
        // 60 + 60 + 60 = 180 ≤ 200, + 60 = 240 > 200 → lines [0, 1, 2], [3, 4]; each 20 high.
        // Stack 200 × (20 + 20) = 40.
        assertFrames(
            layout,
            [
                rect(0, 0, 60, 20), rect(60, 0, 60, 20), rect(120, 0, 60, 20),
                rect(0, 20, 60, 20), rect(60, 20, 60, 20),
            ], size: sz(200, 40))
    }

    func testWrapBreaksWithSpacingAndLineSpacing() {
        let layout = wrapRow((0..<5).map { _ in fixed(60, 20) }, spacing: 10, lineSpacing: 5)
        // 60 + 10 + 60 + 10 + 60 = 200 ≤ 200 (fits exactly); + 10 + 60 = 270 > 200 → break.
        // Line 1 x = 0, 70, 140; line 2 y = 20 + 5 = 25, x = 0, 70. Height 20 + 5 + 20 = 45.
        assertFrames(
            layout,
            [
                rect(0, 0, 60, 20), rect(70, 0, 60, 20), rect(140, 0, 60, 20),
                rect(0, 25, 60, 20), rect(70, 25, 60, 20),
            ], size: sz(200, 45))
    }

    func testWrapSpacingCausesABreak() {
        let layout = wrapRow([fixed(100, 20), fixed(100, 20)], spacing: 10)
        // 100 + 10 + 100 = 210 > 200 → two lines. Height 40.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(0, 20, 100, 20)], size: sz(200, 40))
    }

    func testWrapExactFitWithSpacingStaysOnOneLine() {
        let layout = wrapRow([fixed(95, 20), fixed(95, 20)], spacing: 10)
        // 95 + 10 + 95 = 200 ≤ 200 → one line: x = 0, 105.
        assertFrames(layout, [rect(0, 0, 95, 20), rect(105, 0, 95, 20)], size: sz(200, 20))
    }

    func testWrapLineCrossIsTheTallestItem() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 40), fixed(80, 30)])
        // Lines [80, 80] (160; +80 = 240 > 200), [80]. Line crosses 40 and 30 → second line at y 40.
        // Height 40 + 30 = 70.
        assertFrames(layout, [rect(0, 0, 80, 20), rect(80, 0, 80, 40), rect(0, 40, 80, 30)], size: sz(200, 70))
    }

    func testWrapAlignItemsCenterWithinLines() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 40), fixed(80, 30)], alignItems: .center)
        // Line 1 cross 40: y = (40 − 20)/2 = 10 and 0. Line 2 cross 30 at y 40: y = 40.
        assertFrames(layout, [rect(0, 10, 80, 20), rect(80, 0, 80, 40), rect(0, 40, 80, 30)], size: sz(200, 70))
    }

    func testWrapStretchItemsFillTheirLine() {
        let layout = wrapRow([leaf(80, 20), leaf(80, 40), leaf(80, 30)], alignItems: .stretch)
        // Line 1 cross = 40 → first stretched to 40; line 2 cross 30 → third 30 (its own height).
        assertFrames(layout, [rect(0, 0, 80, 40), rect(80, 0, 80, 40), rect(0, 40, 80, 30)], size: sz(200, 70))
    }

    func testWrapJustifyContentPerLine() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 20), fixed(80, 20)], justify: .center)
        // Line 1: free = 200 − 160 = 40 → offset 20: x 20, 100. Line 2: free 120 → offset 60.
        assertFrames(layout, [rect(20, 0, 80, 20), rect(100, 0, 80, 20), rect(60, 20, 80, 20)], size: sz(200, 40))
    }

    func testWrapFlexesEachLineIndependently() {
        let layout = wrapRow([
            fixed(60, 20) { $0.flexGrow = 1 },
            fixed(60, 20),
            fixed(60, 20) { $0.flexGrow = 1 },
            fixed(60, 20) { $0.flexGrow = 1 },
        ])
        // Lines by hypothetical sizes: [A, B, C] (180), [D].
        // Line 1: free 20 → A, C +10 → 70, 60, 70 at x 0, 70, 130. Line 2: free 140 → D 200.
        // Note: width 60 is only the basis; growing replaces it (CSS main size).
        assertFrames(
            layout,
            [
                rect(0, 0, 70, 20), rect(70, 0, 60, 20), rect(130, 0, 70, 20),
                rect(0, 20, 200, 20),
            ], size: sz(200, 40))
    }

    func testWrapItemWiderThanTheLineGetsItsOwnLine() {
        let layout = wrapRow([fixed(60, 20), fixed(250, 20), fixed(60, 20)])
        // 60 + 250 > 200 → break; 250 alone (overflows); 250 + 60 > 200 → break.
        // Lines at y 0, 20, 40; height 60.
        assertFrames(layout, [rect(0, 0, 60, 20), rect(0, 20, 250, 20), rect(0, 40, 60, 20)], size: sz(200, 60))
    }

    func testWrapItemWiderThanTheLineShrinksOnItsLine() {
        let layout = wrapRow([fixed(60, 20), leaf(250, 20) { $0.flexShrink = 1 }, fixed(60, 20)])
        // Lines by hypothetical size as above; line 2: free = 200 − 250 = −50 → the leaf shrinks to 200.
        assertFrames(layout, [rect(0, 0, 60, 20), rect(0, 20, 200, 20), rect(0, 40, 60, 20)], size: sz(200, 60))
    }

    func testWrapLineSpacing() {
        let layout = wrapRow([fixed(150, 20), fixed(150, 20), fixed(150, 20)], lineSpacing: 10)
        // One item a line (150 + 150 > 200): y = 0, 30, 60; height 20·3 + 10·2 = 80.
        assertFrames(layout, [rect(0, 0, 150, 20), rect(0, 30, 150, 20), rect(0, 60, 150, 20)], size: sz(200, 80))
    }

    func testWrapMainSizeIsTheLongestLine() {
        let layout = wrapRow((0..<5).map { _ in fixed(60, 20) }, range: sr(0, 0, 200, 300))
        // Breaks at max 200: lines 180 and 120 → content width 180 clamped into [0, 200] = 180.
        assertFrames(
            layout,
            [
                rect(0, 0, 60, 20), rect(60, 0, 60, 20), rect(120, 0, 60, 20),
                rect(0, 20, 60, 20), rect(60, 20, 60, 20),
            ], size: sz(180, 40))
    }

    // align-content in an exact 200×100 container with four 80×20 boxes: lines [0, 1], [2, 3],
    // each 20 high; free cross = 100 − 40 = 60.

    private func fourBoxes() -> [any LayoutElement] { (0..<4).map { _ in fixed(80, 20) } }
    private func fiveBoxes() -> [any LayoutElement] { (0..<5).map { _ in fixed(80, 20) } }

    func testAlignContentStart() {
        let layout = wrapRow(fourBoxes(), alignContent: .start, range: exact(200, 100))
        // Lines at y 0 and 20.
        assertFrames(
            layout, [rect(0, 0, 80, 20), rect(80, 0, 80, 20), rect(0, 20, 80, 20), rect(80, 20, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentCenter() {
        let layout = wrapRow(fourBoxes(), alignContent: .center, range: exact(200, 100))
        // offset 60/2 = 30 → lines at 30 and 50.
        assertFrames(
            layout, [rect(0, 30, 80, 20), rect(80, 30, 80, 20), rect(0, 50, 80, 20), rect(80, 50, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentEnd() {
        let layout = wrapRow(fourBoxes(), alignContent: .end, range: exact(200, 100))
        // offset 60 → lines at 60 and 80.
        assertFrames(
            layout, [rect(0, 60, 80, 20), rect(80, 60, 80, 20), rect(0, 80, 80, 20), rect(80, 80, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentSpaceBetween() {
        let layout = wrapRow(fiveBoxes(), alignContent: .spaceBetween, range: exact(200, 100))
        // Lines [0, 1], [2, 3], [4]; free = 100 − 60 = 40; 2 gaps of 20 → y 0, 40, 80.
        assertFrames(
            layout,
            [
                rect(0, 0, 80, 20), rect(80, 0, 80, 20), rect(0, 40, 80, 20), rect(80, 40, 80, 20),
                rect(0, 80, 80, 20),
            ], size: sz(200, 100))
    }

    func testAlignContentSpaceAround() {
        let layout = wrapRow(fiveBoxes(), alignContent: .spaceAround, range: exact(200, 100))
        // free 40 → 40/3 around each line, 20/3 at the ends:
        // y0 = 20/3 ≈ 6.667; y1 = 20/3 + 20 + 40/3 = 40; y2 = 40 + 20 + 40/3 = 220/3 ≈ 73.333.
        assertFrames(
            layout,
            [
                rect(0, 20.0 / 3, 80, 20), rect(80, 20.0 / 3, 80, 20), rect(0, 40, 80, 20),
                rect(80, 40, 80, 20), rect(0, 220.0 / 3, 80, 20),
            ], size: sz(200, 100))
    }

    func testAlignContentStretchGrowsLines() {
        let layout = wrapRow(fourBoxes(), alignContent: .stretch, range: exact(200, 100))
        // Each line + 60/2 = 30 → 50 high; boxes (explicit height, alignItems start) at y 0 and 50.
        assertFrames(
            layout, [rect(0, 0, 80, 20), rect(80, 0, 80, 20), rect(0, 50, 80, 20), rect(80, 50, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentStretchThenStretchItems() {
        let layout = wrapRow(
            (0..<4).map { _ in leaf(80, 20) }, alignItems: .stretch, alignContent: .stretch,
            range: exact(200, 100))
        // Lines 20 → 50 each; the leaves stretched to their line: 50 high at y 0 and 50.
        assertFrames(
            layout, [rect(0, 0, 80, 50), rect(80, 0, 80, 50), rect(0, 50, 80, 50), rect(80, 50, 80, 50)],
            size: sz(200, 100))
    }

    func testAlignContentStartWithStretchItemsUsesLineCross() {
        let layout = wrapRow(
            [leaf(80, 20), leaf(80, 40), leaf(80, 20), leaf(80, 10)], alignItems: .stretch,
            alignContent: .start, range: exact(200, 100))
        // Lines [20, 40] → 40 and [20, 10] → 20; alignContent start: lines at 0 and 40; no extra.
        // Stretched to the line: 40, 40 then 20, 20.
        assertFrames(
            layout, [rect(0, 0, 80, 40), rect(80, 0, 80, 40), rect(0, 40, 80, 20), rect(80, 40, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentSpaceBetweenWithLineSpacing() {
        let layout = wrapRow(fourBoxes(), lineSpacing: 10, alignContent: .spaceBetween, range: exact(200, 100))
        // Used 20 + 10 + 20 = 50; free 50 into the single gap: y 0, 20 + 10 + 50 = 80.
        assertFrames(
            layout, [rect(0, 0, 80, 20), rect(80, 0, 80, 20), rect(0, 80, 80, 20), rect(80, 80, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentCenterWithLineSpacing() {
        let layout = wrapRow(fourBoxes(), lineSpacing: 10, alignContent: .center, range: exact(200, 100))
        // Used 50; free 50 → offset 25: lines at 25 and 25 + 20 + 10 = 55.
        assertFrames(
            layout, [rect(0, 25, 80, 20), rect(80, 25, 80, 20), rect(0, 55, 80, 20), rect(80, 55, 80, 20)],
            size: sz(200, 100))
    }

    func testAlignContentSingleLineCenter() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 20)], alignContent: .center, range: exact(200, 100))
        // Multi-line container with one line of 20: offset (100 − 20)/2 = 40.
        assertFrames(layout, [rect(0, 40, 80, 20), rect(80, 40, 80, 20)], size: sz(200, 100))
    }

    func testAlignContentSingleLineEnd() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 20)], alignContent: .end, range: exact(200, 100))
        // Offset 100 − 20 = 80.
        assertFrames(layout, [rect(0, 80, 80, 20), rect(80, 80, 80, 20)], size: sz(200, 100))
    }

    func testAlignContentSingleLineSpaceBetweenIsStart() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 20)], alignContent: .spaceBetween, range: exact(200, 100))
        // One line: space-between = flex-start → y 0.
        assertFrames(layout, [rect(0, 0, 80, 20), rect(80, 0, 80, 20)], size: sz(200, 100))
    }

    func testAlignContentSingleLineSpaceAroundIsCentered() {
        let layout = wrapRow([fixed(80, 20), fixed(80, 20)], alignContent: .spaceAround, range: exact(200, 100))
        // One line: half of 80 on each side → y 40.
        assertFrames(layout, [rect(0, 40, 80, 20), rect(80, 40, 80, 20)], size: sz(200, 100))
    }

    func testAlignContentSingleLineStretch() {
        let layout = wrapRow(
            [leaf(80, 20), leaf(80, 30)], alignItems: .stretch, alignContent: .stretch,
            range: exact(200, 100))
        // Line cross = 30, stretched by 70 to 100; the leaves fill it: 100 high.
        assertFrames(layout, [rect(0, 0, 80, 100), rect(80, 0, 80, 100)], size: sz(200, 100))
    }

    func testAlignContentSingleLineStartKeepsTheLineAtTheTallestItem() {
        let layout = wrapRow(
            [leaf(80, 20), leaf(80, 30)], alignItems: .stretch, alignContent: .start,
            range: exact(200, 100))
        // Multi-line container: the line is 30 (not the container's 100); stretch → 30, 30.
        assertFrames(layout, [rect(0, 0, 80, 30), rect(80, 0, 80, 30)], size: sz(200, 100))
    }

    // Negative free cross space: three lines of 150×30 in a 50-high stack → 90 − 50 = −40 over.

    private func threeTallLines(_ alignContent: StackLayoutSpec.AlignContent) -> Layout {
        wrapRow(
            [fixed(150, 30), fixed(150, 30), fixed(150, 30)], alignContent: alignContent,
            range: sr(200, 0, 200, 50))
    }

    func testAlignContentNegativeSpaceBetweenIsStart() {
        let layout = threeTallLines(.spaceBetween)
        // Stack cross = 90 clamped into [0, 50] = 50; free −40 → start: y 0, 30, 60.
        assertFrames(layout, [rect(0, 0, 150, 30), rect(0, 30, 150, 30), rect(0, 60, 150, 30)], size: sz(200, 50))
    }

    func testAlignContentNegativeSpaceAroundIsCenter() {
        let layout = threeTallLines(.spaceAround)
        // free −40 → center: offset −20: y −20, 10, 40.
        assertFrames(layout, [rect(0, -20, 150, 30), rect(0, 10, 150, 30), rect(0, 40, 150, 30)], size: sz(200, 50))
    }

    func testAlignContentNegativeCenter() {
        let layout = threeTallLines(.center)
        // Offset −40/2 = −20: y −20, 10, 40.
        assertFrames(layout, [rect(0, -20, 150, 30), rect(0, 10, 150, 30), rect(0, 40, 150, 30)], size: sz(200, 50))
    }

    func testAlignContentNegativeEnd() {
        let layout = threeTallLines(.end)
        // Offset −40: y −40, −10, 20 (the last ends at 50).
        assertFrames(layout, [rect(0, -40, 150, 30), rect(0, -10, 150, 30), rect(0, 20, 150, 30)], size: sz(200, 50))
    }

    func testAlignContentNegativeStretchIsStart() {
        let layout = threeTallLines(.stretch)
        // CSS: stretch with negative free space = flex-start: y 0, 30, 60.
        assertFrames(layout, [rect(0, 0, 150, 30), rect(0, 30, 150, 30), rect(0, 60, 150, 30)], size: sz(200, 50))
    }

    func testWrapVertical() {
        let stack = StackLayoutSpec(
            direction: .vertical, flexWrap: .wrap,
            children: [fixed(20, 80), fixed(20, 80), fixed(20, 80)])
        let layout = stack.layoutThatFits(sr(0, 200, 300, 200))
        // Main = height 200: 80 + 80 = 160, + 80 = 240 > 200 → columns [0, 1], [2], each 20 wide.
        // Width = 20 + 20 = 40 clamped into [0, 300]. Explicit widths → not stretched.
        assertFrames(layout, [rect(0, 0, 20, 80), rect(0, 80, 20, 80), rect(20, 0, 20, 80)], size: sz(40, 200))
    }

    func testWrapVerticalAlignContentCenterWithLineSpacing() {
        let stack = StackLayoutSpec(
            direction: .vertical, alignItems: .start, flexWrap: .wrap,
            alignContent: .center, lineSpacing: 10,
            children: [fixed(20, 80), fixed(30, 80), fixed(20, 80)])
        let layout = stack.layoutThatFits(exact(100, 200))
        // Columns [20×80, 30×80] (width 30), [20×80] (width 20); used 30 + 10 + 20 = 60;
        // free 40 → offset 20: column 1 at x 20, column 2 at 20 + 30 + 10 = 60.
        assertFrames(layout, [rect(20, 0, 20, 80), rect(20, 80, 30, 80), rect(60, 0, 20, 80)], size: sz(100, 200))
    }

    // MARK: - Vertical direction

    private func column(
        _ children: [any LayoutElement], spacing: CGFloat = 0,
        justify: StackLayoutSpec.JustifyContent = .start,
        align: StackLayoutSpec.AlignItems = .stretch,
        range: SizeRange = exact(100, 300)
    ) -> Layout {
        StackLayoutSpec(
            direction: .vertical, spacing: spacing, justifyContent: justify, alignItems: align,
            children: children
        ).layoutThatFits(range)
    }

    func testVerticalJustifyCenter() {
        let layout = column([fixed(20, 50), fixed(30, 100)], justify: .center, align: .start)
        // free = 300 − 150 = 150 → offset 75: y 75, 125.
        assertFrames(layout, [rect(0, 75, 20, 50), rect(0, 125, 30, 100)], size: sz(100, 300))
    }

    func testVerticalSpaceBetweenWithSpacing() {
        let layout = column(
            [fixed(20, 50), fixed(20, 50), fixed(20, 50)], spacing: 10, justify: .spaceBetween,
            align: .start)
        // used = 150 + 20 = 170; free 130 → 65 per gap: y 0, 50 + 10 + 65 = 125, 125 + 125 = 250.
        assertFrames(layout, [rect(0, 0, 20, 50), rect(0, 125, 20, 50), rect(0, 250, 20, 50)], size: sz(100, 300))
    }

    func testVerticalSpaceEvenly() {
        let layout = column([fixed(20, 50), fixed(20, 50)], justify: .spaceEvenly, align: .start)
        // free = 200, 3 gaps of 200/3: y 200/3 ≈ 66.667, 200/3 + 50 + 200/3 = 550/3 ≈ 183.333.
        assertFrames(layout, [rect(0, 200.0 / 3, 20, 50), rect(0, 550.0 / 3, 20, 50)], size: sz(100, 300))
    }

    func testVerticalOverflowEnd() {
        let layout = column([fixed(20, 80), fixed(20, 80)], justify: .end, align: .start, range: exact(100, 100))
        // free = 100 − 160 = −60 → y −60, 20.
        assertFrames(layout, [rect(0, -60, 20, 80), rect(0, 20, 20, 80)], size: sz(100, 100))
    }

    func testVerticalAlignCenter() {
        let layout = column([leaf(20, 50), leaf(40, 60)], align: .center)
        // x = (100 − 20)/2 = 40, (100 − 40)/2 = 30; y 0, 50.
        assertFrames(layout, [rect(40, 0, 20, 50), rect(30, 50, 40, 60)], size: sz(100, 300))
    }

    func testVerticalAlignEnd() {
        let layout = column([leaf(20, 50), leaf(40, 60)], align: .end)
        // x = 100 − 20 = 80, 100 − 40 = 60.
        assertFrames(layout, [rect(80, 0, 20, 50), rect(60, 50, 40, 60)], size: sz(100, 300))
    }

    func testVerticalStretchWithMaxWidth() {
        let layout = column([leaf(20, 50) { $0.maxWidth = .points(70) }, leaf(40, 60)])
        // Stretched to 100: first clamped to max 70, second 100.
        assertFrames(layout, [rect(0, 0, 70, 50), rect(0, 50, 100, 60)], size: sz(100, 300))
    }

    func testVerticalGrow() {
        let layout = column([leaf(20, 50) { $0.flexGrow = 1 }, leaf(30, 100) { $0.flexGrow = 2 }])
        // free = 150; 1:2 → 100, 200; stretched across to 100.
        assertFrames(layout, [rect(0, 0, 100, 100), rect(0, 100, 100, 200)], size: sz(100, 300))
    }

    func testVerticalGrowWithMax() {
        let layout = column([
            leaf(20, 50) {
                $0.flexGrow = 1; $0.maxHeight = .points(100)
            },
            leaf(20, 50) { $0.flexGrow = 1 },
        ])
        // free 200 → 150 each; first > max 100 → frozen at 100; free = 300 − 100 − 50 = 150 → second 200.
        assertFrames(layout, [rect(0, 0, 100, 100), rect(0, 100, 100, 200)], size: sz(100, 300))
    }

    func testVerticalShrink() {
        let layout = column(
            [leaf(20, 200) { $0.flexShrink = 1 }, leaf(20, 100) { $0.flexShrink = 1 }],
            range: exact(100, 150))
        // free = −150; 200:100 → 100, 50; stretched to 100 wide.
        assertFrames(layout, [rect(0, 0, 100, 100), rect(0, 100, 100, 50)], size: sz(100, 150))
    }

    func testVerticalFractionBasis() {
        let layout = column(
            [leaf(20, 10) { $0.flexBasis = .fraction(0.25) }, leaf(20, 10)], align: .start,
            range: exact(100, 400))
        // 0.25 × 400 = 100; then 10 at y 100.
        assertFrames(layout, [rect(0, 0, 20, 100), rect(0, 100, 20, 10)], size: sz(100, 400))
    }

    func testVerticalSpacingBeforeAfterWithJustifyEnd() {
        let layout = column(
            [fixed(20, 50) { $0.spacingAfter = 7 }, fixed(20, 50) { $0.spacingBefore = 3 }],
            justify: .end, align: .start)
        // used = 50 + 7 + 3 + 50 = 110; free 190 → y 190, 190 + 50 + 7 + 3 = 250 (ends 300).
        assertFrames(layout, [rect(0, 190, 20, 50), rect(0, 250, 20, 50)], size: sz(100, 300))
    }

    func testVerticalContentSizedColumn() {
        let layout = column([leaf(20, 50), leaf(40, 60)], spacing: 5, range: sr(0, 0, 200, 400))
        // Height = 50 + 5 + 60 = 115; width = max(20, 40) = 40 (cross clamped into [0, 200]).
        // Stretch → both 40 wide.
        assertFrames(layout, [rect(0, 0, 40, 50), rect(0, 55, 40, 60)], size: sz(40, 115))
    }

    // MARK: - Nesting

    func testRowWithAGrowingColumn() {
        let inner = StackLayoutSpec(
            direction: .vertical,
            children: [
                leaf(20, 30),
                LayoutSpec().styled { $0.flexGrow = 1 },
                leaf(20, 10),
            ])
        inner.style.flexGrow = 1
        let outer = StackLayoutSpec(children: [fixed(100, 100), inner])
        let layout = outer.layoutThatFits(exact(300, 100))
        // Outer: column's content width = max(20, 0, 20) = 20; free = 300 − 100 − 20 = 180 → 200.
        // Stretch: the column has no explicit height → 100. Column at x 100, 200×100.
        assertFrames(layout, [rect(0, 0, 100, 100), rect(100, 0, 200, 100)], size: sz(300, 100))
        // Inner (200×100, definite): free = 100 − (30 + 0 + 10) = 60 → spacer 60.
        // Stretch across: all 200 wide. y = 0, 30, 90.
        assertFrames(
            layout.sublayouts[1], [rect(0, 0, 200, 30), rect(0, 30, 200, 60), rect(0, 90, 200, 10)],
            size: sz(200, 100))
    }

    func testColumnOfRows() {
        let row1 = StackLayoutSpec(children: [fixed(50, 20), leaf(30, 20) { $0.flexGrow = 1 }])
        let row2 = StackLayoutSpec(children: [fixed(40, 40), leaf(30, 10)])
        row2.style.flexGrow = 1
        let layout = StackLayoutSpec(direction: .vertical, children: [row1, row2]).layoutThatFits(exact(200, 300))
        // Column: row heights 20 (max(20, 20)) and 40 (max(40, 10)); free = 300 − 60 = 240 → row2 280.
        // Both stretched to width 200.
        assertFrames(layout, [rect(0, 0, 200, 20), rect(0, 20, 200, 280)], size: sz(200, 300))
        // Row 1 (200×20): free = 200 − 80 = 120 → leaf 150; leaf stretched to 20.
        assertFrames(layout.sublayouts[0], [rect(0, 0, 50, 20), rect(50, 0, 150, 20)], size: sz(200, 20))
        // Row 2 (200×280): no grow; the box keeps 40 high, the leaf is stretched to 280.
        assertFrames(layout.sublayouts[1], [rect(0, 0, 40, 40), rect(40, 0, 30, 280)], size: sz(200, 280))
    }

    func testShrinkingRowInsideARow() {
        let inner = StackLayoutSpec(children: [leaf(200, 10) { $0.flexShrink = 1 }, leaf(200, 10) { $0.flexShrink = 1 }])
        inner.style.flexShrink = 1
        let layout = StackLayoutSpec(children: [inner, fixed(100, 50)]).layoutThatFits(exact(300, 50))
        // Outer: inner's content 400 + 100 = 500 > 300 → free −200; only inner shrinks → 200.
        // Inner stretched to 50 high.
        assertFrames(layout, [rect(0, 0, 200, 50), rect(200, 0, 100, 50)], size: sz(300, 50))
        // Inner at exactly 200: free = 200 − 400 = −200; 200:200 → 100 each; stretched to 50.
        assertFrames(layout.sublayouts[0], [rect(0, 0, 100, 50), rect(100, 0, 100, 50)], size: sz(200, 50))
    }

    func testCenteredColumnInsideAWrappingRow() {
        let card = {
            StackLayoutSpec(
                direction: .vertical, justifyContent: .center, alignItems: .center,
                children: [leaf(40, 20)]
            ).styled { $0.preferredSize = sz(90, 60) }
        }
        let layout = wrapRow([card(), card(), card()], lineSpacing: 10)
        // Cards 90×60: 90 + 90 = 180, + 90 > 200 → lines [0, 1], [2] at y 0 and 60 + 10 = 70; height 130.
        assertFrames(layout, [rect(0, 0, 90, 60), rect(90, 0, 90, 60), rect(0, 70, 90, 60)], size: sz(200, 130))
        // In each card: leaf 40×20 centred in 90×60 → (25, 20).
        assertFrames(layout.sublayouts[2], [rect(25, 20, 40, 20)], size: sz(90, 60))
    }

    // MARK: - More edge cases

    func testShrinkClampsAtZeroAndRedistributes() {
        let layout = flexRow(
            [leaf(100, 20) { $0.flexShrink = 1 }, leaf(10, 20) { $0.flexShrink = 100 }],
            range: exact(50, 100))
        // free = 50 − 110 = −60; scaled 1·100 = 100 and 100·10 = 1000 (sum 1100):
        // A 100 − 60·100/1100 ≈ 94.545; B 10 − 60·1000/1100 ≈ −44.545 → clamped to min 0 (+44.545).
        // Total > 0 → freeze B at 0; free = 50 − 0 − 100 = −50 → A 50. x = 0, 50.
        assertFrames(layout, [rect(0, 0, 50, 20), rect(50, 0, 0, 20)], size: sz(50, 100))
    }

    func testShrinkToFractionMin() {
        let layout = flexRow(
            [
                leaf(100, 20) {
                    $0.flexShrink = 1; $0.minWidth = .fraction(0.4)
                },
                leaf(300, 20) { $0.flexShrink = 1 },
            ], range: exact(250, 100))
        // min A = 0.4 × 250 = 100. free = 250 − 400 = −150; scaled 100:300 → A 62.5 (< 100, +37.5),
        // B 187.5; total > 0 → freeze A at 100; free = 250 − 100 − 300 = −150 → B 150. x = 0, 100.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 150, 20)], size: sz(250, 100))
    }

    func testGrowFreezesItemWhoseBasisExceedsMax() {
        let layout = flexRow([
            leaf(50, 20) {
                $0.flexBasis = .points(200); $0.maxWidth = .points(100); $0.flexGrow = 1
            },
            leaf(50, 20) { $0.flexGrow = 1 },
        ])
        // A: base 200, hypothetical 100; sum 150 < 300 → grow. §9.7 step 3: A's base > hypothetical
        // → frozen at 100. free = 300 − 100 − 50 = 150 → B 200. x = 0, 100.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 200, 20)], size: sz(300, 100))
    }

    func testFractionBasisAgainstNonExactRange() {
        let layout = flexRow(
            [leaf(50, 20) { $0.flexBasis = .fraction(0.25) }, leaf(50, 20)],
            range: sr(0, 100, 400, 100))
        // 0.25 × 400 (range max) = 100; content 100 + 50 = 150 → stack 150.
        assertFrames(layout, [rect(0, 0, 100, 20), rect(100, 0, 50, 20)], size: sz(150, 100))
    }

    func testGrowLeavesNothingForJustify() {
        let layout = StackLayoutSpec(
            justifyContent: .center, alignItems: .start,
            children: [leaf(50, 20) { $0.flexGrow = 1 }, fixed(50, 20)]
        )
        .layoutThatFits(exact(300, 100))
        // free 200 all taken by the grower → 250; nothing left to centre: x = 0, 250.
        assertFrames(layout, [rect(0, 0, 250, 20), rect(250, 0, 50, 20)], size: sz(300, 100))
    }

    func testFractionCrossSizeIsExplicit() {
        let layout = alignRow(.stretch, [leaf(50, 20) { $0.height = .fraction(0.5) }])
        // height 0.5 × 100 = 50, explicit → not stretched, at y 0.
        assertFrames(layout, [rect(0, 0, 50, 50)], size: sz(300, 100))
    }

    func testAlignSelfStretchWithExplicitCrossIsNotStretched() {
        let layout = alignRow(
            .start,
            [
                leaf(50, 20) {
                    $0.alignSelf = .stretch; $0.height = .points(30)
                }
            ])
        // Explicit cross size 30 → not stretched, at the cross start.
        assertFrames(layout, [rect(0, 0, 50, 30)], size: sz(300, 100))
    }

    func testStackMinHeight() {
        let stack = StackLayoutSpec(children: [leaf(50, 20), leaf(60, 40)])
        stack.style.minHeight = .points(80)
        let layout = stack.layoutThatFits(sr(300, 0, 300, 200))
        // Cross [80, 200]; content 40 → 80; both stretched to 80.
        assertFrames(layout, [rect(0, 0, 50, 80), rect(50, 0, 60, 80)], size: sz(300, 80))
    }

    func testAlignContentStretchUnequalLines() {
        let layout = wrapRow(
            [leaf(80, 20), leaf(80, 40), leaf(80, 20)], alignItems: .stretch,
            alignContent: .stretch, range: exact(200, 100))
        // Lines [0, 1] cross 40 and [2] cross 20; free 100 − 60 = 40 → +20 each: 60 and 40.
        // Line 2 at y 60; items stretched to their line.
        assertFrames(layout, [rect(0, 0, 80, 60), rect(80, 0, 80, 60), rect(0, 60, 80, 40)], size: sz(200, 100))
    }

    func testWrapCountsSpacingBeforeAndAfter() {
        let layout = wrapRow([
            fixed(90, 20) { $0.spacingAfter = 20 }, fixed(90, 20),
            fixed(10, 20) { $0.spacingBefore = 5 },
        ])
        // 90 + 20 + 90 = 200 fits; + 5 + 10 = 215 > 200 → break. Line 1 x = 0, 110;
        // line 2: the third keeps its spacingBefore (like a margin): x = 5, y = 20.
        assertFrames(layout, [rect(0, 0, 90, 20), rect(110, 0, 90, 20), rect(5, 20, 10, 20)], size: sz(200, 40))
    }

    func testWrapOverflowingItemCentered() {
        let layout = wrapRow([fixed(60, 20), fixed(250, 20)], justify: .center)
        // Line 1: free 140 → x 70. Line 2: free 200 − 250 = −50 → centred: x −25.
        assertFrames(layout, [rect(70, 0, 60, 20), rect(-25, 20, 250, 20)], size: sz(200, 40))
    }

    func testWrapWithUnboundedMainIsOneLine() {
        let layout = wrapRow((0..<5).map { _ in fixed(60, 20) }, range: .unconstrained)
        // No finite max → nothing breaks: one line 5·60 = 300 × 20.
        assertFrames(
            layout,
            [
                rect(0, 0, 60, 20), rect(60, 0, 60, 20), rect(120, 0, 60, 20),
                rect(180, 0, 60, 20), rect(240, 0, 60, 20),
            ], size: sz(300, 20))
    }

    func testWrapVerticalAlignContentEnd() {
        let stack = StackLayoutSpec(
            direction: .vertical, alignItems: .start, flexWrap: .wrap, alignContent: .end,
            children: [fixed(20, 80), fixed(20, 80), fixed(20, 80)])
        let layout = stack.layoutThatFits(exact(100, 200))
        // Columns [0, 1], [2], 20 wide each; free 100 − 40 = 60 → x 60 and 80.
        assertFrames(layout, [rect(60, 0, 20, 80), rect(60, 80, 20, 80), rect(80, 0, 20, 80)], size: sz(100, 200))
    }

    func testCenteredColumnInARow() {
        let inner = StackLayoutSpec(direction: .vertical, children: [leaf(30, 20), leaf(50, 30)])
        let layout = StackLayoutSpec(alignItems: .center, children: [inner, fixed(40, 40)])
            .layoutThatFits(exact(300, 100))
        // Column: width = max(30, 50) = 50, height 20 + 30 = 50; not stretched (center):
        // y = (100 − 50)/2 = 25. Box: y = (100 − 40)/2 = 30, x 50.
        assertFrames(layout, [rect(0, 25, 50, 50), rect(50, 30, 40, 40)], size: sz(300, 100))
        // Inside the column (default stretch): both 50 wide; y 0, 20.
        assertFrames(layout.sublayouts[0], [rect(0, 0, 50, 20), rect(0, 20, 50, 30)], size: sz(50, 50))
    }

    // MARK: - Miscellany

    func testEmptyStackTakesTheRangeMin() {
        let layout = StackLayoutSpec().layoutThatFits(sr(10, 20, 300, 100))
        // No content → 0×0 clamped into the range = 10×20.
        assertFrames(layout, [], size: sz(10, 20))
    }

    func testUnboundedRangeSizesToContent() {
        let layout = StackLayoutSpec(children: [leaf(50, 20), leaf(100, 30)]).layoutThatFits(.unconstrained)
        // 150 × max(20, 30) = 30; stretch → first 30 high.
        assertFrames(layout, [rect(0, 0, 50, 30), rect(50, 0, 100, 30)], size: sz(150, 30))
    }

    func testPropertyChangeAfterLayoutRelayouts() {
        let stack = StackLayoutSpec(alignItems: .start, children: [fixed(50, 20), fixed(100, 30)])
        _ = stack.layoutThatFits(exact(300, 100))
        stack.justifyContent = .end
        let layout = stack.layoutThatFits(exact(300, 100))
        // Now end: free 150 → 150, 200.
        assertFrames(layout, [rect(150, 0, 50, 20), rect(200, 0, 100, 30)], size: sz(300, 100))
    }

    // MARK: - Flex base size versus min/max (CSS §9.2.3: the base ignores them)

    func testFlexBaseSizeIgnoresMaxWhenShrinking() {
        let layout = StackLayoutSpec(
            alignItems: .start,
            children: [
                leaf(200, 10) {
                    $0.flexShrink = 1; $0.maxWidth = .points(100)
                },
                leaf(100, 10) { $0.flexShrink = 1 },
            ]
        ).layoutThatFits(exact(150, 10))
        // Bases 200 and 100 (the max is not applied to the base); hypotheticals 100 and 100 → 200 >
        // 150: shrink. free = 150 − 200 − 100 = −150, weighted 200 : 100 → 200 − 100 = 100 and
        // 100 − 50 = 50; A's 100 is within its max.
        assertFrames(layout, [rect(0, 0, 100, 10), rect(100, 0, 50, 10)], size: sz(150, 10))
    }

    func testFlexBaseSizeIgnoresMinWhenGrowing() {
        let layout = StackLayoutSpec(
            alignItems: .start,
            children: [
                leaf(50, 10) {
                    $0.flexGrow = 1; $0.minWidth = .points(100)
                },
                leaf(100, 10) { $0.flexGrow = 1 },
            ]
        ).layoutThatFits(exact(300, 10))
        // Bases 50 and 100; hypotheticals 100 and 100 → 200 < 300: grow. free = 300 − 50 − 100 = 150,
        // 75 each → 125 and 175; A's 125 is above its min 100.
        assertFrames(layout, [rect(0, 0, 125, 10), rect(125, 0, 175, 10)], size: sz(300, 10))
    }

    func testExplicitWidthIsTheBaseEvenAboveTheMax() {
        let layout = StackLayoutSpec(
            alignItems: .start,
            children: [
                fixed(200, 10) {
                    $0.flexShrink = 1; $0.maxWidth = .points(100)
                },
                fixed(100, 10) { $0.flexShrink = 1 },
            ]
        ).layoutThatFits(exact(150, 10))
        // Same numbers as with content 200: width is the base (200), the max only clamps the result.
        assertFrames(layout, [rect(0, 0, 100, 10), rect(100, 0, 50, 10)], size: sz(150, 10))
    }

    func testAStretchedRowInAColumnWrapsItsTextAtTheColumnsWidth() {
        // A "text" of 100 one-point characters, 10 pt a line: as wide as it may be, wrapped.
        let text = WrappingTextLeaf(characters: 100, lineHeight: 10)
            .styled {
                $0.flexBasis = .points(0); $0.flexGrow = 1; $0.flexShrink = 1
            }
        let column = StackLayoutSpec(direction: .vertical, children: [StackLayoutSpec(children: [text])])
        let layout = column.layoutThatFits(sr(320, 0, 320, .infinity))
        // The row stretches across the 320-wide column (min 320), so it is measured 320 wide: the
        // text grows from 0 to 320 and takes one line, 10 high (measured at width 0 it would be one
        // character a line, 1,000 high).
        assertFrames(layout, [rect(0, 0, 320, 10)], size: sz(320, 10))
        XCTAssertEqual(layout.sublayouts[0].sublayouts[0].frame, rect(0, 0, 320, 10), layout.description)
    }
}

/// A leaf that lays out `characters` one-point characters in lines as wide as it may be.
private final class WrappingTextLeaf: LayoutElement {
    let style = Style()
    let layoutCache = LayoutCache()
    let characters: CGFloat
    let lineHeight: CGFloat

    init(characters: CGFloat, lineHeight: CGFloat) {
        self.characters = characters
        self.lineHeight = lineHeight
    }

    func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        let width = min(characters, constrainedSize.width)
        let perLine = max(1, width.rounded(.down))
        return CGSize(width: width, height: (characters / perLine).rounded(.up) * lineHeight)
    }
}
