import Canopy
import CanopyGraphics
import Foundation
import XCTest
@testable import RainforestKit

/// Issue 8's hostile card data, as cards: a 10 MB description, right-to-left and emoji text,
/// repeated names, unknown fields and a missing image, drawn by `CardNode` and by the binary.
/// (What cards.json accepts and rejects, with file, line and field, is `CardsFileTests`.)
final class HostileCardsTests: XCTestCase {
    static let resources = RainforestTestSupport.resources

    override func setUpWithError() throws {
        try RainforestTestSupport.prepareGraphics()
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    /// The card of `card` (its photo the jaguar's), laid out at `scale`.
    @MainActor
    private static func laidOut(_ card: Card, scale: CGFloat) -> CardNode {
        let entry = CardDeck.Entry(card: card, imageSize: .success(CGSize(width: 1024, height: 683)))
        let node = CardNode(index: 0, entry: entry, imagePath: "/nonexistent", scale: scale)
        node.layoutAndApply(CardLayout.sizeRange)
        return node
    }

    /// The card of `card` (its photo the jaguar's), laid out and displayed now at `scale`.
    @MainActor
    private static func drawn(_ card: Card, scale: CGFloat) throws -> (CardNode, Bitmap) {
        defer { DisplayScheduler.shared.uninstall() }
        let entry = CardDeck.Entry(card: card, imageSize: .success(CGSize(width: 1024, height: 683)))
        let node = RainforestTestSupport.displayedCard(
            entry, imagePath: resources.appendingPathComponent("images/jaguar.webp").path,
            scale: scale)
        return (node, try XCTUnwrap(node.layerIfLoaded?.contents))
    }

    /// Pixels of the description's frame that are near white (its text).
    private static func textPixels(_ node: CardNode, _ bitmap: Bitmap, scale: CGFloat) -> Int {
        let frame = node.details.frame
        var count = 0
        for y in Int(frame.minY * scale)..<Int(frame.maxY * scale) {
            for x in Int(frame.minX * scale)..<Int(frame.maxX * scale) {
                let p = bitmap.pixel(x: x, y: y)
                if p.r > 230 && p.g > 230 && p.b > 230 { count += 1 }
            }
        }
        return count
    }

    func testATenMegabyteDescriptionLoadsAndItsCardIsCutWithAnEllipsis() throws {
        // 10 MB through the cards file, as a user would write it.
        let long = String(repeating: "The jaguar swims well and hunts at night. ", count: 250_000)
        XCTAssertGreaterThan(long.utf8.count, 10_000_000)
        let json =
            #"{"cards": [{"name": "Jaguar", "image": "images/jaguar.webp", "credit": "c", "description": ""#
            + long + #""}]}"#
        let card = try XCTUnwrap(try CardsFile.parse(Array(json.utf8), file: "cards.json").first)
        XCTAssertEqual(card.description.utf8.count, long.utf8.count - 1, "loaded whole (trimmed)")
        // The card lays out at most `textLimit` characters of it (so it costs what a short one
        // does, not seconds of line breaking), and cuts them at its lines with "…".
        let shown = CardNode.shownText(card.description)
        XCTAssertEqual(shown.count, CardNode.textLimit + 1)
        XCTAssertTrue(shown.hasSuffix("…"))
        try MainActor.assumeIsolated {
            for scale: CGFloat in [1, 2] {
                let (node, bitmap) = try Self.drawn(card, scale: scale)
                XCTAssertTrue(node.details.isTruncated)
                XCTAssertEqual(node.details.lineCount, CardNode.descriptionLineLimit(scale: scale))
                XCTAssertLessThanOrEqual(node.details.frame.maxY, node.credit.frame.minY)
                XCTAssertGreaterThan(Self.textPixels(node, bitmap, scale: scale), 200, "the text is drawn")
            }
        }
    }

    func testTheTextLimitIsNeverSeenEvenInTheNarrowestLetters() throws {
        XCTAssertEqual(CardNode.shownText("short"), "short")
        XCTAssertEqual(
            CardNode.shownText(String(repeating: "é", count: CardNode.textLimit)).count, CardNode.textLimit,
            "at the limit: whole")
        XCTAssertEqual(
            CardNode.shownText(String(repeating: "e\u{301}", count: 3_000)).count, CardNode.textLimit + 1,
            "counted in characters, not scalars")
        // Lines of the narrowest letters hold more characters than any other text: still more
        // than the card's lines show, so the node's own "…" is what a reader sees.
        MainActor.assumeIsolated {
            for letter in [".", "i", "l", "'", "|", "ı"] {
                for scale: CGFloat in [1, 2] {
                    let text = String(repeating: letter, count: CardNode.textLimit) + " end"
                    let node = Self.laidOut(Card(name: "N", image: "i", description: text, credit: "c"), scale: scale)
                    XCTAssertTrue(node.details.isTruncated, "\(letter) at \(scale)x")
                }
            }
        }
    }

    func testRightToLeftAndEmojiCardsDraw() throws {
        // Lato has Latin glyphs only: Arabic, Hebrew and emoji are shaped (HarfBuzz, right to
        // left where they are) and drawn as Lato's missing-glyph box; no crash, no hang, and the
        // Latin words around them still drawn.
        let cards = [
            Card(name: "Jaguar 🐆", image: "i", description: "Der Jaguar 🐆 jagt nachts. 👩🏽‍🔬 sagt: «Ja!»", credit: "🐾 c"),
            Card(name: "اليغور", image: "i", description: "اليغور قط كبير يعيش في الغابات. Jaguar.", credit: "ج"),
            Card(name: "יגואר", image: "i", description: "היגואר הוא חתול גדול\u{200F}. Jaguar.", credit: "c"),
            Card(
                name: "e\u{301}\u{301}\u{301} ﷽", image: "i", description: String(repeating: "🏳️‍🌈👨‍👩‍👧‍👦 ", count: 500),
                credit: "\u{202E}reversed\u{202C}"),
        ]
        try MainActor.assumeIsolated {
            for card in cards {
                for scale: CGFloat in card == cards[0] ? [1, 2] : [1] {
                    let (node, bitmap) = try Self.drawn(card, scale: scale)
                    XCTAssertGreaterThanOrEqual(node.details.lineCount, 1, card.name)
                    XCTAssertGreaterThanOrEqual(node.title.lineCount, 1, card.name)
                    XCTAssertGreaterThan(Self.textPixels(node, bitmap, scale: scale), 20, "\(card.name): something is drawn")
                }
            }
        }
    }

    // MARK: Through the binary

    func testAnOddButUsableCardsFileIsShownWithItsWarnings() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-cards-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("images"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: scratch.appendingPathComponent("fonts"),
            withDestinationURL: Self.resources.appendingPathComponent("fonts"))
        try FileManager.default.copyItem(
            at: Self.resources.appendingPathComponent("images/jaguar.webp"),
            to: scratch.appendingPathComponent("images/jaguar.webp"))
        let long = String(repeating: "The jaguar swims well. ", count: 450_000)
        try """
        {
          "version": 1,
          "cards": [
            {"name": "Ghost", "image": "images/missing.webp", "description": "Not there.", "credit": "nobody"},
            {"name": "Jaguar", "image": "images/jaguar.webp", "description": "\(long)", "credit": "c", "rating": 5},
            {"name": "Jaguar", "image": "images/jaguar.webp", "description": "اليغور 🐆", "credit": "c"}
          ],
          "theme": "dark"
        }
        """.write(to: scratch.appendingPathComponent("cards.json"), atomically: true, encoding: .utf8)
        let output = scratch.appendingPathComponent("shot.png").path
        let outcome = try CommandLineTests.runBinary(
            [
                "screenshot", "--resources", scratch.path, "--output", output,
                "--size", "700x600",
            ] + CommandLineTests.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let file = scratch.appendingPathComponent("cards.json").path
        XCTAssertEqual(
            outcome.stderr.split(separator: "\n"),
            [
                "rainforest: \(file):5:\(long.count + 89): warning: cards[1]: unknown field \"rating\" (ignored)",
                "rainforest: \(file):6:14: warning: cards[2].name \"Jaguar\" is also cards[1]'s (both are shown)",
                "rainforest: \(file):8:3: warning: unknown field \"theme\" (ignored)",
            ])
        // The card of the missing photo is first, its photo area the error state with the reason.
        RainforestTestSupport.assertFirstCardShowsAnError(try ImageDecoder.decode(contentsOf: output))
    }
}
