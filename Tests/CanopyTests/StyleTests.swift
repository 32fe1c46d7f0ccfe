import Foundation
import Synchronization
import XCTest

@testable import Canopy

/// A leaf with an intrinsic size that counts its measurements (for the caching tests).
final class CountingLeaf: LayoutElement {
    let style: Style
    let layoutCache = LayoutCache()
    let intrinsicSize: CGSize
    private let count = Mutex(0)

    init(_ width: CGFloat, _ height: CGFloat, style: Style = Style()) {
        self.intrinsicSize = CGSize(width: width, height: height)
        self.style = style
    }

    var measurements: Int { count.withLock { $0 } }

    func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        count.withLock { $0 += 1 }
        return intrinsicSize
    }
}

/// An element that implements nothing but the stored properties: it gets every default.
final class BareLayoutElement: LayoutElement {
    let style: Style
    let layoutCache = LayoutCache()
    init(style: Style = Style()) { self.style = style }
}

/// A leaf as large as it may be, and the same as a node.
private final class FillingLeaf: LayoutElement {
    let style = Style()
    let layoutCache = LayoutCache()
    func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize { constrainedSize }
}

private final class FillingNode: DisplayNode, @unchecked Sendable {
    override func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize { constrainedSize }
}

/// Shorthands for the layout tests.
func sz(_ w: CGFloat, _ h: CGFloat) -> CGSize { CGSize(width: w, height: h) }
func sr(_ minW: CGFloat, _ minH: CGFloat, _ maxW: CGFloat, _ maxH: CGFloat) -> SizeRange {
    SizeRange(min: CGSize(width: minW, height: minH), max: CGSize(width: maxW, height: maxH))
}
let unbounded = CGFloat.infinity

final class StyleTests: XCTestCase {
    // MARK: Defaults and storage

    func testDefaultsAreTexturesDefaults() {
        let style = Style()
        XCTAssertEqual(style.width, .auto)
        XCTAssertEqual(style.height, .auto)
        XCTAssertEqual(style.minWidth, .auto)
        XCTAssertEqual(style.maxWidth, .auto)
        XCTAssertEqual(style.minHeight, .auto)
        XCTAssertEqual(style.maxHeight, .auto)
        XCTAssertEqual(style.flexGrow, 0)
        XCTAssertEqual(style.flexShrink, 0)
        XCTAssertEqual(style.flexBasis, .auto)
        XCTAssertEqual(style.alignSelf, .auto)
        XCTAssertEqual(style.spacingBefore, 0)
        XCTAssertEqual(style.spacingAfter, 0)
        XCTAssertEqual(style.ascender, 0)
        XCTAssertEqual(style.descender, 0)
        XCTAssertEqual(style.layoutPosition, .zero)
        XCTAssertEqual(style.preferredSize, .zero)
        // Everything auto: the range is zero to infinity whatever the parent.
        XCTAssertEqual(style.sizeRange(parentSize: sz(100, 100)), .unconstrained)
    }

    func testFlexAndBaselinePropertiesAreStored() {
        // These are read by the stack spec; here they must keep what is set.
        let style = Style {
            $0.flexGrow = 1
            $0.flexShrink = 2
            $0.flexBasis = .fraction(0.3)
            $0.alignSelf = .baselineLast
            $0.spacingBefore = 4
            $0.spacingAfter = 6
            $0.ascender = 12
            $0.descender = 3
            $0.layoutPosition = CGPoint(x: 7, y: 8)
        }
        XCTAssertEqual(style.flexGrow, 1)
        XCTAssertEqual(style.flexShrink, 2)
        XCTAssertEqual(style.flexBasis, .fraction(0.3))
        XCTAssertEqual(style.alignSelf, .baselineLast)
        XCTAssertEqual(style.spacingBefore, 4)
        XCTAssertEqual(style.spacingAfter, 6)
        XCTAssertEqual(style.ascender, 12)
        XCTAssertEqual(style.descender, 3)
        XCTAssertEqual(style.layoutPosition, CGPoint(x: 7, y: 8))
        // None of them changes the size range.
        XCTAssertEqual(style.sizeRange(parentSize: sz(100, 100)), .unconstrained)
    }

    func testPreferredMinAndMaxSizeSetPointDimensions() {
        let style = Style()
        style.preferredSize = sz(30, 40)
        XCTAssertEqual(style.width, .points(30))
        XCTAssertEqual(style.height, .points(40))
        style.minSize = sz(10, 20)
        XCTAssertEqual(style.minWidth, .points(10))
        XCTAssertEqual(style.minHeight, .points(20))
        style.maxSize = sz(50, 60)
        XCTAssertEqual(style.maxWidth, .points(50))
        XCTAssertEqual(style.maxHeight, .points(60))
        XCTAssertEqual(style.preferredSize, sz(30, 40))
        XCTAssertEqual(style.minSize, sz(10, 20))
        XCTAssertEqual(style.maxSize, sz(50, 60))
        // A fractional width reads back as 0 points.
        style.width = .fraction(0.5)
        XCTAssertEqual(style.preferredSize, sz(0, 40))
    }

    // MARK: LayoutDimension

    func testDimensionResolve() {
        XCTAssertEqual(LayoutDimension.points(12).resolve(parent: 200, auto: 5), 12)
        // 0.25 × 200 = 50
        XCTAssertEqual(LayoutDimension.fraction(0.25).resolve(parent: 200, auto: 5), 50)
        XCTAssertEqual(LayoutDimension.auto.resolve(parent: 200, auto: 5), 5)
        // A fraction of an undefined (NaN) or infinite parent is the auto value.
        XCTAssertEqual(LayoutDimension.fraction(0.25).resolve(parent: .nan, auto: 5), 5)
        XCTAssertEqual(LayoutDimension.fraction(0.25).resolve(parent: unbounded, auto: 5), 5)
    }

    // MARK: Resolution (ASLayoutElementSizeResolve)

    func testWidthAndHeightAreExact() {
        let style = Style {
            $0.width = .points(50); $0.height = .fraction(0.5)
        }
        // Width 50; height 0.5 × 300 = 150.
        XCTAssertEqual(style.sizeRange(parentSize: sz(200, 300)), sr(50, 150, 50, 150))
    }

    func testMinAndMaxBoundTheRange() {
        let style = Style {
            $0.minWidth = .points(10); $0.maxWidth = .points(80)
            $0.minHeight = .fraction(0.1); $0.maxHeight = .fraction(0.5)
        }
        // Height: 0.1 × 300 = 30 … 0.5 × 300 = 150.
        XCTAssertEqual(style.sizeRange(parentSize: sz(200, 300)), sr(10, 30, 80, 150))
    }

    func testMaxWinsOverPreferredSize() {
        let style = Style {
            $0.preferredSize = sz(100, 100); $0.maxSize = sz(60, 70)
        }
        // min(60, 100) = 60, min(70, 100) = 70.
        XCTAssertEqual(style.sizeRange(parentSize: sz(500, 500)), sr(60, 70, 60, 70))
    }

    func testMinWinsOverPreferredSize() {
        let style = Style {
            $0.preferredSize = sz(10, 10); $0.minSize = sz(30, 40)
        }
        XCTAssertEqual(style.sizeRange(parentSize: sz(500, 500)), sr(30, 40, 30, 40))
    }

    func testMinWinsOverMax() {
        // With an exact width: max(80, min(60, 70)) = 80.
        let exact = Style {
            $0.width = .points(70); $0.minWidth = .points(80); $0.maxWidth = .points(60)
        }
        XCTAssertEqual(exact.sizeRange(parentSize: sz(500, 500)).min.width, 80)
        XCTAssertEqual(exact.sizeRange(parentSize: sz(500, 500)).max.width, 80)
        // Without: [20, max(20, 10)] = [20, 20].
        let bounds = Style {
            $0.minHeight = .points(20); $0.maxHeight = .points(10)
        }
        XCTAssertEqual(bounds.sizeRange(parentSize: sz(500, 500)).min.height, 20)
        XCTAssertEqual(bounds.sizeRange(parentSize: sz(500, 500)).max.height, 20)
    }

    func testAutoRangeFillsAutoBounds() {
        let style = Style { $0.minWidth = .points(5) }
        // minWidth 5 stays; auto maxWidth and both auto heights come from the auto range.
        XCTAssertEqual(
            style.sizeRange(parentSize: sz(100, 100), autoRange: sr(1, 2, 30, 40)),
            sr(5, 2, 30, 40))
    }

    // MARK: Style in layout

    func testLeafTakesItsStyleSize() {
        let leaf = CountingLeaf(10, 10, style: Style { $0.preferredSize = sz(30, 40) })
        // The style makes the range exactly 30×40, so the intrinsic 10×10 is clamped to it.
        XCTAssertEqual(leaf.layoutThatFits(sr(0, 0, 100, 100)).size, sz(30, 40))
    }

    func testLeafFractionResolvesAgainstParentSize() {
        let leaf = CountingLeaf(
            10, 10,
            style: Style {
                $0.width = .fraction(0.5); $0.height = .fraction(0.25)
            })
        // Parent 200×80: 100 × 20.
        XCTAssertEqual(leaf.layoutThatFits(sr(0, 0, 300, 300), parentSize: sz(200, 80)).size, sz(100, 20))
        // Without a parent size the parent is the range's max 300×300: 150 × 75.
        XCTAssertEqual(leaf.layoutThatFits(sr(0, 0, 300, 300)).size, sz(150, 75))
    }

    func testLeafMinAndMaxClampTheIntrinsicSize() {
        let small = CountingLeaf(
            10, 10,
            style: Style {
                $0.minWidth = .points(25); $0.minHeight = .points(35)
            })
        XCTAssertEqual(small.layoutThatFits(.unconstrained).size, sz(25, 35))
        let big = CountingLeaf(
            90, 90,
            style: Style {
                $0.maxWidth = .points(40); $0.maxHeight = .points(50)
            })
        XCTAssertEqual(big.layoutThatFits(.unconstrained).size, sz(40, 50))
    }

    func testParentRangeWinsOverStyle() {
        // Style wants 300×20 but the range allows 0…200 × 50…100: width 200 (nearest to 300),
        // height 50 (nearest to 20).
        let leaf = CountingLeaf(0, 0, style: Style { $0.preferredSize = sz(300, 20) })
        XCTAssertEqual(leaf.layoutThatFits(sr(0, 50, 200, 100)).size, sz(200, 50))
    }

    func testDefaultSizeThatFitsIsZero() {
        let bare = BareLayoutElement()
        XCTAssertEqual(bare.calculateSizeThatFits(sz(100, 100)), .zero)
        // So a bare element takes its range's minimum, or its style size.
        XCTAssertEqual(bare.layoutThatFits(sr(5, 6, 100, 100)).size, sz(5, 6))
        let styled = BareLayoutElement(style: Style { $0.preferredSize = sz(12, 13) })
        XCTAssertEqual(styled.layoutThatFits(sr(5, 6, 100, 100)).size, sz(12, 13))
    }

    func testALeafThatFillsItsRangeTakesTheMinimumOnAnUnboundedAxis() {
        // A leaf that answers the largest size it may take gets infinity on an axis with no finite
        // max; that counts as 0, so the leaf takes the range's minimum there, as a node leaf does.
        let range = sr(5, 6, 100, unbounded)
        XCTAssertEqual(FillingLeaf().layoutThatFits(range).size, sz(100, 6))
        XCTAssertEqual(FillingNode().layoutThatFits(range).size, sz(100, 6))
    }

    // MARK: SizeRange

    func testSizeRangeHelpers() {
        XCTAssertEqual(SizeRange.unconstrained.min, .zero)
        XCTAssertEqual(SizeRange.unconstrained.max, sz(unbounded, unbounded))
        XCTAssertEqual(SizeRange(exactly: sz(3, 4)), sr(3, 4, 3, 4))
        let r = sr(10, 20, 100, 200)
        XCTAssertEqual(r.clamp(sz(5, 500)), sz(10, 200))
        XCTAssertEqual(r.clamp(sz(50, 60)), sz(50, 60))
        // Overlap: [max(10, 50), min(100, 300)] = [50, 100]; [max(20, 0), min(200, 150)] = [20, 150].
        XCTAssertEqual(r.intersect(sr(50, 0, 300, 150)), sr(50, 20, 100, 150))
        // No overlap: width other 150…160 is above 10…100, so 100; height other 0…5 is below
        // 20…200, so 20.
        XCTAssertEqual(r.intersect(sr(150, 0, 160, 5)), sr(100, 20, 100, 20))
    }
}
