import CanopyTestSupport
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import Canopy

/// Unit tests of `StackLayoutSpec`'s API and mechanics: defaults, mutation after creation, cache
/// invalidation, baselines, description and thread safety. (Flexbox conformance is tested elsewhere.)
///
/// Most expectations are whole layout descriptions, one element a line: `Type (x, y, w×h)`.
final class StackLayoutSpecTests: XCTestCase {
    // MARK: Helpers

    /// A "text" leaf: an intrinsic size with a first baseline `ascender` from the top and a last
    /// baseline `descender` above the bottom (stored with a font's sign, as `style.descender = -descender`).
    private func textLeaf(_ width: CGFloat, _ height: CGFloat, ascender: CGFloat, descender: CGFloat) -> CountingLeaf {
        CountingLeaf(
            width, height,
            style: Style {
                $0.ascender = ascender; $0.descender = -descender
            })
    }

    /// The layout of `element` in `range`, asserted against a description.
    @discardableResult
    private func assertLayout(
        _ element: any LayoutElement, in range: SizeRange, _ expected: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Layout {
        let layout = element.layoutThatFits(range)
        XCTAssertEqual(layout.description, expected, file: file, line: line)
        return layout
    }

    /// One change made after a layout, and the description of the next layout.
    private struct Step {
        let change: String
        let apply: () -> Void
        let expected: String
    }

    /// Lays `element` out, then for each step: applies the change (which must move the layout
    /// generation on, the cached layout being stale) and checks the next layout in the same range.
    private func assertSteps(
        _ element: any LayoutElement, in range: SizeRange, initially: String, _ steps: [Step],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertLayout(element, in: range, initially, file: file, line: line)
        for step in steps {
            let generation = LayoutCache.generation
            step.apply()
            XCTAssertGreaterThan(
                LayoutCache.generation, generation, "\(step.change) did not invalidate",
                file: file, line: line)
            let layout = element.layoutThatFits(range)
            XCTAssertEqual(layout.description, step.expected, "after \(step.change)", file: file, line: line)
        }
    }

    /// A 40×10 and a 50×20 leaf, the fixture of most tests.
    private func twoLeaves() -> (CountingLeaf, CountingLeaf) {
        (CountingLeaf(40, 10), CountingLeaf(50, 20))
    }

    /// Exactly 100 wide, 0…100 high.
    private let row100 = sr(100, 0, 100, 100)

    /// The default stack of `twoLeaves()` in `row100`: bases 40 + 50 = 90 < 100 but nothing grows, so
    /// the stack is 100 wide (its range's min) with 10 free at the end; the line is as high as the
    /// tallest child (20) and A is stretched from 10 to 20.
    private let defaultTwoLeaves = """
        StackLayoutSpec (0, 0, 100×20)
          CountingLeaf (0, 0, 40×20)
          CountingLeaf (40, 0, 50×20)
        """

    // MARK: Defaults

    func testDefaults() {
        let stack = StackLayoutSpec()
        XCTAssertEqual(stack.direction, .horizontal)
        XCTAssertEqual(stack.spacing, 0)
        XCTAssertEqual(stack.justifyContent, .start)
        XCTAssertEqual(stack.alignItems, .stretch)
        XCTAssertEqual(stack.flexWrap, .noWrap)
        XCTAssertEqual(stack.alignContent, .start)
        XCTAssertEqual(stack.lineSpacing, 0)
        XCTAssertTrue(stack.children.isEmpty)
        XCTAssertEqual(stack.style.values, Style.Values())
    }

    func testFactoriesSetTheDirection() {
        let a = CountingLeaf(1, 1)
        let column = StackLayoutSpec.vertical(spacing: 3, justifyContent: .center, alignItems: .end, children: [a])
        XCTAssertEqual(column.direction, .vertical)
        XCTAssertEqual(column.spacing, 3)
        XCTAssertEqual(column.justifyContent, .center)
        XCTAssertEqual(column.alignItems, .end)
        XCTAssertTrue(column.children.count == 1 && column.children[0] === a)
        let row = StackLayoutSpec.horizontal()
        XCTAssertEqual(row.direction, .horizontal)
        XCTAssertEqual(row.alignItems, .stretch)
        // The rest keeps the defaults.
        XCTAssertEqual(column.flexWrap, .noWrap)
        XCTAssertEqual(column.alignContent, .start)
        XCTAssertEqual(column.lineSpacing, 0)
    }

    func testEmptyStackTakesItsRangeMinimum() {
        let empty = StackLayoutSpec()
        assertLayoutFrame(empty.layoutThatFits(sr(12, 34, 100, 100)), 0, 0, 12, 34)
        XCTAssertTrue(empty.layoutThatFits(sr(12, 34, 100, 100)).sublayouts.isEmpty)
        assertLayoutFrame(empty.layoutThatFits(.unconstrained), 0, 0, 0, 0)
        // With a style size the resolved range is exactly 30×40, so its minimum is 30×40.
        let sized = StackLayoutSpec(style: Style { $0.preferredSize = sz(30, 40) })
        assertLayoutFrame(sized.layoutThatFits(sr(0, 0, 100, 100)), 0, 0, 30, 40)
    }

    func testDefaultStackOfTwoLeaves() {
        let (a, b) = twoLeaves()
        assertLayout(StackLayoutSpec(children: [a, b]), in: row100, defaultTwoLeaves)
    }

    // MARK: Properties set after creation

    func testEveryPropertySetBeforeTheFirstLayoutIsUsed() {
        let a = CountingLeaf(40, 10), b = CountingLeaf(50, 20), c = CountingLeaf(30, 30)
        let stack = StackLayoutSpec()
        stack.direction = .vertical
        stack.spacing = 5
        stack.justifyContent = .end
        stack.alignItems = .center
        stack.flexWrap = .wrap
        stack.alignContent = .center
        stack.lineSpacing = 4
        stack.children = [a, b, c]
        XCTAssertEqual(stack.direction, .vertical)
        XCTAssertEqual(stack.spacing, 5)
        XCTAssertEqual(stack.justifyContent, .end)
        XCTAssertEqual(stack.alignItems, .center)
        XCTAssertEqual(stack.flexWrap, .wrap)
        XCTAssertEqual(stack.alignContent, .center)
        XCTAssertEqual(stack.lineSpacing, 4)
        XCTAssertTrue(stack.children.count == 3 && stack.children[0] === a && stack.children[2] === c)
        // Range 100…200 wide, exactly 50 high. Main axis = height: bases 10, 20, 30.
        // Lines (max 50): A 10; A+5+B = 35 ≤ 50; 35+5+C = 70 > 50, so [A, B] and [C].
        // The stack is 50 high (its minimum). Justify end: line 1 uses 10+5+20 = 35, free 15, A at
        // y 15, B at 15+10+5 = 30; line 2 uses 30, free 20, C at y 20.
        // Cross: line widths 50 (B) and 30 (C), + lineSpacing 4 = 84, clamped to 100…200: 100, free 16,
        // alignContent centre: line 1 at x 8, line 2 at 8+50+4 = 62.
        // alignItems centre in line 1: A at 8 + (50−40)/2 = 13, B at 8; C at 62 + 0.
        assertLayout(
            stack, in: sr(100, 50, 200, 50),
            """
            StackLayoutSpec (0, 0, 100×50)
              CountingLeaf (13, 15, 40×10)
              CountingLeaf (8, 30, 50×20)
              CountingLeaf (62, 20, 30×30)
            """)
    }

    func testStackPropertyChangesAfterALayoutTakeEffect() {
        let (a, b) = twoLeaves()
        let stack = StackLayoutSpec(children: [a, b])
        assertSteps(
            stack, in: row100, initially: defaultTwoLeaves,
            [
                // 40+6+50 = 96 used, B at 46.
                Step(
                    change: "spacing", apply: { stack.spacing = 6 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (0, 0, 40×20)
                          CountingLeaf (46, 0, 50×20)
                        """),
                // Free 100−96 = 4: A at 4, B at 4+40+6 = 50.
                Step(
                    change: "justifyContent", apply: { stack.justifyContent = .end },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (4, 0, 40×20)
                          CountingLeaf (50, 0, 50×20)
                        """),
                // No stretching: A stays 10 high, centred in the 20-high line at y 5.
                Step(
                    change: "alignItems", apply: { stack.alignItems = .center },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (4, 5, 40×10)
                          CountingLeaf (50, 0, 50×20)
                        """),
                // Column: height 0…100 is the main axis, 10+6+20 = 36, no free space (justify end is
                // offset 0), B at y 16. Width exactly 100: A centred at (100−40)/2 = 30, B at 25.
                Step(
                    change: "direction", apply: { stack.direction = .vertical },
                    expected: """
                        StackLayoutSpec (0, 0, 100×36)
                          CountingLeaf (30, 0, 40×10)
                          CountingLeaf (25, 16, 50×20)
                        """),
                // B first (y 0), A after 20+6 = 26.
                Step(
                    change: "children", apply: { stack.children = [b, a] },
                    expected: """
                        StackLayoutSpec (0, 0, 100×36)
                          CountingLeaf (25, 0, 50×20)
                          CountingLeaf (30, 26, 40×10)
                        """),
            ])
    }

    func testWrapPropertyChangesAfterALayoutTakeEffect() {
        let (a, b) = twoLeaves()
        let stack = StackLayoutSpec(spacing: 20, children: [a, b])
        // Exactly 100 wide, 60…100 high. No wrap: 40+20+50 = 110 > 100 and nothing shrinks, so B
        // overflows at x 60; the line is 20 high, clamped up to 60, and both are stretched to 60.
        assertSteps(
            stack, in: sr(100, 60, 100, 100),
            initially: """
                StackLayoutSpec (0, 0, 100×60)
                  CountingLeaf (0, 0, 40×60)
                  CountingLeaf (60, 0, 50×60)
                """,
            [
                // Lines [A] and [B] (110 > 100), 10 and 20 high = 30, clamped up to 60: 30 free, lines at
                // y 0 and 10 (alignContent start); each child as high as its line.
                Step(
                    change: "flexWrap", apply: { stack.flexWrap = .wrap },
                    expected: """
                        StackLayoutSpec (0, 0, 100×60)
                          CountingLeaf (0, 0, 40×10)
                          CountingLeaf (0, 10, 50×20)
                        """),
                // 10+6+20 = 36, free 24; B at 10+6 = 16.
                Step(
                    change: "lineSpacing", apply: { stack.lineSpacing = 6 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×60)
                          CountingLeaf (0, 0, 40×10)
                          CountingLeaf (0, 16, 50×20)
                        """),
                // All 24 free first: A at 24, B at 24+10+6 = 40.
                Step(
                    change: "alignContent", apply: { stack.alignContent = .end },
                    expected: """
                        StackLayoutSpec (0, 0, 100×60)
                          CountingLeaf (0, 24, 40×10)
                          CountingLeaf (0, 40, 50×20)
                        """),
                // 24 / 2 = 12 more per line: 22 and 32 high, line 2 at 22+6 = 28, children stretched.
                Step(
                    change: "alignContent stretch", apply: { stack.alignContent = .stretch },
                    expected: """
                        StackLayoutSpec (0, 0, 100×60)
                          CountingLeaf (0, 0, 40×22)
                          CountingLeaf (0, 28, 50×32)
                        """),
            ])
    }

    func testChildStyleChangesAfterALayoutTakeEffect() {
        let (a, b) = twoLeaves()
        let stack = StackLayoutSpec(children: [a, b])
        assertSteps(
            stack, in: row100, initially: defaultTwoLeaves,
            [
                // A takes all 10 free: 50.
                Step(
                    change: "flexGrow", apply: { a.style.flexGrow = 1 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (0, 0, 50×20)
                          CountingLeaf (50, 0, 50×20)
                        """),
                // A no longer stretched: 10 high at the end of the 20-high line.
                Step(
                    change: "alignSelf", apply: { a.style.alignSelf = .end },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (0, 10, 50×10)
                          CountingLeaf (50, 0, 50×20)
                        """),
                // 40+4+50 = 94, A grows by 6 to 46; B at 46+4 = 50.
                Step(
                    change: "spacingBefore", apply: { b.style.spacingBefore = 4 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (0, 10, 46×10)
                          CountingLeaf (50, 0, 50×20)
                        """),
                // 40+2+4+50 = 96, A grows by 4 to 44; B at 44+2+4 = 50.
                Step(
                    change: "spacingAfter", apply: { a.style.spacingAfter = 2 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×20)
                          CountingLeaf (0, 10, 44×10)
                          CountingLeaf (50, 0, 50×20)
                        """),
                // B 30 high: the line is 30, A at 30−10 = 20.
                Step(
                    change: "height", apply: { b.style.height = .points(30) },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 44×10)
                          CountingLeaf (50, 0, 50×30)
                        """),
                // B at most 30 wide: 40+6+30 = 76, A grows by 24 to 64, B at 64+6 = 70.
                Step(
                    change: "maxWidth", apply: { b.style.maxWidth = .points(30) },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 64×10)
                          CountingLeaf (70, 0, 30×30)
                        """),
                // A back to its 40: B at 46.
                Step(
                    change: "flexGrow 0", apply: { a.style.flexGrow = 0 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 40×10)
                          CountingLeaf (46, 0, 30×30)
                        """),
                // A's basis 10 instead of its measured 40: B at 16.
                Step(
                    change: "flexBasis", apply: { a.style.flexBasis = .points(10) },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 10×10)
                          CountingLeaf (16, 0, 30×30)
                        """),
                // Basis 200: 200+6+30 = 236 > 100, nothing shrinks, B overflows at 206.
                Step(
                    change: "flexBasis 200", apply: { a.style.flexBasis = .points(200) },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 200×10)
                          CountingLeaf (206, 0, 30×30)
                        """),
                // A alone shrinks: free 100−6−30−200 = −136, A = 200−136 = 64, B at 70.
                Step(
                    change: "flexShrink", apply: { a.style.flexShrink = 1 },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 64×10)
                          CountingLeaf (70, 0, 30×30)
                        """),
                // A may not go below 80: 80+6+30 = 116, B overflows at 86.
                Step(
                    change: "minWidth", apply: { a.style.minWidth = .points(80) },
                    expected: """
                        StackLayoutSpec (0, 0, 100×30)
                          CountingLeaf (0, 20, 80×10)
                          CountingLeaf (86, 0, 30×30)
                        """),
            ])
    }

    func testStackStyleChangeAfterALayoutTakesEffect() {
        let (a, b) = twoLeaves()
        let stack = StackLayoutSpec(children: [a, b])
        assertSteps(
            stack, in: sr(0, 0, 100, 100),
            initially: """
                StackLayoutSpec (0, 0, 90×20)
                  CountingLeaf (0, 0, 40×20)
                  CountingLeaf (40, 0, 50×20)
                """,
            [
                // The stack's own style narrows its range to exactly 80×25: A and B do not shrink, so B
                // overflows; both are stretched to 25.
                Step(
                    change: "stack preferredSize", apply: { stack.style.preferredSize = sz(80, 25) },
                    expected: """
                        StackLayoutSpec (0, 0, 80×25)
                          CountingLeaf (0, 0, 40×25)
                          CountingLeaf (40, 0, 50×25)
                        """)
            ])
    }

    func testAChangeDeepInsideNestedStacksReachesTheRoot() {
        let leaf = CountingLeaf(40, 10)
        let inner = StackLayoutSpec.horizontal(children: [leaf, CountingLeaf(10, 10)])
        let outer = StackLayoutSpec.vertical(children: [inner, CountingLeaf(20, 5)])
        // Inner row 40+10 = 50 × 10; outer column 10+5 = 15 high, 50 wide (widest child), both
        // children stretched to 50 wide.
        assertSteps(
            outer, in: sr(0, 0, 100, 100),
            initially: """
                StackLayoutSpec (0, 0, 50×15)
                  StackLayoutSpec (0, 0, 50×10)
                    CountingLeaf (0, 0, 40×10)
                    CountingLeaf (40, 0, 10×10)
                  CountingLeaf (0, 10, 50×5)
                """,
            [
                // The leaf 30 high: the inner row is 30 high (its other leaf stretched), the column 35.
                Step(
                    change: "leaf height", apply: { leaf.style.height = .points(30) },
                    expected: """
                        StackLayoutSpec (0, 0, 50×35)
                          StackLayoutSpec (0, 0, 50×30)
                            CountingLeaf (0, 0, 40×30)
                            CountingLeaf (40, 0, 10×30)
                          CountingLeaf (0, 30, 50×5)
                        """)
            ])
    }

    // MARK: Caching

    func testMeasuringTwiceWithoutAChangeDoesNotRemeasure() {
        let (a, b) = twoLeaves()
        let stack = StackLayoutSpec(children: [a, b])
        let first = stack.layoutThatFits(row100)
        let measured = (a.measurements, b.measurements)
        let second = stack.layoutThatFits(row100)
        XCTAssertEqual(second.description, first.description)
        XCTAssertEqual(a.measurements, measured.0)
        XCTAssertEqual(b.measurements, measured.1)
        // The cached tree shares its sublayouts.
        XCTAssertTrue(first.sublayouts[0] === second.sublayouts[0])
        // A new parent passing the same range and parent size reuses the stack's cached layout.
        let wrapper = WrapperLayoutSpec(child: stack).layoutThatFits(row100)
        XCTAssertTrue(wrapper.sublayouts[0].sublayouts[1] === first.sublayouts[1])
        XCTAssertEqual(a.measurements, measured.0)
        XCTAssertEqual(b.measurements, measured.1)
        // A change measures again.
        a.style.flexGrow = 1
        _ = stack.layoutThatFits(row100)
        XCTAssertGreaterThan(a.measurements, measured.0)
    }

    func testSettingTheSameValueDoesNotInvalidate() {
        let (a, b) = twoLeaves()
        let stack = StackLayoutSpec(spacing: 3, children: [a, b])
        a.style.flexGrow = 1
        let first = stack.layoutThatFits(row100)
        let measured = (a.measurements, b.measurements)
        let generation = LayoutCache.generation
        stack.direction = .horizontal
        stack.spacing = 3
        stack.justifyContent = .start
        stack.alignItems = .stretch
        stack.flexWrap = .noWrap
        stack.alignContent = .start
        stack.lineSpacing = 0
        stack.children = [a, b]
        stack.style.width = .auto
        a.style.flexGrow = 1
        a.style.values = a.style.values
        b.style.alignSelf = .auto
        XCTAssertEqual(LayoutCache.generation, generation)
        XCTAssertEqual(stack.layoutThatFits(row100).description, first.description)
        XCTAssertEqual(a.measurements, measured.0)
        XCTAssertEqual(b.measurements, measured.1)
    }

    func testConfiguringANeverLaidOutElementDoesNotInvalidate() {
        let generation = LayoutCache.generation
        let leaf = CountingLeaf(10, 10)
        leaf.style.flexGrow = 2
        leaf.style.minSize = sz(5, 5)
        leaf.style.values = Style.Values()
        let stack = StackLayoutSpec()
        stack.direction = .vertical
        stack.spacing = 8
        stack.justifyContent = .spaceEvenly
        stack.alignItems = .baselineLast
        stack.flexWrap = .wrap
        stack.alignContent = .stretch
        stack.lineSpacing = 2
        stack.children = [leaf]
        stack.style.preferredSize = sz(50, 50)
        XCTAssertEqual(LayoutCache.generation, generation)
        // Once laid out, a change does invalidate.
        _ = stack.layoutThatFits(.unconstrained)
        stack.spacing = 9
        XCTAssertGreaterThan(LayoutCache.generation, generation)
    }

    // MARK: Style

    func testStyleValuesIsASnapshot() {
        let style = Style {
            $0.flexGrow = 2; $0.alignSelf = .center; $0.width = .points(10)
        }
        let snapshot = style.values
        style.flexGrow = 3
        // A copy: the snapshot keeps the old value.
        XCTAssertEqual(snapshot.flexGrow, 2)
        XCTAssertEqual(style.values.flexGrow, 3)
        XCTAssertEqual(snapshot.alignSelf, .center)
        XCTAssertEqual(snapshot.width, .points(10))
        // Setting replaces everything.
        var values = Style.Values()
        values.spacingBefore = 7
        values.flexShrink = 1
        style.values = values
        XCTAssertEqual(style.values, values)
        XCTAssertEqual(style.flexGrow, 0)
        XCTAssertEqual(style.alignSelf, .auto)
        XCTAssertEqual(style.width, .auto)
        XCTAssertEqual(style.spacingBefore, 7)
    }

    func testReadingValuesDoesNotObserveButALayoutReadDoes() {
        let style = Style()
        _ = style.values
        let generation = LayoutCache.generation
        style.flexGrow = 1
        // `values` is not a layout read: no layout can be stale.
        XCTAssertEqual(LayoutCache.generation, generation)
        XCTAssertEqual(style.valuesForLayout().flexGrow, 1)
        style.flexGrow = 1
        XCTAssertEqual(LayoutCache.generation, generation)
        style.flexGrow = 2
        XCTAssertGreaterThan(LayoutCache.generation, generation)
    }

    func testStyledConfiguresAndReturnsTheSameElement() {
        let stack = StackLayoutSpec()
        let returned = stack.styled {
            $0.flexGrow = 1; $0.spacingBefore = 3
        }
        XCTAssertTrue(returned === stack)
        XCTAssertEqual(stack.style.flexGrow, 1)
        XCTAssertEqual(stack.style.spacingBefore, 3)
        // `Self` comes back, so stack properties are still at hand.
        XCTAssertEqual(StackLayoutSpec().styled { $0.flexShrink = 1 }.direction, .horizontal)
        // Inline in a tree: the first leaf takes the 100 − 10 − 10 = 80 free.
        let row = StackLayoutSpec(children: [CountingLeaf(10, 10).styled { $0.flexGrow = 1 }, CountingLeaf(10, 10)])
        assertLayout(
            row, in: row100,
            """
            StackLayoutSpec (0, 0, 100×10)
              CountingLeaf (0, 0, 90×10)
              CountingLeaf (90, 0, 10×10)
            """)
    }

    // MARK: Baselines

    func testVerticalStackBaselinesComeFromItsFirstAndLastChild() {
        let first = textLeaf(60, 20, ascender: 16, descender: 4).styled { $0.spacingBefore = 5 }
        let last = textLeaf(50, 30, ascender: 24, descender: 6).styled { $0.spacingAfter = 3 }
        let column = StackLayoutSpec.vertical(alignItems: .start, children: [first, last])
        // Heights 5 + 20 + 30 + 3 = 58; first at y 5, last at y 25; width 60 (the widest).
        let layout = assertLayout(
            column, in: sr(0, 0, 100, 100),
            """
            StackLayoutSpec (0, 0, 60×58)
              CountingLeaf (0, 5, 60×20)
              CountingLeaf (0, 25, 50×30)
            """)
        // Ascender: first child's y + its ascender = 5 + 16 = 21.
        XCTAssertEqual(layout.ascender, 21)
        // Descender: below the last child's last baseline: 58 − (25 + 30) + 6 = 9.
        XCTAssertEqual(layout.descender, -9)
        // Cached layouts keep them.
        XCTAssertEqual(column.layoutThatFits(sr(0, 0, 100, 100)).ascender, 21)
        XCTAssertEqual(column.layoutThatFits(sr(0, 0, 100, 100)).descender, -9)
    }

    func testRowAlignedOnFirstBaselinesSharesIt() {
        // Single-line text leaves (ascender + descender = height).
        let a = textLeaf(20, 20, ascender: 15, descender: 5)
        let b = textLeaf(30, 30, ascender: 20, descender: 10)
        let c = textLeaf(10, 40, ascender: 10, descender: 30)
        let row = StackLayoutSpec(alignItems: .baselineFirst, children: [a, b, c])
        // Baseline at max(15, 20, 10) = 20; below it max(5, 10, 30) = 30: 50 high.
        // A at y 20 − 15 = 5, B at 0, C at 10.
        let layout = assertLayout(
            row, in: sr(0, 0, 200, 200),
            """
            StackLayoutSpec (0, 0, 60×50)
              CountingLeaf (0, 5, 20×20)
              CountingLeaf (20, 0, 30×30)
              CountingLeaf (50, 10, 10×40)
            """)
        XCTAssertEqual(layout.ascender, 20)
    }

    func testRowAlignedOnLastBaselinesSharesIt() {
        // A paragraph: first baseline at 12, last at 50 − 4 = 46.
        let paragraph = textLeaf(40, 50, ascender: 12, descender: 4)
        let label = textLeaf(20, 20, ascender: 15, descender: 5)
        let row = StackLayoutSpec(alignItems: .baselineLast, children: [paragraph, label])
        // Last baselines from the top: 46 and 15, shared at 46; below: max(4, 5) = 5: 51 high.
        // Paragraph at y 0, label at 46 − 15 = 31.
        let layout = assertLayout(
            row, in: sr(0, 0, 200, 200),
            """
            StackLayoutSpec (0, 0, 60×51)
              CountingLeaf (0, 0, 40×50)
              CountingLeaf (40, 31, 20×20)
            """)
        // Descender: 51 − 46 = 5.
        XCTAssertEqual(layout.descender, -5)
    }

    func testRowAlignsANestedColumnOfTextOnItsBaselines() {
        let title = textLeaf(60, 20, ascender: 16, descender: 4)
        let body = textLeaf(50, 30, ascender: 24, descender: 6)
        let column = StackLayoutSpec.vertical(alignItems: .start, children: [title, body])
        let label = textLeaf(40, 40, ascender: 30, descender: 10)
        let row = StackLayoutSpec(alignItems: .baselineFirst, children: [label, column])
        // The column: 60×50, title at y 0, body at y 20; ascender 0 + 16 = 16, descender
        // 50 − 50 + 6 = 6.
        // First baselines: label 30, column 16: shared at 30; below: max(40 − 30, 50 − 16) = 34,
        // so the row is 64 high; column at y 30 − 16 = 14 (title's baseline 14 + 16 = 30).
        var layout = assertLayout(
            row, in: sr(0, 0, 300, 300),
            """
            StackLayoutSpec (0, 0, 100×64)
              CountingLeaf (0, 0, 40×40)
              StackLayoutSpec (40, 14, 60×50)
                CountingLeaf (0, 0, 60×20)
                CountingLeaf (0, 20, 50×30)
            """)
        XCTAssertEqual(layout.ascender, 30)
        XCTAssertEqual(layout.sublayouts[1].ascender, 16)
        XCTAssertEqual(layout.sublayouts[1].descender, -6)

        // Last baselines: label 40 − 10 = 30, column 50 − 6 = 44: shared at 44; below: max(10, 6)
        // = 10, so 54 high; label at 44 − 30 = 14 (its baseline 14 + 30 = 44), column at 0 (body's
        // baseline 20 + 24 = 44).
        row.alignItems = .baselineLast
        layout = assertLayout(
            row, in: sr(0, 0, 300, 300),
            """
            StackLayoutSpec (0, 0, 100×54)
              CountingLeaf (0, 14, 40×40)
              StackLayoutSpec (40, 0, 60×50)
                CountingLeaf (0, 0, 60×20)
                CountingLeaf (0, 20, 50×30)
            """)
        // Descender 54 − 44 = 10.
        XCTAssertEqual(layout.descender, -10)

        // A new ascender deep inside moves the column: title's baseline 18, the column's 18;
        // shared first baseline 30, below max(10, 50 − 18 = 32): 62 high, column at 30 − 18 = 12.
        row.alignItems = .baselineFirst
        title.style.ascender = 18
        layout = assertLayout(
            row, in: sr(0, 0, 300, 300),
            """
            StackLayoutSpec (0, 0, 100×62)
              CountingLeaf (0, 0, 40×40)
              StackLayoutSpec (40, 12, 60×50)
                CountingLeaf (0, 0, 60×20)
                CountingLeaf (0, 20, 50×30)
            """)
        XCTAssertEqual(layout.ascender, 30)
        XCTAssertEqual(layout.sublayouts[1].ascender, 18)
    }

    // MARK: Description

    func testDescriptionOfAStackLayout() {
        let (a, b) = twoLeaves()
        let row = StackLayoutSpec(justifyContent: .center, children: [a, b])
        // Exactly 101 wide: free 101 − 90 = 11, centred: A at 5.5, B at 45.5 (two decimals).
        let layout = row.layoutThatFits(sr(101, 0, 101, 50))
        XCTAssertEqual(
            layout.description,
            """
            StackLayoutSpec (0, 0, 101×20)
              CountingLeaf (5.50, 0, 40×20)
              CountingLeaf (45.50, 0, 50×20)
            """)
        // Placed in a parent, the stack's line shows its position.
        XCTAssertEqual(
            layout.positioned(at: CGPoint(x: 3, y: 4)).description.split(separator: "\n").first,
            "StackLayoutSpec (3, 4, 101×20)")
    }

    // MARK: Robustness

    func testGrowingIntoAnInfiniteMinimumDoesNotFlex() {
        // An infinite minimum (outside Texture's contract) once made the freeze loop spin on NaN.
        // Now nothing flexes: the child keeps its hypothetical width 0 and is stretched across.
        let range = SizeRange(exactly: sz(.infinity, 10))
        XCTAssertEqual(WrapperLayoutSpec(child: LayoutSpec()).layoutThatFits(range).size, sz(.infinity, 10))
        let row = StackLayoutSpec(children: [LayoutSpec().styled { $0.flexGrow = 1 }]).layoutThatFits(range)
        XCTAssertEqual(row.size, sz(.infinity, 10))
        XCTAssertEqual(row.sublayouts[0].frame, CGRect(x: 0, y: 0, width: 0, height: 10))
        let column = StackLayoutSpec(direction: .vertical, children: [CountingLeaf(5, 5).styled { $0.flexGrow = 1 }])
            .layoutThatFits(sr(0, .infinity, 20, .infinity))
        // The column is as wide as its content (5, within 0…20): the leaf stays 5 × 5.
        XCTAssertEqual(column.sublayouts[0].frame, CGRect(x: 0, y: 0, width: 5, height: 5))
    }

    func testNonFiniteFlexFactorsCountAsZero() {
        // Free space 100 − 10 = 90 goes to the finite factor alone: 10 + 90 = 100 and 0.
        let layout = StackLayoutSpec(children: [
            LayoutSpec().styled { $0.flexGrow = .infinity },
            LayoutSpec().styled { $0.flexGrow = .nan },
            LayoutSpec().styled {
                $0.width = .points(10); $0.flexGrow = 1
            },
        ]).layoutThatFits(SizeRange(exactly: sz(100, 10)))
        XCTAssertEqual(layout.sublayouts.map(\.frame.width), [0, 0, 100], layout.description)
    }

    // MARK: Threads

    /// A column of a growing row, a wrapping row and a leaf.
    private func threadTestStack() -> StackLayoutSpec {
        let row = StackLayoutSpec.horizontal(
            spacing: 4, alignItems: .center,
            children: [
                CountingLeaf(30, 20).styled { $0.flexGrow = 1 }, CountingLeaf(40, 10),
            ])
        let wrapping = StackLayoutSpec(
            spacing: 5, justifyContent: .spaceBetween, flexWrap: .wrap, lineSpacing: 3,
            children: (1...6).map { CountingLeaf(CGFloat(10 * $0), CGFloat(5 * $0)) })
        return StackLayoutSpec.vertical(spacing: 2, children: [row, wrapping, CountingLeaf(15, 15)])
    }

    func testConcurrentLayoutsWhileAnUnrelatedStyleChangesEqualTheSerialOne() {
        let ranges = [sr(0, 0, 120, 400), sr(200, 0, 200, 400), SizeRange.unconstrained]
        let serial = ranges.map { threadTestStack().layoutThatFits($0).description }
        let stack = threadTestStack()

        // Laid out once, so that each change of its style moves the layout generation on.
        let unrelated = CountingLeaf(5, 5)
        _ = unrelated.layoutThatFits(.unconstrained)
        let mutator = BackgroundMutator { i in unrelated.style.flexGrow = CGFloat(i % 2) }
        let generation = LayoutCache.generation
        mutator.start()

        let results = Mutex<[(Int, String)]>([])
        DispatchQueue.concurrentPerform(iterations: 240) { i in
            let description = stack.layoutThatFits(ranges[i % ranges.count]).description
            results.withLock { $0.append((i % ranges.count, description)) }
        }
        let mutations = mutator.stop()

        XCTAssertGreaterThan(mutations, 0)
        XCTAssertGreaterThan(LayoutCache.generation, generation)
        let all = results.withLock { $0 }
        XCTAssertEqual(all.count, 240)
        for (index, description) in all {
            XCTAssertEqual(description, serial[index], "range \(ranges[index])")
        }
        // And after the storm, serially again.
        for (range, expected) in zip(ranges, serial) {
            XCTAssertEqual(stack.layoutThatFits(range).description, expected)
        }
    }
}

/// Runs `body(0)`, `body(1)`, … on a thread of its own until stopped; `start` returns once the
/// first call has run, `stop` once the thread has finished, with the number of calls.
private final class BackgroundMutator: Sendable {
    private let body: @Sendable (Int) -> Void
    private let stopping = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable (Int) -> Void) {
        self.body = body
    }

    func start() {
        let thread = Thread { [self] in
            var i = 0
            while !stopping.load(ordering: .acquiring) {
                body(i)
                i += 1
                count.store(i, ordering: .releasing)
            }
            finished.signal()
        }
        thread.start()
        while count.load(ordering: .acquiring) == 0 { sched_yield() }
    }

    func stop() -> Int {
        stopping.store(true, ordering: .releasing)
        XCTAssertEqual(finished.wait(timeout: HangGuard.deadline), .success, "the layout thread never finished")
        return count.load(ordering: .acquiring)
    }
}
