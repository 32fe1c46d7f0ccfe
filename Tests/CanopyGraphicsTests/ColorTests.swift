import Foundation
import XCTest
@testable import CanopyGraphics

final class ColorTests: XCTestCase {
    private func assertRGBA(
        _ c: Color, _ r: CGFloat, _ g: CGFloat, _ b: CGFloat, _ a: CGFloat,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(c.red, r, accuracy: 1e-9, "red", file: file, line: line)
        XCTAssertEqual(c.green, g, accuracy: 1e-9, "green", file: file, line: line)
        XCTAssertEqual(c.blue, b, accuracy: 1e-9, "blue", file: file, line: line)
        XCTAssertEqual(c.alpha, a, accuracy: 1e-9, "alpha", file: file, line: line)
    }

    func testHueSaturationBrightnessAsUIKitHasThem() {
        assertRGBA(Color(hue: 0, saturation: 1, brightness: 1), 1, 0, 0, 1)  // red
        assertRGBA(Color(hue: 1.0 / 3, saturation: 1, brightness: 1), 0, 1, 0, 1)  // green
        assertRGBA(Color(hue: 2.0 / 3, saturation: 1, brightness: 1), 0, 0, 1, 1)  // blue
        assertRGBA(Color(hue: 1.0 / 6, saturation: 1, brightness: 1), 1, 1, 0, 1)  // yellow
        assertRGBA(Color(hue: 0.5, saturation: 0.5, brightness: 0.8, alpha: 0.25), 0.4, 0.8, 0.8, 0.25)  // v(1-s) = 0.4
        assertRGBA(Color(hue: 0.25, saturation: 0, brightness: 0.3), 0.3, 0.3, 0.3, 1)  // no saturation: grey
        assertRGBA(Color(hue: 1, saturation: 1, brightness: 1), 1, 0, 0, 1)  // hue wraps at 1
    }

    func testWhiteAlphaAndClamping() {
        assertRGBA(Color(white: 0.85, alpha: 0.2), 0.85, 0.85, 0.85, 0.2)
        assertRGBA(Color(red: 2, green: -1, blue: .nan, alpha: 1.5), 1, 0, 0, 1)
        assertRGBA(Color(rgb8: 30, 90, 50, alpha: 0.7), 30.0 / 255, 90.0 / 255, 50.0 / 255, 0.7)
    }

    func testEightBitForms() {
        let tint = Color(white: 0.5, alpha: 0.3)
        XCTAssertTrue(tint.rgba8 == (128, 128, 128, 77))  // 127.5 and 76.5 round up
        XCTAssertTrue(tint.premultipliedRGBA8 == (38, 38, 38, 77))  // 0.15 * 255 = 38.25
        XCTAssertTrue(Color.clear.premultipliedRGBA8 == (0, 0, 0, 0))
    }

    func testEdgeInsetsGrowARectWhenNegative() {
        let rect = CGRect(x: 10, y: 10, width: 24, height: 24)
        XCTAssertEqual(rect.inset(by: EdgeInsets(all: -16)), CGRect(x: -6, y: -6, width: 56, height: 56))
        XCTAssertEqual(
            rect.inset(by: EdgeInsets(top: 2, left: 3, bottom: 4, right: 5)), CGRect(x: 13, y: 12, width: 16, height: 18))
    }

    func testBitmapPNGRoundTripKeepsPremultipliedPixels() throws {
        try GraphicsLibrary.initialize()
        let bitmap = Bitmap(width: 3, height: 2, fill: Color(red: 1, green: 0.5, blue: 0, alpha: 0.5))
        let path = NSTemporaryDirectory() + "canopy-color-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try bitmap.writePNG(to: path)
        let back = try ImageDecoder.decode(contentsOf: path)
        XCTAssertEqual(back.width, 3)
        XCTAssertEqual(back.height, 2)
        let p = back.pixel(x: 2, y: 1), q = bitmap.pixel(x: 2, y: 1)
        XCTAssertEqual(Int(p.a), Int(q.a))
        XCTAssertEqual(Double(p.r), Double(q.r), accuracy: 1)
        XCTAssertEqual(Double(p.g), Double(q.g), accuracy: 1)
        XCTAssertEqual(Double(p.b), Double(q.b), accuracy: 1)
    }
}

final class BitmapScaleTests: XCTestCase {
    func testWithScaleKeepsThePixelsAndChangesThePointSize() {
        let bitmap = Bitmap(width: 64, height: 32, fill: .red)
        let doubled = bitmap.withScale(2)
        XCTAssertEqual(doubled.scale, 2)
        XCTAssertEqual(doubled.size, CGSize(width: 32, height: 16))
        XCTAssertEqual(doubled.pixels, bitmap.pixels)
        XCTAssertTrue(bitmap.withScale(1) === bitmap, "the same scale is the same bitmap")
    }
}
