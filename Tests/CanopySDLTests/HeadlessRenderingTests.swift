import Canopy
import CanopyGraphics
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest

/// A headless application renders at the pixel scale and paces at the rate it is given, so that a
/// HiDPI display and a high refresh rate can be measured on a machine that has neither.
final class HeadlessRenderingTests: XCTestCase {
    @MainActor
    private static func app(size: CGSize, pixelScale: CGFloat?, refreshRate: Double?) throws -> Application {
        try GraphicsLibrary.initialize()
        let options = Application.Options(
            title: "test", size: size, overlayFont: Font(family: TestFonts.family, size: 14), headless: true,
            fonts: TestFonts.registry, pixelScale: pixelScale, refreshRate: refreshRate)
        let app = try Application(options: options)
        app.showsFPS = false
        app.clearColor = Color(white: 1)
        return app
    }

    func testTwiceThePixelsPerPointKeepsTheSizeInPointsAndDrawsTwiceThePixels() throws {
        try MainActor.assumeIsolated {
            let app = try Self.app(size: CGSize(width: 120, height: 80), pixelScale: 2, refreshRate: nil)
            defer { app.close() }
            XCTAssertEqual(app.scale, 2)
            XCTAssertEqual(app.size, CGSize(width: 120, height: 80))
            let layer = Layer()
            layer.frame = CGRect(x: 10, y: 10, width: 20, height: 20)
            layer.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 1)
            app.rootLayer.addSublayer(layer)
            app.runTurn()
            let frame = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(frame.width, 240)
            XCTAssertEqual(frame.height, 160)
            // The square covers points 10...30: pixels 20...60.
            SDLTestSupport.assertColor(frame, 40, 40, (255, 0, 0))
            SDLTestSupport.assertColor(frame, 61, 40, (255, 255, 255))
            // A resize is in points, and keeps the scale.
            app.setSize(CGSize(width: 100, height: 50))
            XCTAssertEqual(app.size, CGSize(width: 100, height: 50))
            XCTAssertEqual(app.scale, 2)
        }
    }

    func testTheLoopPacesAtTheRefreshRateGiven() throws {
        try MainActor.assumeIsolated {
            let fast = try Self.app(size: CGSize(width: 40, height: 40), pixelScale: nil, refreshRate: 120)
            XCTAssertEqual(fast.runLoop.pacing.refreshRate, 120)
            XCTAssertEqual(fast.runLoop.statistics.budgetMs, 1000.0 / 120, accuracy: 1e-9, "a frame is late after 1.5 x 8.3 ms")
            XCTAssertEqual(fast.scale, 1)
            fast.close()
            let usual = try Self.app(size: CGSize(width: 40, height: 40), pixelScale: nil, refreshRate: nil)
            XCTAssertEqual(usual.runLoop.pacing.refreshRate, 60)
            usual.close()
        }
    }
}
