import Canopy
import CanopyGraphics
import Foundation
import XCTest
@testable import RainforestKit

/// The tutorial's card as nodes, drawn for real: blurred photo behind, gradient, texts, border,
/// placeholder with its leaf.
final class CardNodeTests: XCTestCase {
    private static let resources = RainforestTestSupport.resources

    override func setUpWithError() throws {
        try RainforestTestSupport.prepareGraphics()
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    /// A card of the first embedded entry (with `description` if given), laid out and displayed now.
    @MainActor
    private static func displayedCard(description: String? = nil, scale: CGFloat = 1) throws -> (CardNode, Bitmap) {
        let deck = try CardDeck.load(resources: Resources(root: resources), itemCount: nil)
        var entry = deck.entry(at: 0)
        if let description { entry.card.description = description }
        let card = RainforestTestSupport.displayedCard(
            entry, imagePath: resources.appendingPathComponent(entry.card.image).path,
            scale: scale)
        return (card, try XCTUnwrap(card.layer.contents))
    }

    func testTheCardIsTheTutorials() throws {
        try MainActor.assumeIsolated {
            let (card, bitmap) = try Self.displayedCard()
            let feature = card.photo.frame
            XCTAssertEqual(feature.width, 320)
            XCTAssertEqual(card.frame.height, feature.height + 300)
            // The text area shows the photo blurred: colour, not the black background, and
            // smooth (neighbouring pixels a few levels apart at most).
            let y = Int(feature.maxY) + 150
            let samples = (40..<280).map { bitmap.pixel(x: $0, y: y) }
            XCTAssertGreaterThan(
                samples.map { Int($0.r) + Int($0.g) + Int($0.b) }.max()!, 60, "the blurred photo shows below the photo")
            // The gradient: the photo's bottom edge (under the name, away from its letters) is
            // darker than the photo's middle on average.
            func brightness(_ row: Int) -> Int {
                (250..<300).map { x in
                    let p = bitmap.pixel(x: x, y: row); return Int(p.r) + Int(p.g) + Int(p.b)
                }.reduce(0, +)
            }
            XCTAssertLessThan(brightness(Int(feature.maxY) - 3), brightness(Int(feature.midY)))
            // The title sits 20 pt in and ends 20 pt above the photo's bottom; the description
            // starts 24 pt in, 20 pt below it (shadow padding aside).
            XCTAssertEqual(card.title.frame.minX, 20, accuracy: 4)
            XCTAssertEqual(card.title.frame.maxY, feature.maxY - 20, accuracy: 4)
            XCTAssertEqual(card.details.frame.minX, 24, accuracy: 4)
            XCTAssertEqual(card.details.frame.minY, feature.maxY + 20, accuracy: 4)
            // The 1 px border: grey 0.85 at 0.2 over what is under it, so lighter than the pixel
            // just inside on a dark photo area.
            XCTAssertEqual(card.borderWidth, 1)
            XCTAssertEqual(card.borderColor, Color(white: 0.85, alpha: 0.2))
            // The heart: 24 pt at the photo's top right, with 16 pt of slop on each side.
            XCTAssertEqual(card.favourite.frame.size, CGSize(width: 24, height: 24))
            XCTAssertEqual(card.favourite.hitTestSlop, EdgeInsets(top: -16, left: -16, bottom: -16, right: -16))
        }
    }

    /// The blurred background is drawn from the photo's decode: each card decodes its photo once,
    /// to the photo area's pixels, at 1x and at 2x.
    func testACardDecodesItsPhotoOnce() throws {
        try MainActor.assumeIsolated {
            let deck = try CardDeck.load(resources: Resources(root: Self.resources), itemCount: nil)
            let entry = deck.entry(at: 0)
            for scale: CGFloat in [1, 2] {
                let cache = ImageCache()
                let card = RainforestTestSupport.displayedCard(
                    entry, imagePath: Self.resources.appendingPathComponent(entry.card.image).path, scale: scale
                ) { card in
                    card.background.imageCache = cache
                    card.photo.imageCache = cache
                }
                XCTAssertNotNil(card.layer.contents)
                XCTAssertEqual(cache.keysByRecentUse.count, 1, "scale \(scale): one size")
                XCTAssertEqual(cache.keysByRecentUse.first?.fitting?.width, card.photo.frame.width * scale)
                XCTAssertEqual(cache.statistics.misses, 1, "scale \(scale): one decode")
                XCTAssertEqual(card.photo.imageScaleFactor ?? -1, 1, accuracy: 0.01, "scale \(scale)")
                XCTAssertLessThan(card.background.imageScaleFactor ?? 1, 1, "scale \(scale): the background enlarges it")
                DisplayScheduler.shared.uninstall()
            }
        }
    }

    func testALongDescriptionEndsWithAnEllipsisAboveTheCredit() throws {
        try MainActor.assumeIsolated {
            let long = Array(repeating: "Rain falls on the canopy and drips down to the forest floor.", count: 30).joined(
                separator: " ")
            for scale: CGFloat in [1, 2] {
                let (card, _) = try Self.displayedCard(description: long, scale: scale)
                XCTAssertTrue(card.details.isTruncated)
                XCTAssertLessThanOrEqual(
                    card.details.frame.maxY, card.credit.frame.minY, "the description stays above the credit")
                XCTAssertEqual(card.details.lineCount, CardNode.descriptionLineLimit(scale: scale))
                // Every line, the last with its "…", fits the node's frame: it was not squeezed
                // (a squeezed node's last lines are cut off by the card's clip).
                let natural = card.details.layoutThatFits(
                    SizeRange(min: .zero, max: CGSize(width: card.details.frame.width, height: .infinity)))
                XCTAssertLessThanOrEqual(natural.size.height, card.details.frame.height + 0.5, "scale \(scale)")
                DisplayScheduler.shared.uninstall()
            }
        }
    }

    func testThePlaceholderIsGreyWithALeafInItsMiddle() throws {
        try MainActor.assumeIsolated {
            let leaf = try XCTUnwrap(
                MainActor.assumeIsolated {
                    CardNode(
                        index: 0,
                        entry: .init(
                            card: Card(name: "x", image: "z", description: "y", credit: "c"),
                            imageSize: .success(CGSize(width: 4, height: 3))),
                        imagePath: "/nonexistent", scale: 2
                    ).placeholderImage()
                })
            XCTAssertEqual(leaf.width, 112)
            // The blade runs along the diagonal from bottom left to top right, cut by its midrib;
            // nothing in the far corners. (0, 0.3) across the blade's axis is pixel (47, 47).
            XCTAssertGreaterThan(leaf.pixel(x: 47, y: 47).a, 200, "the blade, beside the midrib")
            XCTAssertGreaterThan(leaf.pixel(x: 65, y: 65).a, 200, "the blade, on the other side")
            XCTAssertEqual(leaf.pixel(x: 56, y: 56).a, 0, "the midrib")
            XCTAssertEqual(leaf.pixel(x: 5, y: 5).a, 0)
            XCTAssertEqual(leaf.pixel(x: 106, y: 106).a, 0)
            XCTAssertEqual(CardNode.placeholderGrey, Color(white: 0.85))
        }
    }
}
