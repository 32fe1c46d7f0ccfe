import Canopy
import CanopyGraphics
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

/// What the Rainforest tests share: the project's Resources, the graphics set up for drawing,
/// a card drawn now, and recognising an error card in a screenshot.
enum RainforestTestSupport {
    /// The project's Resources folder (cards.json, images/, fonts/).
    static let resources = TestResources.resources

    /// Starts the graphics library and registers the project's fonts (a test's setUp).
    static func prepareGraphics() throws {
        try GraphicsLibrary.initialize()
        TestFonts.registerShared()
    }

    /// The card of `entry`, its photo at `imagePath`, made as the collection makes it, laid out
    /// and displayed now at `scale` (the display scheduler installed on a loop of its own;
    /// callers uninstall it). `configure` runs before the layout.
    @MainActor
    static func displayedCard(
        _ entry: CardDeck.Entry, imagePath: String, scale: CGFloat,
        configure: (CardNode) -> Void = { _ in }
    ) -> CardNode {
        DisplayScheduler.shared.install(on: FrameLoop(), scale: scale)
        let card = CardNode(index: 0, entry: entry, imagePath: imagePath, scale: scale)
        configure(card)
        card.layoutAndApply(CardLayout.sizeRange)
        card.recursivelyEnsureDisplaySynchronously(true)
        return card
    }

    /// Checks that the left column's first card of a 700 pt wide screenshot (x 25, a 4:3 card,
    /// its photo area y 10 to 250) shows the image node's error state: grey 0.85 with the reason
    /// written on it in dark grey.
    static func assertFirstCardShowsAnError(_ shot: Bitmap, file: StaticString = #filePath, line: UInt = #line) {
        let photoRows = 20..<240
        let errorFill = photoRows.filter { y in
            (35..<335).contains { x in
                let p = shot.pixel(x: x, y: y)
                return p.r == 217 && p.g == 217 && p.b == 217
            }
        }.count
        XCTAssertGreaterThan(errorFill, 100, "the error state's grey", file: file, line: line)
        let inked = photoRows.filter { y in
            (35..<335).contains { x in
                let p = shot.pixel(x: x, y: y)
                return p.r < 120 && p.g < 120 && p.b < 120
            }
        }.count
        XCTAssertGreaterThan(inked, 8, "the reason, written on it", file: file, line: line)
    }
}
