import Foundation
import XCTest
@testable import Canopy

final class ListLayoutTests: XCTestCase {
    func testItemsOfAGivenWidthAreCentredAndSpacedBetweenAndAround() {
        let layout = ListLayout(itemWidth: 320)
        let result = layout.layout(
            sizes: [
                CGSize(width: 320, height: 100), CGSize(width: 320, height: 50),
                CGSize(width: 320, height: 200),
            ], width: 400)
        // (400 - 320) / 2 = 40; 10 above the first, 10 between, 10 below the last.
        XCTAssertEqual(
            result.frames,
            [
                CGRect(x: 40, y: 10, width: 320, height: 100),
                CGRect(x: 40, y: 120, width: 320, height: 50),
                CGRect(x: 40, y: 180, width: 320, height: 200),
            ])
        XCTAssertEqual(result.contentHeight, 390)
    }

    func testWithoutAWidthItemsFillTheCollectionLessTheSpacing() {
        let layout = ListLayout(spacing: 8)
        XCTAssertEqual(layout.itemWidth(forCollectionWidth: 400), 384)
        XCTAssertEqual(
            layout.sizeRange(forItemAt: 0, collectionWidth: 400),
            SizeRange(min: CGSize(width: 384, height: 0), max: CGSize(width: 384, height: CGFloat.infinity)))
        let result = layout.layout(sizes: [CGSize(width: 10, height: 30), CGSize(width: 999, height: 40)], width: 400)
        // Each item is the list's width, whatever width it measured.
        XCTAssertEqual(
            result.frames,
            [
                CGRect(x: 8, y: 8, width: 384, height: 30),
                CGRect(x: 8, y: 46, width: 384, height: 40),
            ])
        XCTAssertEqual(result.contentHeight, 94)
    }

    func testTheSizeRangeIsTheItemWidthAnyHeight() {
        XCTAssertEqual(
            ListLayout(itemWidth: 320).sizeRange(forItemAt: 7, collectionWidth: 1000),
            SizeRange(min: CGSize(width: 320, height: 0), max: CGSize(width: 320, height: CGFloat.infinity)))
    }

    func testTheLeftEdgeIsAWholePointAndNeverLeftOfZero() {
        let layout = ListLayout(itemWidth: 320)
        // (649 - 320) / 2 = 164.5, rounded down.
        XCTAssertEqual(layout.layout(sizes: [CGSize(width: 320, height: 100)], width: 649).frames[0].minX, 164)
        // Narrower than an item: it keeps its left edge and its width.
        XCTAssertEqual(
            layout.layout(sizes: [CGSize(width: 320, height: 100)], width: 300).frames[0],
            CGRect(x: 0, y: 10, width: 320, height: 100))
        // Narrower than the spacing on both sides: no negative width.
        XCTAssertEqual(ListLayout().itemWidth(forCollectionWidth: 15), 0)
    }

    func testAnEmptyListHasNoContent() {
        XCTAssertEqual(ListLayout(itemWidth: 320).layout(sizes: [], width: 400), .empty)
    }

    func testUnusableNumbersCountAsZero() {
        let layout = ListLayout(itemWidth: .nan, spacing: -5)
        let result = layout.layout(
            sizes: [
                CGSize(width: 0, height: CGFloat.infinity), CGSize(width: 0, height: -3),
                CGSize(width: 0, height: 20),
            ], width: .nan)
        XCTAssertEqual(
            result.frames,
            [
                CGRect(x: 0, y: 0, width: 0, height: 0),
                CGRect(x: 0, y: 0, width: 0, height: 0),
                CGRect(x: 0, y: 0, width: 0, height: 20),
            ])
        XCTAssertEqual(result.contentHeight, 20)
        XCTAssertEqual(ListLayout(spacing: .infinity).itemWidth(forCollectionWidth: 400), 400)
    }

    func testVisibleIndicesMatchABruteForceScan() {
        var generator = SystemRandomNumberGenerator()
        let sizes = (0..<500).map { _ in CGSize(width: 320, height: CGFloat(Int.random(in: 0...900, using: &generator))) }
        for layout in [ListLayout(itemWidth: 320), ListLayout(spacing: 0)] {
            let result = layout.layout(sizes: sizes, width: 400)
            for top in stride(from: -100 as CGFloat, through: result.contentHeight, by: 733) {
                let rect = CGRect(x: 0, y: top, width: 400, height: 800)
                let expected = result.frames.indices.filter { result.frames[$0].overlaps(rect) }
                XCTAssertEqual(result.indices(intersecting: rect), expected, "\(layout) top \(top)")
            }
        }
    }

    func testARelayoutAtAnotherWidthKeepsTheTopItemInPlace() {
        // Items that grow as the list narrows (as wrapped text does): the anchor item stays at
        // the same distance from the viewport's top.
        let layout = ListLayout()
        let wide = layout.layout(sizes: (0..<200).map { CGSize(width: 780, height: CGFloat(100 + ($0 * 37) % 300)) }, width: 800)
        let offset: CGFloat = 12_345
        let anchor = try! XCTUnwrap(wide.anchor(atOffset: offset, viewport: CGSize(width: 800, height: 600)))
        XCTAssertTrue(wide.frames[anchor.index].minY <= offset && wide.frames[anchor.index].maxY > offset)
        let narrow = layout.layout(
            sizes: (0..<200).map { CGSize(width: 380, height: CGFloat(200 + ($0 * 37) % 300)) }, width: 400)
        let newOffset = narrow.offset(keeping: anchor)
        XCTAssertEqual(newOffset - narrow.frames[anchor.index].minY, offset - wide.frames[anchor.index].minY)
    }
}
