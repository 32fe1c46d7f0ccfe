import Canopy
import CanopyGraphics
import Foundation
import XCTest
@testable import CanopySDL
import CanopyTestSupport

/// The range overlay drawn by a headless application over a white window.
final class RangeOverlayDrawingTests: XCTestCase {

    /// The example of RangeOverlayTests in a 480 x 750 window: the panel (350, 290, 120, 450), the
    /// map (356, 315, 108, 400) showing content 1,400..5,400 at 0.1, the viewport's outline around
    /// (360, 475, 100, 80). The collection fills the window, its viewport content 3,000..3,800.
    private static let snapshot = RangeOverlaySnapshot(
        contentSize: CGSize(width: 400, height: 10_000), viewport: CGRect(x: 0, y: 3000, width: 400, height: 800),
        displayRange: CGRect(x: 0, y: 2400, width: 400, height: 1800),
        preloadRange: CGRect(x: 0, y: 1600, width: 400, height: 3600),
        items: [
            .init(frame: CGRect(x: 20, y: 3000, width: 300, height: 200), state: .visible, isAllocated: true),
            // On screen (window y 300..500) but still in the display range: tinted orange.
            .init(frame: CGRect(x: 20, y: 3300, width: 300, height: 200), state: .display, isAllocated: true),
            // Below the viewport: on the map only (y 575..595).
            .init(frame: CGRect(x: 0, y: 4000, width: 400, height: 200), state: .display, isAllocated: true),
        ],
        viewportInWindow: CGRect(x: 0, y: 0, width: 480, height: 750), caption: "full · down · 1,420 pt/s")

    func testTheOverlayTintsOnScreenCellsAndDrawsThePanel() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 480, height: 750, renderDriver: "software", fonts: TestFonts.registry)
            defer { app.close() }
            var asked = 0
            app.rangeOverlaySource = {
                asked += 1; return Self.snapshot
            }

            var frame = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(asked, 0, "off: the source is not asked")
            SDLTestSupport.assertColor(frame, 100, 400, (255, 255, 255))
            SDLTestSupport.assertColor(frame, 352, 600, (255, 255, 255))

            app.showsRanges = true
            frame = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(asked, 1)
            // Orange at 0.35 over white on the display-state cell on screen; the visible one untinted.
            SDLTestSupport.assertColor(frame, 100, 400, (255, 219, 166))
            SDLTestSupport.assertColor(frame, 100, 100, (255, 255, 255))
            // The panel's padding, outside the map: black at 0.72 over white.
            SDLTestSupport.assertColor(frame, 352, 600, (71, 71, 71))
            // The viewport's left edge (x 359.25..360.75: pixels 359 and 360), white over the bands.
            SDLTestSupport.assertColor(frame, 359, 520, (255, 255, 255))
            SDLTestSupport.assertColor(frame, 360, 520, (255, 255, 255))
            // Just inside it, the display band over the preload band over the panel: darker.
            let band = SDLTestSupport.rgb(frame, 362, 520)
            XCTAssertTrue(band.0 < 200 && band.2 < 60 && band.0 > band.2, "band pixel \(band)")
            // The display item below the viewport on the map (y 575..595), inside its border: orange.
            let item = SDLTestSupport.rgb(frame, 410, 585)
            XCTAssertTrue(item.0 > 220 && (120...180).contains(item.1) && item.2 < 60, "item pixel \(item)")
            // The caption and the legend put light pixels in their lines.
            let caption = (356..<464).map { SDLTestSupport.rgb(frame, $0, 302) }.map { max($0.0, $0.1, $0.2) }.max() ?? 0
            XCTAssertGreaterThan(caption, 150, "no caption text")
            let legend = (356..<464).flatMap { x in (721..<734).map { SDLTestSupport.rgb(frame, x, $0) } }
            XCTAssertTrue(legend.contains { $0.0 > 150 && $0.1 > 100 && $0.2 < 80 }, "no orange or yellow legend text")

            // No snapshot: nothing drawn.
            app.rangeOverlaySource = { nil }
            frame = try XCTUnwrap(app.captureFrame())
            SDLTestSupport.assertColor(frame, 100, 400, (255, 255, 255))
            SDLTestSupport.assertColor(frame, 352, 600, (255, 255, 255))
        }
    }
}
