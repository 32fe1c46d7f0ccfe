import Canopy
import CanopyGraphics
import Foundation
import XCTest
@testable import RainforestKit

final class CardLayoutTests: XCTestCase {
    /// The frames of the card's parts, by walking the layout tree and adding positions.
    private func frames(_ layout: Layout, origin: CGPoint = .zero, into result: inout [(Layout, CGRect)]) {
        let frame = CGRect(
            x: origin.x + layout.position.x, y: origin.y + layout.position.y,
            width: layout.size.width, height: layout.size.height)
        result.append((layout, frame))
        for sublayout in layout.sublayouts { frames(sublayout, origin: frame.origin, into: &result) }
    }

    private func leafFrames(_ layout: Layout) -> [(CardLayout.Leaf, CGRect)] {
        var all: [(Layout, CGRect)] = []
        frames(layout, into: &all)
        return all.compactMap { entry in (entry.0.element as? CardLayout.Leaf).map { ($0, entry.1) } }
    }

    func testTheTutorialsGeometry() {
        // A 1024 x 683 photo (the jaguar): ceil(683 / 1024 × 320) = ceil(213.44) = 214 pt high.
        let spec = CardLayout.spec(
            photoSize: CGSize(width: 1024, height: 683), name: "Jaguar",
            description: String(repeating: "word ", count: 40), credit: "Someone, CC0")
        let layout = spec.layoutThatFits(CardLayout.sizeRange)
        XCTAssertEqual(layout.size, CGSize(width: 320, height: 214 + 300), layout.description)

        let leaves = leafFrames(layout)
        // Order of leaves in the tree: background, photo, gradient, title, favourite, description,
        // credit icon, credit text.
        XCTAssertEqual(leaves.count, 8, layout.description)
        let background = leaves[0].1, photo = leaves[1].1, gradient = leaves[2].1, title = leaves[3].1
        let favourite = leaves[4].1, description = leaves[5].1
        XCTAssertEqual(photo, CGRect(x: 0, y: 0, width: 320, height: 214))
        XCTAssertEqual(gradient, photo, "the gradient covers the photo")
        // One 36 pt line (1.2 × 30), as wide as the photo less 20 on each side (the overlay gives the
        // inset its exact size and the inset passes the minimum on); bottom 20 above the photo's
        // bottom: y = 214 − 20 − 36 = 158.
        XCTAssertEqual(title, CGRect(x: 20, y: 158, width: 280, height: 36))
        // 24 × 24, 12 pt from the top and right: x = 320 − 12 − 24 = 284.
        XCTAssertEqual(favourite, CGRect(x: 284, y: 12, width: 24, height: 24))
        // 24 pt in on both sides, 20 pt below the photo.
        XCTAssertEqual(description.minX, 24)
        XCTAssertEqual(description.width, 320 - 48)
        XCTAssertEqual(description.minY, 214 + 20)
        XCTAssertEqual(background, CGRect(x: 0, y: 0, width: 320, height: 514))
    }

    func testALongDescriptionShrinksInsideTheTextArea() {
        // 5,000 characters at 8 pt would take far more than the 300 pt text area: the description
        // shrinks, the credit row stays at the bottom, and the card keeps its height.
        let spec = CardLayout.spec(
            photoSize: CGSize(width: 1920, height: 1080), name: "Mountain gorilla",
            description: String(repeating: "x", count: 5_000), credit: "Someone")
        let layout = spec.layoutThatFits(CardLayout.sizeRange)
        XCTAssertEqual(layout.size, CGSize(width: 320, height: 180 + 300), layout.description)
        let leaves = leafFrames(layout)
        let description = leaves[5].1, creditText = leaves[7].1
        XCTAssertLessThanOrEqual(description.maxY, creditText.minY, layout.description)
        XCTAssertLessThanOrEqual(creditText.maxY, 480 - 12 + 0.001, layout.description)
    }

    func testAnUnreadablePhotoUsesTheFallbackAspect() {
        let layout = CardLayout.spec(photoSize: nil, name: "A", description: "", credit: "")
            .layoutThatFits(CardLayout.sizeRange)
        // 3 / 4 × 320 = 240.
        XCTAssertEqual(layout.size, CGSize(width: 320, height: 240 + 300))
    }

    func testTheBenchmarksJSONNames() throws {
        let result = LayoutBenchmark.Result(cardUs: 1, cells10kMs: 2, cardCachedUs: 3, cardNodeUs: 4, cardNodeCachedUs: 5)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: Double]
        XCTAssertEqual(
            json,
            [
                "card_us": 1, "cells_10k_ms": 2, "card_cached_us": 3, "card_node_us": 4,
                "card_node_cached_us": 5,
            ])
    }
}
