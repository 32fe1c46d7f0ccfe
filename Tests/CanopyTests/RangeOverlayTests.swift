import Foundation
import XCTest
@testable import Canopy

/// The range overlay's geometry against examples worked out by hand (window points).
final class RangeOverlayTests: XCTestCase {
    private typealias Snapshot = RangeOverlaySnapshot
    private typealias Layout = RangeOverlayLayout

    private static func assertRect(
        _ actual: CGRect?, _ expected: CGRect, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        guard let actual else { return XCTFail("no rect, expected \(expected)", file: file, line: line) }
        let close =
            abs(actual.minX - expected.minX) < 1e-9 && abs(actual.minY - expected.minY) < 1e-9
            && abs(actual.width - expected.width) < 1e-9 && abs(actual.height - expected.height) < 1e-9
        XCTAssertTrue(close, "\(actual) is not \(expected)", file: file, line: line)
    }

    private static func assertSpan(
        _ actual: ClosedRange<CGFloat>, _ expected: ClosedRange<CGFloat>,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let close =
            abs(actual.lowerBound - expected.lowerBound) < 1e-9
            && abs(actual.upperBound - expected.upperBound) < 1e-9
        XCTAssertTrue(close, "\(actual) is not \(expected)", file: file, line: line)
    }

    /// Content 400 x 10,000 with an 800 pt viewport at 3,000 (middle 3,400), the display range
    /// 2,400..4,200 and the preload range 1,600..5,200: the preload range reaches furthest, 1,800 pt
    /// down; with a quarter viewport (200) of margin the map shows 1,400..5,400.
    private static func snapshot(
        items: [Snapshot.Item] = [], viewportInWindow: CGRect = CGRect(x: 0, y: 0, width: 400, height: 800)
    )
        -> Snapshot
    {
        Snapshot(
            contentSize: CGSize(width: 400, height: 10_000), viewport: CGRect(x: 0, y: 3000, width: 400, height: 800),
            displayRange: CGRect(x: 0, y: 2400, width: 400, height: 1800),
            preloadRange: CGRect(x: 0, y: 1600, width: 400, height: 3600),
            items: items, viewportInWindow: viewportInWindow, caption: "full · down")
    }

    /// A 480 x 750 window: the panel is (350, 290, 120, 450); 6 pt in, a 13 pt caption line and a
    /// 13 pt legend line, 6 pt from the map: the map is (356, 315, 108, 400), its item column 8 pt
    /// in (364, 315, 92, 400).
    private static let window = CGSize(width: 480, height: 750)

    func testThePanelSitsAtTheBottomRightTenPointsInAndNeverOutgrowsTheWindow() {
        Self.assertRect(
            Layout.panelRect(windowSize: CGSize(width: 480, height: 750)), CGRect(x: 350, y: 290, width: 120, height: 450))
        Self.assertRect(
            Layout.panelRect(windowSize: CGSize(width: 1000, height: 1000)), CGRect(x: 870, y: 390, width: 120, height: 600))
        // The smallest window the app allows: 60% of 200.
        Self.assertRect(
            Layout.panelRect(windowSize: CGSize(width: 340, height: 200)), CGRect(x: 210, y: 70, width: 120, height: 120))
        // Too small for 120 x 60%: the window less the insets.
        Self.assertRect(Layout.panelRect(windowSize: CGSize(width: 100, height: 40)), CGRect(x: 10, y: 10, width: 80, height: 20))
        Self.assertRect(Layout.panelRect(windowSize: CGSize(width: 15, height: 15)), CGRect(x: 5, y: 5, width: 0, height: 0))
        Self.assertRect(Layout.panelRect(windowSize: .zero), .zero)
    }

    func testTheMapShowsTheRangesAroundTheViewportAtTheScaleWorkedOutByHand() {
        let layout = Layout(snapshot: Self.snapshot(), windowSize: Self.window)
        Self.assertRect(layout.panel, CGRect(x: 350, y: 290, width: 120, height: 450))
        Self.assertRect(layout.captionLine, CGRect(x: 356, y: 296, width: 108, height: 13))
        Self.assertRect(layout.legendLine, CGRect(x: 356, y: 721, width: 108, height: 13))
        Self.assertRect(layout.map, CGRect(x: 356, y: 315, width: 108, height: 400))
        Self.assertRect(layout.itemColumn, CGRect(x: 364, y: 315, width: 92, height: 400))
        Self.assertSpan(layout.span, 1400...5400)
        XCTAssertEqual(layout.scale, 0.1, accuracy: 1e-12)  // 400 pt of map for 4,000 of content
        XCTAssertEqual(layout.horizontalScale, 0.23, accuracy: 1e-12)  // 92 pt of column for 400 of width
        XCTAssertEqual(layout.mapY(1400), 315, accuracy: 1e-9)
        XCTAssertEqual(layout.mapY(3400), 515, accuracy: 1e-9)

        // Bands across the map: preload 1,600..5,200 -> 335..695; display 2,400..4,200 -> 415..595.
        Self.assertRect(layout.preloadBand, CGRect(x: 356, y: 335, width: 108, height: 360))
        Self.assertRect(layout.displayBand, CGRect(x: 356, y: 415, width: 108, height: 180))
        // The viewport, 3,000..3,800 -> 475..555, across the column and 4 pt beyond it.
        Self.assertRect(layout.viewport, CGRect(x: 360, y: 475, width: 100, height: 80))
        // Its outline, 1.5 pt centred on its edges; the top and bottom take the corners.
        XCTAssertEqual(layout.viewportOutline.count, 4)
        let expectedOutline = [
            CGRect(x: 359.25, y: 474.25, width: 101.5, height: 1.5),
            CGRect(x: 359.25, y: 554.25, width: 101.5, height: 1.5),
            CGRect(x: 359.25, y: 475.75, width: 1.5, height: 78.5),
            CGRect(x: 459.25, y: 475.75, width: 1.5, height: 78.5),
        ]
        for (edge, expected) in zip(layout.viewportOutline, expectedOutline) { Self.assertRect(edge, expected) }
        XCTAssertEqual(layout.tints, [])
        XCTAssertEqual(layout.items, [])
    }

    func testItemsAreMappedColouredByStateCutToTheMapAndOutlinedWithoutANode() {
        let items = [
            // (100, 3,100, 200 x 300) -> x 364 + 23 = 387, 46 wide; y 485, 30 tall.
            Snapshot.Item(frame: CGRect(x: 100, y: 3100, width: 200, height: 300), state: .visible, isAllocated: true),
            Snapshot.Item(frame: CGRect(x: 0, y: 4000, width: 400, height: 300), state: .display, isAllocated: true),
            Snapshot.Item(frame: CGRect(x: 0, y: 5000, width: 400, height: 300), state: .preload, isAllocated: false),
            // Straddles the map's bottom (5,400): cut to 5,300..5,400 -> 695..715.
            Snapshot.Item(frame: CGRect(x: 0, y: 5300, width: 400, height: 300), state: .none, isAllocated: false),
            // Wholly below the map: left out.
            Snapshot.Item(frame: CGRect(x: 0, y: 5600, width: 400, height: 300), state: .none, isAllocated: false),
        ]
        let layout = Layout(snapshot: Self.snapshot(items: items, viewportInWindow: .zero), windowSize: Self.window)
        XCTAssertEqual(layout.items.map(\.index), [0, 1, 2, 3])
        Self.assertRect(layout.items[0].rect, CGRect(x: 387, y: 485, width: 46, height: 30))
        XCTAssertEqual(layout.items[0].fill, Layout.visibleItemColor)
        XCTAssertEqual(layout.items[0].stroke, Layout.itemBorderColor)
        Self.assertRect(layout.items[1].rect, CGRect(x: 364, y: 575, width: 92, height: 30))
        XCTAssertEqual(layout.items[1].fill, Layout.displayItemColor)
        Self.assertRect(layout.items[2].rect, CGRect(x: 364, y: 675, width: 92, height: 30))
        XCTAssertNil(layout.items[2].fill, "no node yet: an outline only")
        XCTAssertEqual(layout.items[2].stroke, Layout.preloadItemColor)
        Self.assertRect(layout.items[3].rect, CGRect(x: 364, y: 705, width: 92, height: 10))
        XCTAssertEqual(layout.items[3].stroke, Layout.noneItemColor)

        XCTAssertEqual(Layout.itemColor(.visible), Color(white: 0.95, alpha: 0.9))
        XCTAssertEqual(Layout.itemColor(.display), Color(red: 1, green: 0.6, blue: 0, alpha: 0.9))
        XCTAssertEqual(Layout.itemColor(.preload), Color(red: 1, green: 0.9, blue: 0.1, alpha: 0.9))
        XCTAssertEqual(Layout.itemColor(.none), Color(white: 0.5, alpha: 0.5))
    }

    func testTheSpanStaysInsideTheContentAtItsTopAndBottom() {
        // At the top: the viewport 0..800 (middle 400), the preload range -800..1,600, reaching
        // 1,200 either way, so 1,400 with the margin: 0..2,800 rather than -1,000..1,800.
        var snapshot = Snapshot(
            contentSize: CGSize(width: 400, height: 10_000), viewport: CGRect(x: 0, y: 0, width: 400, height: 800),
            displayRange: CGRect(x: 0, y: -400, width: 400, height: 1600),
            preloadRange: CGRect(x: 0, y: -800, width: 400, height: 2400),
            items: [], viewportInWindow: .zero, caption: "")
        var layout = Layout(snapshot: snapshot, windowSize: Self.window)
        Self.assertSpan(layout.span, 0...2800)
        XCTAssertEqual(layout.scale, 1.0 / 7, accuracy: 1e-12)
        // The ranges above the content are cut at the map's top.
        XCTAssertEqual(layout.preloadBand?.minY ?? -1, layout.map.minY, accuracy: 1e-9)
        XCTAssertEqual(layout.displayBand?.minY ?? -1, layout.map.minY, accuracy: 1e-9)
        Self.assertRect(layout.viewport, CGRect(x: 360, y: 315, width: 100, height: 800.0 / 7))

        // At the bottom: the viewport 9,200..10,000 (middle 9,600), the ranges as far below:
        // 8,200..11,000 moved up to 7,200..10,000.
        snapshot.viewport.origin.y = 9200
        snapshot.displayRange.origin.y = 8800
        snapshot.preloadRange.origin.y = 8400
        layout = Layout(snapshot: snapshot, windowSize: Self.window)
        Self.assertSpan(layout.span, 7200...10_000)
        XCTAssertEqual(layout.preloadBand?.maxY ?? -1, layout.map.maxY, accuracy: 1e-9)
        XCTAssertEqual(layout.viewport.maxY, layout.map.maxY, accuracy: 1e-9)

        // Content shorter than the span: all of it, filling the map.
        // Here the viewport 700..1,500 (middle 1,100), display 300..1,900, preload -100..2,300:
        // 2,800 would be shown.
        snapshot.contentSize.height = 1500
        snapshot.viewport.origin.y = 700
        snapshot.displayRange.origin.y = 300
        snapshot.preloadRange.origin.y = -100
        layout = Layout(snapshot: snapshot, windowSize: Self.window)
        Self.assertSpan(layout.span, 0...1500)
        XCTAssertEqual(layout.scale, 400.0 / 1500, accuracy: 1e-12)

        // Content shorter than the viewport: the viewport's height.
        snapshot.contentSize.height = 300
        snapshot.viewport.origin.y = 0
        layout = Layout(snapshot: snapshot, windowSize: Self.window)
        Self.assertSpan(layout.span, 0...800)
    }

    func testAViewportPulledPastTheTopLosesTheOutlinesEdgeOutsideTheMap() {
        // The viewport -100..700 (middle 300) alone, no ranges: 600 pt either way, moved down to
        // 0..1,200; its top maps 100 / 3 pt above the map's, so the top edge is cut away and the
        // sides start at the map's top.
        let snapshot = Snapshot(
            contentSize: CGSize(width: 400, height: 10_000), viewport: CGRect(x: 0, y: -100, width: 400, height: 800),
            displayRange: .zero, preloadRange: .null, items: [], viewportInWindow: .zero, caption: "")
        let layout = Layout(snapshot: snapshot, windowSize: Self.window)
        Self.assertSpan(layout.span, 0...1200)
        XCTAssertNil(layout.displayBand)
        XCTAssertNil(layout.preloadBand)
        XCTAssertEqual(layout.viewportOutline.count, 3)
        for edge in layout.viewportOutline {
            XCTAssertTrue(layout.map.contains(edge), "\(edge) leaves the map \(layout.map)")
        }
        XCTAssertEqual(layout.viewportOutline.map(\.minY).min() ?? 0, layout.map.minY, accuracy: 1e-9)
    }

    func testOnlyOnScreenItemsInTheDisplayOrPreloadRangeAreTintedWhereTheCollectionShowsThem() {
        // The collection shows its viewport (content 3,000..3,800) at window y 50..850 of a 480 x 750
        // window: content y lands at y - 3,000 + 50.
        let items = [
            Snapshot.Item(frame: CGRect(x: 20, y: 3000, width: 360, height: 200), state: .visible, isAllocated: true),
            Snapshot.Item(frame: CGRect(x: 20, y: 3250, width: 360, height: 200), state: .display, isAllocated: true),
            Snapshot.Item(frame: CGRect(x: 20, y: 3500, width: 360, height: 250), state: .preload, isAllocated: true),
            Snapshot.Item(frame: CGRect(x: 20, y: 3600, width: 360, height: 100), state: .none, isAllocated: false),
            // In the viewport but below the window's bottom (750): not on screen.
            Snapshot.Item(frame: CGRect(x: 20, y: 3710, width: 360, height: 80), state: .display, isAllocated: true),
            // Above the viewport: hidden by the collection, though inside the window.
            Snapshot.Item(frame: CGRect(x: 20, y: 2900, width: 360, height: 90), state: .preload, isAllocated: true),
            // Straddling the viewport's top: only its part inside.
            Snapshot.Item(frame: CGRect(x: 20, y: 2950, width: 100, height: 100), state: .display, isAllocated: true),
        ]
        let layout = Layout(
            snapshot: Self.snapshot(items: items, viewportInWindow: CGRect(x: 0, y: 50, width: 400, height: 800)),
            windowSize: Self.window)
        XCTAssertEqual(layout.tints.map(\.index), [1, 2, 6])
        XCTAssertEqual(layout.tints[0].frame, CGRect(x: 20, y: 300, width: 360, height: 200))
        XCTAssertEqual(layout.tints[0].rect, CGRect(x: 20, y: 300, width: 360, height: 200))
        XCTAssertEqual(layout.tints[0].color, Color(red: 1, green: 0.6, blue: 0, alpha: 0.35))
        // Cut by the window's bottom.
        XCTAssertEqual(layout.tints[1].frame, CGRect(x: 20, y: 550, width: 360, height: 250))
        XCTAssertEqual(layout.tints[1].rect, CGRect(x: 20, y: 550, width: 360, height: 200))
        XCTAssertEqual(layout.tints[1].color, Color(red: 1, green: 0.9, blue: 0.1, alpha: 0.35))
        XCTAssertEqual(layout.tints[2].frame, CGRect(x: 20, y: 0, width: 100, height: 100))
        XCTAssertEqual(layout.tints[2].rect, CGRect(x: 20, y: 50, width: 100, height: 50))
        XCTAssertEqual(layout.tints[2].color, Layout.displayTint)
        XCTAssertEqual(Layout.preloadTint, Color(red: 1, green: 0.9, blue: 0.1, alpha: 0.35))
    }

    func testAnEmptySnapshotGivesFiniteGeometryAndNothingToDraw() {
        for window in [Self.window, .zero, CGSize(width: 15, height: 15)] {
            for snapshot in [
                Snapshot.empty,
                Snapshot(
                    contentSize: .zero, viewport: .null, displayRange: .null, preloadRange: .infinite,
                    items: [
                        Snapshot.Item(frame: .null, state: .display, isAllocated: true),
                        Snapshot.Item(frame: .zero, state: .preload, isAllocated: false),
                    ],
                    viewportInWindow: .null, caption: ""),
            ] {
                let layout = Layout(snapshot: snapshot, windowSize: window)
                let rects =
                    [
                        layout.panel, layout.captionLine, layout.legendLine, layout.map, layout.itemColumn,
                        layout.viewport,
                    ] + layout.viewportOutline + layout.items.map(\.rect) + layout.tints.map(\.rect)
                for rect in rects {
                    for value in [rect.minX, rect.minY, rect.width, rect.height] {
                        XCTAssertTrue(value.isFinite, "\(rect) in \(window)")
                    }
                }
                for value in [
                    layout.scale, layout.horizontalScale, layout.span.lowerBound, layout.span.upperBound, layout.mapY(100),
                ] {
                    XCTAssertTrue(value.isFinite, "\(value) in \(window)")
                }
                XCTAssertEqual(layout.scale, 0)
                XCTAssertNil(layout.preloadBand)
                XCTAssertNil(layout.displayBand)
                XCTAssertEqual(layout.viewportOutline, [])
                XCTAssertEqual(layout.items, [])
                XCTAssertEqual(layout.tints, [])
            }
        }
    }

    func testAContentRectLandsInTheWindowByTheViewportsPlace() {
        let snapshot = Self.snapshot(viewportInWindow: CGRect(x: 10, y: 40, width: 400, height: 800))
        XCTAssertEqual(
            snapshot.windowRect(ofContentRect: CGRect(x: 5, y: 3100, width: 50, height: 60)),
            CGRect(x: 15, y: 140, width: 50, height: 60))
    }
}
