import CanopyGraphics
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest

/// What the SDL tests share: a headless application and pixel checks on captured frames (the
/// fonts are CanopyTestSupport's `TestFonts`).
enum SDLTestSupport {
    /// A headless application without the FPS overlay, drawing on white: what each frame shows is
    /// the test's layers alone. The caller closes it.
    @MainActor
    static func headlessApp(width: CGFloat, height: CGFloat, renderDriver: String? = nil,
                            fonts: FontRegistry = .shared) throws -> Application {
        let options = Application.Options(title: "test", size: CGSize(width: width, height: height),
                                          overlayFont: Font(family: "Lato", size: 14), headless: true,
                                          fonts: fonts, renderDriver: renderDriver)
        let app = try Application(options: options)
        app.showsFPS = false
        app.clearColor = Color(white: 1)
        return app
    }

    /// A pixel's colour as integers.
    static func rgb(_ frame: Bitmap, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let p = frame.pixel(x: x, y: y)
        return (Int(p.r), Int(p.g), Int(p.b))
    }

    /// Fails unless the pixel is within 3 levels of `expected` in each channel.
    static func assertColor(_ frame: Bitmap, _ x: Int, _ y: Int, _ expected: (Int, Int, Int),
                            file: StaticString = #filePath, line: UInt = #line) {
        let c = rgb(frame, x, y)
        let ok = abs(c.0 - expected.0) <= 3 && abs(c.1 - expected.1) <= 3 && abs(c.2 - expected.2) <= 3
        XCTAssertTrue(ok, "pixel (\(x), \(y)) is \(c), expected \(expected)", file: file, line: line)
    }
}
