import Canopy
import Foundation
import XCTest
@testable import RainforestKit

final class ColumnLayoutTests: XCTestCase {
    let layout = ColumnLayout()

    func testOneCentredColumnBelow650Points() {
        let result = layout.layout(heights: [500, 480, 400], width: 649)
        XCTAssertEqual(layout.columnCount(forWidth: 649), 1)
        // (649 - 320) / 2 = 164.5, floored to a whole point.
        XCTAssertEqual(
            result.frames,
            [
                CGRect(x: 164, y: 10, width: 320, height: 500),
                CGRect(x: 164, y: 520, width: 320, height: 480),
                CGRect(x: 164, y: 1010, width: 320, height: 400),
            ])
        XCTAssertEqual(result.contentHeight, 1420)
    }

    func testTwoColumnsTenPointsApartFrom650Points() {
        let result = layout.layout(heights: [500, 300, 400, 350], width: 650)
        XCTAssertEqual(layout.columnCount(forWidth: 650), 2)
        // 320 + 10 + 320 = 650 fills the width exactly. Each card goes to the shorter column.
        XCTAssertEqual(
            result.frames,
            [
                CGRect(x: 0, y: 10, width: 320, height: 500),  // left:  10 -> 520
                CGRect(x: 330, y: 10, width: 320, height: 300),  // right: 10 -> 320
                CGRect(x: 330, y: 320, width: 320, height: 400),  // right is shorter: 320 -> 730
                CGRect(x: 0, y: 520, width: 320, height: 350),  // left is shorter: 520 -> 880
            ])
        XCTAssertEqual(result.contentHeight, 880)
    }

    func testAWindowNarrowerThanAColumnKeepsItsLeftEdge() {
        XCTAssertEqual(ColumnLayout().layout(heights: [100], width: 300).frames[0].minX, 0)
    }

    func testWideWindowsCentreTheTwoColumns() {
        let result = layout.layout(heights: [100, 100], width: 1280)
        XCTAssertEqual(result.frames.map(\.minX), [315, 645])
    }

    func testVisibleIndicesMatchABruteForceScan() {
        var generator = SystemRandomNumberGenerator()
        let heights = (0..<500).map { _ in CGFloat(Int.random(in: 380...900, using: &generator)) }
        for width in [649, 650, 1280] as [CGFloat] {
            let result = layout.layout(heights: heights, width: width)
            for top in stride(from: -100 as CGFloat, through: result.contentHeight, by: 733) {
                let rect = CGRect(x: 0, y: top, width: width, height: 800)
                let expected = result.frames.indices.filter { result.frames[$0].overlaps(rect) }
                XCTAssertEqual(result.indices(intersecting: rect), expected, "width \(width) top \(top)")
            }
        }
    }
}

final class ColumnLayoutAnchorTests: XCTestCase {
    func testARelayoutKeepsTheTopCardAtTheSameDistanceFromTheTop() {
        let layout = ColumnLayout()
        let heights = (0..<200).map { CGFloat(400 + ($0 * 37) % 300) }
        let wide = layout.layout(heights: heights, width: 1280)
        let offset: CGFloat = 12_345
        let anchor = wide.anchor(atOffset: offset, viewport: CGSize(width: 1280, height: 800))!
        XCTAssertTrue(wide.frames[anchor.index].minY <= offset && wide.frames[anchor.index].maxY > offset)
        let narrow = layout.layout(heights: heights, width: 640)
        let newOffset = narrow.offset(keeping: anchor)
        XCTAssertEqual(narrow.frames[anchor.index].minY, newOffset - anchor.distance)
        XCTAssertEqual(newOffset - narrow.frames[anchor.index].minY, offset - wide.frames[anchor.index].minY)
        // And it is the topmost card crossing the top edge: no other card there starts higher.
        let crossing = wide.indices(intersecting: CGRect(x: 0, y: offset, width: 1280, height: 1))
        XCTAssertTrue(crossing.allSatisfy { wide.frames[$0].minY >= wide.frames[anchor.index].minY })
    }
}
