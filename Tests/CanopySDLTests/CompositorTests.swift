import Canopy
import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest
@testable import CanopySDL

/// The compositor on real SDL renderers, headless: premultiplied bitmaps must blend to the
/// same colour on the OpenGL renderer (custom blend mode) and the software one (which has none).
final class CompositorTests: XCTestCase {
    /// Draws a red bitmap at 50% coverage over white, at half layer opacity over a blue
    /// background, and returns the frame.
    @MainActor
    private static func render(driver: String) throws -> (Bitmap, Bool) {
        let app = try TestApplication.headless(width: 300, height: 200, renderDriver: driver)
        defer { app.close() }
        // Both layers' uploads in the captured turn, however slow the machine (with the default
        // 4 ms budget a slow first upload leaves the second layer blank in that frame).
        app.compositor.uploadBudget = HangGuard.seconds
        // Premultiplied red at alpha 0.5: (128, 0, 0, 128).
        let halfRed = Bitmap(width: 4, height: 4, fill: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        let a = Layer(frame: CGRect(x: 0, y: 0, width: 100, height: 100))
        a.contents = halfRed
        let b = Layer(frame: CGRect(x: 100, y: 0, width: 100, height: 100))
        b.contents = halfRed
        b.alpha = 0.5
        let c = Layer(frame: CGRect(x: 200, y: 0, width: 100, height: 100))
        c.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let clipped = Layer(frame: CGRect(x: 0, y: 120, width: 50, height: 50))
        clipped.clipsToBounds = true
        let inside = Layer(frame: CGRect(x: 0, y: 0, width: 300, height: 300))
        inside.backgroundColor = .black
        clipped.addSublayer(inside)
        let bordered = Layer(frame: CGRect(x: 100, y: 120, width: 60, height: 60))
        bordered.borderColor = Color(red: 0, green: 1, blue: 0)
        bordered.borderWidth = 4
        let under = Layer(frame: CGRect(x: 0, y: 0, width: 60, height: 60))
        under.backgroundColor = .black
        bordered.addSublayer(under)
        app.rootLayer.setSublayers([a, b, c, clipped, bordered])
        let frame = try XCTUnwrap(app.captureFrame())
        return (frame, app.compositor.usesPremultipliedBlending)
    }

    private static func assertPixel(
        _ bitmap: Bitmap, _ x: Int, _ y: Int, _ expected: (Int, Int, Int), tolerance: Int = 3,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let p = bitmap.pixel(x: x, y: y)
        let ok =
            abs(Int(p.r) - expected.0) <= tolerance && abs(Int(p.g) - expected.1) <= tolerance
            && abs(Int(p.b) - expected.2) <= tolerance
        XCTAssertTrue(ok, "pixel (\(x), \(y)) is \(p), expected \(expected)", file: file, line: line)
    }

    @MainActor
    private static func check(driver: String, expectCustomBlend: Bool) throws {
        let (frame, premultiplied) = try render(driver: driver)
        XCTAssertEqual(premultiplied, expectCustomBlend)
        assertPixel(frame, 50, 50, (255, 127, 127))  // half red over white
        assertPixel(frame, 150, 50, (255, 191, 191))  // the same at half opacity
        assertPixel(frame, 250, 50, (0, 0, 255))  // an opaque background
        assertPixel(frame, 25, 145, (0, 0, 0))  // inside the clip
        assertPixel(frame, 75, 145, (255, 255, 255))  // outside it
        assertPixel(frame, 101, 150, (0, 255, 0))  // a 4-point border, over the sublayer
        assertPixel(frame, 158, 150, (0, 255, 0))
        assertPixel(frame, 130, 122, (0, 255, 0))
        assertPixel(frame, 130, 150, (0, 0, 0))  // inside it, the sublayer
        assertPixel(frame, 130, 185, (255, 255, 255))  // outside, nothing
    }

    func testScratchTexturesAreCountedWhileUsedAndEvictedAfterTheEvictionAge() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 300, height: 200, renderDriver: "opengl")
            defer { app.close() }
            app.compositor.evictionAge = 3
            XCTAssertEqual(app.compositor.scratchTextureBytes, 0)
            // A rounded clip with something inside: an offscreen target and a corner mask.
            let rounded = Layer(frame: CGRect(x: 10, y: 10, width: 100, height: 80))
            rounded.cornerRadius = 12
            rounded.clipsToBounds = true
            let inside = Layer(frame: CGRect(x: 0, y: 0, width: 200, height: 200))
            inside.backgroundColor = .black
            rounded.addSublayer(inside)
            app.rootLayer.setSublayers([rounded])
            _ = try XCTUnwrap(app.captureFrame())
            let used = app.compositor.scratchTextureBytes
            // The target covers at least the layer's 100 x 80 points (sizes round up to 64 pixels).
            XCTAssertGreaterThanOrEqual(used, 100 * 80 * 4)
            XCTAssertEqual(app.compositor.textureBytes, 0, "scratch textures are not layer textures")
            // Still used: kept however many frames pass.
            for _ in 0..<5 { _ = try XCTUnwrap(app.captureFrame()) }
            XCTAssertEqual(app.compositor.scratchTextureBytes, used)
            // Unused for more than the eviction age: released.
            app.rootLayer.setSublayers([])
            for _ in 0..<5 { _ = try XCTUnwrap(app.captureFrame()) }
            XCTAssertEqual(app.compositor.scratchTextureBytes, 0)
        }
    }

    func testOpenGLBlendsPremultipliedBitmapsRight() throws {
        try MainActor.assumeIsolated { try Self.check(driver: "opengl", expectCustomBlend: true) }
    }

    func testTheSoftwareRendererBlendsThemTheSame() throws {
        try MainActor.assumeIsolated { try Self.check(driver: "software", expectCustomBlend: false) }
    }

    // MARK: Drawing at the least cost

    /// A 40 x 30 point bitmap of stripes, opaque or not, as a layer at `frame`.
    private static func stripes(opaque: Bool, scale: CGFloat = 1) -> Bitmap {
        let context = GraphicsContext(
            pixelWidth: Int(40 * scale), pixelHeight: Int(30 * scale), scale: scale,
            fill: opaque ? Color(white: 0) : nil)
        for i in 0..<4 {
            context.fill(
                CGRect(x: CGFloat(i) * 10, y: 0, width: 5, height: 30),
                with: Color(red: 1, green: CGFloat(i) / 4, blue: 0, alpha: opaque ? 1 : 0.5))
        }
        return context.makeBitmap()
    }

    func testOpaqueContentsAreCopiedWithoutBlendingAndHideTheBackground() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100, renderDriver: "opengl")
            defer { app.close() }
            app.compositor.uploadBudget = HangGuard.seconds
            let opaque = Layer(frame: CGRect(x: 10, y: 10, width: 40, height: 30))
            opaque.contents = Self.stripes(opaque: true)
            opaque.backgroundColor = Color(red: 0, green: 0, blue: 1)
            let translucent = Layer(frame: CGRect(x: 100, y: 10, width: 40, height: 30))
            translucent.contents = Self.stripes(opaque: false)
            translucent.backgroundColor = Color(red: 0, green: 0, blue: 1)
            app.rootLayer.setSublayers([opaque, translucent])
            let frame = try XCTUnwrap(app.captureFrame())
            let counts = app.compositor.drawCounts
            XCTAssertEqual(counts.textures, 2)
            XCTAssertEqual(counts.opaqueTextures, 1, "only the opaque bitmap is copied without blending")
            XCTAssertEqual(counts.backgroundsHidden, 1, "its background is not drawn under it")
            XCTAssertEqual(counts.nearestTextures, 2, "both are drawn at their own size")
            // The same pixels as blending would give: the stripes, and black between them (the
            // opaque bitmap's own fill), not the background's blue.
            Self.assertPixel(frame, 12, 20, (255, 0, 0))
            Self.assertPixel(frame, 17, 20, (0, 0, 0))
            // The translucent one blends over its blue background.
            Self.assertPixel(frame, 102, 20, (128, 0, 127))
            Self.assertPixel(frame, 107, 20, (0, 0, 255))

            // Faded, the opaque bitmap blends and its background shows through.
            opaque.alpha = 0.5
            _ = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(app.compositor.drawCounts.opaqueTextures, 0)
            XCTAssertEqual(app.compositor.drawCounts.backgroundsHidden, 0)
        }
    }

    func testATextureStretchedIsSampledLinearlyAndOneAtItsSizeNearest() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100, renderDriver: "opengl")
            defer { app.close() }
            app.compositor.uploadBudget = HangGuard.seconds
            let stretched = Layer(frame: CGRect(x: 10, y: 10, width: 80, height: 60))
            stretched.contents = Self.stripes(opaque: true)
            // At a fractional position its edges still snap to whole pixels, at the bitmap's size.
            let shifted = Layer(frame: CGRect(x: 100.3, y: 10.6, width: 40, height: 30))
            shifted.contents = Self.stripes(opaque: true)
            app.rootLayer.setSublayers([stretched, shifted])
            _ = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(app.compositor.drawCounts.textures, 2)
            XCTAssertEqual(app.compositor.drawCounts.nearestTextures, 1)
        }
    }

    func testLayersOutsideTheClipDrawNothingOfTheirOwnButTheirSublayersDo() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100, renderDriver: "opengl")
            defer { app.close() }
            app.compositor.uploadBudget = HangGuard.seconds
            let clip = Layer(frame: CGRect(x: 0, y: 0, width: 200, height: 100))
            clip.clipsToBounds = true
            let below = Layer(frame: CGRect(x: 10, y: 150, width: 40, height: 30))
            below.contents = Self.stripes(opaque: true)
            below.backgroundColor = .black
            // Outside the window, but its sublayer reaches back in.
            let outside = Layer(frame: CGRect(x: 300, y: 0, width: 10, height: 10))
            outside.backgroundColor = .black
            let reaching = Layer(frame: CGRect(x: -250, y: 20, width: 40, height: 30))
            reaching.contents = Self.stripes(opaque: true)
            outside.addSublayer(reaching)
            clip.setSublayers([below, outside])
            app.rootLayer.setSublayers([clip])
            let frame = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(app.compositor.drawCounts.culledLayers, 2)
            XCTAssertEqual(app.compositor.drawCounts.textures, 1)
            Self.assertPixel(frame, 52, 30, (255, 0, 0))  // the sublayer at x 50
        }
    }
}
