import CanopyGraphics
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest

/// What the SDL tests share: pixel checks on captured frames (the headless application and the
/// fonts are CanopyTestSupport's).
enum SDLTestSupport {
    /// A pixel's colour as integers.
    static func rgb(_ frame: Bitmap, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let p = frame.pixel(x: x, y: y)
        return (Int(p.r), Int(p.g), Int(p.b))
    }

    /// Fails unless the pixel is within 3 levels of `expected` in each channel.
    static func assertColor(
        _ frame: Bitmap, _ x: Int, _ y: Int, _ expected: (Int, Int, Int),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let c = rgb(frame, x, y)
        let ok = abs(c.0 - expected.0) <= 3 && abs(c.1 - expected.1) <= 3 && abs(c.2 - expected.2) <= 3
        XCTAssertTrue(ok, "pixel (\(x), \(y)) is \(c), expected \(expected)", file: file, line: line)
    }
}
