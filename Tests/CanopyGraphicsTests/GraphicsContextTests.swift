import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

/// Tests of `GraphicsContext`, `ContentMode` and `Gradient`.
///
/// Every expected value below is worked out by hand in the comments next to it. Conventions used
/// throughout: pixel (i, j) covers device [i, i + 1) x [j, j + 1); a pixel's value is its area
/// coverage times the colour, source-over onto what is there, premultiplied, rounded to the
/// nearest byte (x.5 rounds up). Pixels are written [r, g, b, a].
final class GraphicsContextTests: XCTestCase {
    // MARK: - Helpers

    private static let clear: [Int] = [0, 0, 0, 0]
    private static let red: [Int] = [255, 0, 0, 255]
    private static let green: [Int] = [0, 255, 0, 255]
    private static let blue: [Int] = [0, 0, 255, 255]
    private static let yellow: [Int] = [255, 255, 0, 255]

    private func pixel(_ b: Bitmap, _ x: Int, _ y: Int) -> [Int] {
        let p = b.pixel(x: x, y: y)
        return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
    }

    private func assertPixel(
        _ b: Bitmap, _ x: Int, _ y: Int, _ expected: [Int], tolerance: Int = 0,
        _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        let actual = pixel(b, x, y)
        let ok = zip(actual, expected).allSatisfy { abs($0 - $1) <= tolerance }
        XCTAssert(
            ok, "pixel (\(x), \(y)) is \(actual), expected \(expected) ±\(tolerance) \(message)",
            file: file, line: line)
    }

    /// Checks every pixel of `b` against `expected(x, y)`; reports the first few mismatches.
    private func assertAllPixels(
        _ b: Bitmap, tolerance: Int = 0, file: StaticString = #filePath, line: UInt = #line,
        _ expected: (Int, Int) -> [Int]
    ) {
        var failures = 0
        for y in 0..<b.height {
            for x in 0..<b.width {
                let e = expected(x, y), a = pixel(b, x, y)
                if !zip(a, e).allSatisfy({ abs($0 - $1) <= tolerance }) {
                    failures += 1
                    if failures <= 5 {
                        XCTFail("pixel (\(x), \(y)) is \(a), expected \(e)", file: file, line: line)
                    }
                }
            }
        }
        if failures > 5 { XCTFail("\(failures) pixels differ in all", file: file, line: line) }
    }

    /// A `width` x `height` pixel bitmap of four opaque quadrants: top-left red, top-right green,
    /// bottom-left blue, bottom-right yellow (width and height even).
    private func quadrants(width: Int, height: Int, scale: CGFloat = 1) -> Bitmap {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = quadrantColor(x, y, width, height)
                for k in 0..<4 { bytes[(y * width + x) * 4 + k] = UInt8(c[k]) }
            }
        }
        return Bitmap(width: width, height: height, scale: scale, pixels: bytes)
    }

    /// The colour of quadrant image pixel (x, y) of a `w` x `h` image.
    private func quadrantColor(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [Int] {
        switch (x < w / 2, y < h / 2) {
        case (true, true): return Self.red
        case (false, true): return Self.green
        case (true, false): return Self.blue
        case (false, false): return Self.yellow
        }
    }

    /// Checks that `b` shows the `width` x `height` quadrant image pixel for pixel with its
    /// top-left at device (ox, oy), only where it overlaps `visible` (device pixels; everywhere by
    /// default), and nothing elsewhere.
    private func assertShowsQuadrants(
        _ b: Bitmap, at ox: Int, _ oy: Int, width: Int = 8, height: Int = 4,
        visible: (x: Range<Int>, y: Range<Int>)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertAllPixels(b, file: file, line: line) { x, y in
            let (u, v) = (x - ox, y - oy)
            guard (0..<width).contains(u), (0..<height).contains(v),
                visible.map({ $0.x.contains(x) && $0.y.contains(y) }) ?? true
            else { return Self.clear }
            return self.quadrantColor(u, v, width, height)
        }
    }

    // MARK: - Size

    func testSizeAndPixelCount() {
        let c = GraphicsContext(size: CGSize(width: 10.5, height: 3), scale: 2)
        // 10.5 * 2 = 21 px, 3 * 2 = 6 px; back in points 21 / 2 = 10.5.
        XCTAssertEqual(c.pixelWidth, 21)
        XCTAssertEqual(c.pixelHeight, 6)
        XCTAssertEqual(c.size, CGSize(width: 10.5, height: 3))
        // ceil: 10.2 pt at 1x needs 11 px.
        let d = GraphicsContext(size: CGSize(width: 10.2, height: 1))
        XCTAssertEqual(d.pixelWidth, 11)
        let b = c.makeBitmap()
        XCTAssertEqual(b.width, 21)
        XCTAssertEqual(b.scale, 2)
    }

    func testInitialFill() {
        // White at alpha 0.5 premultiplied: 127.5 → 128 in every channel.
        let b = GraphicsContext(pixelWidth: 2, pixelHeight: 2, fill: Color(white: 1, alpha: 0.5)).makeBitmap()
        assertAllPixels(b) { _, _ in [128, 128, 128, 128] }
        let empty = GraphicsContext(pixelWidth: 2, pixelHeight: 2).makeBitmap()
        assertAllPixels(empty) { _, _ in Self.clear }
    }

    // MARK: - Fills with fractional edges

    func testFillWithHalfPixelEdgesAt1x() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 2)
        // x 0.5 ... 1.5, y 0 ... 1: pixels (0, 0) and (1, 0) are each half covered:
        // 255 * 0.5 = 127.5 → 128 in red and alpha. Everything else untouched.
        c.fill(CGRect(x: 0.5, y: 0, width: 1, height: 1), with: .red)
        let b = c.makeBitmap()
        assertAllPixels(b) { x, y in (y == 0 && x < 2) ? [128, 0, 0, 128] : Self.clear }
    }

    func testFillWithQuarterPixelEdgesAt1x() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 3)
        // x 0.25 ... 2.75, y 0.5 ... 2: pixel columns 0 and 2 are 0.75 covered, column 1 fully;
        // row 0 is half covered, row 1 fully, row 2 not at all.
        // (0,0): 0.75 * 0.5 = 0.375 → 255 * 0.375 = 95.625 → 96
        // (1,0): 0.5 → 127.5 → 128;  (0,1): 0.75 → 191.25 → 191;  (1,1): 255.
        c.fill(CGRect(x: 0.25, y: 0.5, width: 2.5, height: 1.5), with: .blue)
        let b = c.makeBitmap()
        assertAllPixels(b) { x, y in
            let cx: [Double] = [0.75, 1, 0.75, 0]
            let cy: [Double] = [0.5, 1, 0]
            let k = cx[x] * cy[y]
            let v: Int
            switch k {
            case 0: v = 0
            case 0.375: v = 96
            case 0.5: v = 128
            case 0.75: v = 191
            default: v = 255
            }
            return [0, 0, v, v]
        }
    }

    func testFillWithHalfPixelEdgesAt2x() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 2, scale: 2)
        // At 2x, x 0.25 ... 0.75 pt is device 0.5 ... 1.5 px, y 0 ... 0.5 pt is device row 0:
        // pixels (0, 0) and (1, 0) half covered → 128; the rest untouched.
        c.fill(CGRect(x: 0.25, y: 0, width: 0.5, height: 0.5), with: .red)
        let b = c.makeBitmap()
        assertAllPixels(b) { x, y in (y == 0 && x < 2) ? [128, 0, 0, 128] : Self.clear }
        // A whole point at 2x is 2x2 pixels: (1, 0.5, 1, 0.5) pt → device x 2...4, y 1...2.
        let d = GraphicsContext(pixelWidth: 5, pixelHeight: 3, scale: 2)
        d.fill(CGRect(x: 1, y: 0.5, width: 1, height: 0.5), with: .green)
        assertAllPixels(d.makeBitmap()) { x, y in (y == 1 && (x == 2 || x == 3)) ? Self.green : Self.clear }
    }

    func testSourceOverOnPremultipliedValues() {
        // White at alpha 0.5 is premultiplied (127.5, 127.5, 127.5, 127.5). Over opaque red:
        // out = src + dst * (1 - 0.5) → r 127.5 + 127.5 = 255, g = b = 127.5 → 128, a 127.5 + 127.5 = 255.
        let c = GraphicsContext(pixelWidth: 2, pixelHeight: 1, fill: .red)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: Color(white: 1, alpha: 0.5))
        // Half a pixel of it: k = 0.5, src * k = 63.75, dst * (1 - 0.25) = 191.25 for r and a:
        // r 255, g = b = 63.75 → 64, a 255.
        c.fill(CGRect(x: 1, y: 0, width: 0.5, height: 1), with: Color(white: 1, alpha: 0.5))
        let b = c.makeBitmap()
        assertPixel(b, 0, 0, [255, 128, 128, 255])
        assertPixel(b, 1, 0, [255, 64, 64, 255])

        // Blue at 0.5 over transparent: (0, 0, 127.5, 127.5) → (0, 0, 128, 128); then blue at 0.5
        // again over the stored 128: 127.5 + 128 * 0.5 = 191.5 → 192 in b and a.
        let t = GraphicsContext(pixelWidth: 1, pixelHeight: 1)
        t.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: Color.blue.withAlpha(0.5))
        assertPixel(t.makeBitmap(), 0, 0, [0, 0, 128, 128])
        t.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: Color.blue.withAlpha(0.5))
        assertPixel(t.makeBitmap(), 0, 0, [0, 0, 192, 192])

        // A fully transparent colour changes nothing.
        let u = GraphicsContext(pixelWidth: 1, pixelHeight: 1, fill: .green)
        u.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: .clear)
        assertPixel(u.makeBitmap(), 0, 0, Self.green)
    }

    func testAlphaAndNestedSaveRestore() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 1)
        XCTAssertEqual(c.alpha, 1)
        c.saveState()
        c.alpha = 0.5
        c.saveState()
        c.alpha = 0.25  // absolute, as CGContextSetAlpha
        // 255 * 0.25 = 63.75 → 64.
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: .red)
        c.restoreState()
        XCTAssertEqual(c.alpha, 0.5)
        // 255 * 0.5 = 127.5 → 128.
        c.fill(CGRect(x: 1, y: 0, width: 1, height: 1), with: .red)
        c.restoreState()
        XCTAssertEqual(c.alpha, 1)
        c.restoreState()  // nothing saved: no-op
        XCTAssertEqual(c.alpha, 1)
        c.fill(CGRect(x: 2, y: 0, width: 1, height: 1), with: .red)
        // Alpha multiplies coverage: half a pixel at alpha 0.5 → 255 * 0.25 → 64.
        c.alpha = 0.5
        c.fill(CGRect(x: 3, y: 0, width: 0.5, height: 1), with: .red)
        let b = c.makeBitmap()
        assertPixel(b, 0, 0, [64, 0, 0, 64])
        assertPixel(b, 1, 0, [128, 0, 0, 128])
        assertPixel(b, 2, 0, Self.red)
        assertPixel(b, 3, 0, [64, 0, 0, 64])
        // Out-of-range alpha is clamped.
        c.alpha = 3
        XCTAssertEqual(c.alpha, 1)
        c.alpha = -1
        XCTAssertEqual(c.alpha, 0)
    }

    func testRestoreWithoutSaveKeepsTheCurrentState() {
        let c = GraphicsContext(pixelWidth: 6, pixelHeight: 1)
        c.translateBy(x: 3, y: 0)
        c.alpha = 0.5
        c.restoreState()  // no saved state: nothing changes
        // The unit rect lands at x 3 with alpha 0.5 → 128.
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: .red)
        let b = c.makeBitmap()
        assertAllPixels(b) { x, _ in x == 3 ? [128, 0, 0, 128] : Self.clear }
    }

    func testWithSavedStateRestoresTransformClipAndAlpha() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 1)
        let value = c.withSavedState { () -> Int in
            c.translateBy(x: 2, y: 0)
            c.clip(to: CGRect(x: 0, y: 0, width: 1, height: 1))
            c.alpha = 0.5
            return 7
        }
        XCTAssertEqual(value, 7)
        XCTAssertEqual(c.alpha, 1)
        // Untranslated, unclipped, opaque again: the whole row is red.
        c.fill(CGRect(x: 0, y: 0, width: 4, height: 1), with: .red)
        assertAllPixels(c.makeBitmap()) { _, _ in Self.red }
    }

    func testTranslateAndScale() {
        let c = GraphicsContext(pixelWidth: 8, pixelHeight: 6)
        c.translateBy(x: 2, y: 1)
        c.scaleBy(x: 2, y: 2)
        // Device = user * 2 + (2, 1): the unit rect at (0, 0) covers device x 2...4, y 1...3.
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: .red)
        // A translation after the scale is in scaled units: +1 user = +2 device.
        c.translateBy(x: 1, y: 1)
        // Now device = user * 2 + (4, 3): (0.5, 0, 0.5, 0.5) → x 5...6, y 3...4.
        c.fill(CGRect(x: 0.5, y: 0, width: 0.5, height: 0.5), with: .blue)
        let b = c.makeBitmap()
        assertAllPixels(b) { x, y in
            if (2...3).contains(x) && (1...2).contains(y) { return Self.red }
            if x == 5 && y == 3 { return Self.blue }
            return Self.clear
        }
    }

    func testTranslateAtContextScale2() {
        let c = GraphicsContext(pixelWidth: 6, pixelHeight: 2, scale: 2)
        // translate 1 pt = 2 px; scale 0.5 then makes 1 user unit = 1 px.
        c.translateBy(x: 1, y: 0)
        c.scaleBy(x: 0.5, y: 0.5)
        // (1, 0, 1, 1) → device x 2 + 1 = 3...4, y 0...1.
        c.fill(CGRect(x: 1, y: 0, width: 1, height: 1), with: .green)
        assertAllPixels(c.makeBitmap()) { x, y in (x == 3 && y == 0) ? Self.green : Self.clear }
    }

    func testFillRoundedRect() {
        let c = GraphicsContext(pixelWidth: 12, pixelHeight: 12)
        c.fillRoundedRect(CGRect(x: 1, y: 1, width: 10, height: 10), cornerRadius: 4, with: .red)
        let b = c.makeBitmap()
        // Corner circles centred (5, 5), (7, 5), ... radius 4.
        // Pixel (1, 1) spans [1,2]²; its nearest point to (5, 5) is (2, 2), √18 ≈ 4.24 > 4: empty.
        assertPixel(b, 1, 1, Self.clear)
        // Pixel (2, 2): nearest (3, 3) at √8 ≈ 2.83 < 4, farthest (2, 2) at √18 > 4: partial.
        let corner = pixel(b, 2, 2)
        XCTAssert(corner[3] > 0 && corner[3] < 255, "corner pixel \(corner) should be partly covered")
        // The four corners are mirror images of each other.
        assertPixel(b, 9, 2, corner, tolerance: 1)
        assertPixel(b, 2, 9, corner, tolerance: 1)
        assertPixel(b, 9, 9, corner, tolerance: 1)
        // Straight edges and the inside are fully covered; outside the rect untouched.
        assertPixel(b, 6, 1, Self.red)
        assertPixel(b, 1, 6, Self.red)
        assertPixel(b, 6, 6, Self.red)
        assertPixel(b, 3, 3, Self.red)  // [3,4]²: farthest (3, 3) at √8 < 4
        assertPixel(b, 0, 6, Self.clear)
        assertPixel(b, 11, 6, Self.clear)
        // A zero radius is a plain rect: the corner pixel is full.
        let d = GraphicsContext(pixelWidth: 4, pixelHeight: 4)
        d.fillRoundedRect(CGRect(x: 1, y: 1, width: 2, height: 2), cornerRadius: 0, with: .red)
        assertAllPixels(d.makeBitmap()) { x, y in (1...2).contains(x) && (1...2).contains(y) ? Self.red : Self.clear }
    }

    // MARK: - Clipping

    func testClipToRect() {
        let c = GraphicsContext(pixelWidth: 5, pixelHeight: 3)
        c.saveState()
        // Clip x 0.5 ... 3.5, y 1 ... 2: row 1 only; pixel 0 and 3 half covered, 1 and 2 fully.
        c.clip(to: CGRect(x: 0.5, y: 1, width: 3, height: 1))
        c.fill(CGRect(x: 0, y: 0, width: 5, height: 3), with: .red)
        var b = c.makeBitmap()
        assertAllPixels(b) { x, y in
            guard y == 1 else { return Self.clear }
            switch x {
            case 0, 3: return [128, 0, 0, 128]
            case 1, 2: return Self.red
            default: return Self.clear
            }
        }
        // Clips intersect: x 2 ... 5 leaves x 2 ... 3.5 → pixel 2 full, 3 half (over the 128 already
        // there: 127.5 + 128 * (1 - 0.5) = 191.5 → 192 in red and alpha).
        c.clip(to: CGRect(x: 2, y: 0, width: 3, height: 3))
        c.fill(CGRect(x: 0, y: 0, width: 5, height: 3), with: .red)
        b = c.makeBitmap()
        assertPixel(b, 3, 1, [192, 0, 0, 192])
        assertPixel(b, 0, 1, [128, 0, 0, 128])
        assertPixel(b, 4, 1, Self.clear)
        c.restoreState()
        // Clip gone: the whole context fills.
        c.fill(CGRect(x: 0, y: 0, width: 5, height: 3), with: .blue)
        assertAllPixels(c.makeBitmap()) { _, _ in Self.blue }
    }

    func testClipToRectUnderTransformAndAt2x() {
        let c = GraphicsContext(pixelWidth: 6, pixelHeight: 2, scale: 2)
        c.translateBy(x: 0.5, y: 0)
        // Clip (0, 0, 1, 1) pt translated by 0.5 pt → device x 1...3, y 0...2.
        c.clip(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        c.fill(CGRect(x: -10, y: -10, width: 100, height: 100), with: .green)
        assertAllPixels(c.makeBitmap()) { x, _ in (1...2).contains(x) ? Self.green : Self.clear }
    }

    func testClipToRoundedRect() {
        let c = GraphicsContext(pixelWidth: 20, pixelHeight: 20)
        c.saveState()
        // Rounded rect x, y 2 ... 18, radius 4: corner circles centred (6, 6), (14, 6), (6, 14), (14, 14).
        c.clip(toRoundedRect: CGRect(x: 2, y: 2, width: 16, height: 16), cornerRadius: 4)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 20), with: .red)
        c.restoreState()
        let b = c.makeBitmap()
        // Outside the rect: untouched.
        for (x, y) in [(0, 0), (1, 10), (18, 10), (10, 1), (10, 18), (19, 19)] {
            assertPixel(b, x, y, Self.clear)
        }
        // Pixel (2, 2) = [2,3]²: nearest point to (6, 6) is (3, 3) at √18 ≈ 4.24 > 4 → outside the corner.
        assertPixel(b, 2, 2, Self.clear)
        // Pixel (3, 3) = [3,4]²: nearest (4, 4) at √8 ≈ 2.83 < 4, farthest (3, 3) at 4.24 > 4 → partial.
        let corner = pixel(b, 3, 3)
        XCTAssert(corner[3] > 0 && corner[3] < 255, "corner pixel \(corner) should be partly covered")
        XCTAssertEqual(corner[0], corner[3], "premultiplied red keeps r == a")
        assertPixel(b, 16, 3, corner, tolerance: 1)
        assertPixel(b, 3, 16, corner, tolerance: 1)
        assertPixel(b, 16, 16, corner, tolerance: 1)
        // Pixel (4, 4) = [4,5]²: farthest (4, 4) at √8 < 4 → fully inside.
        assertPixel(b, 4, 4, Self.red)
        // Straight edges and the middle: full.
        for (x, y) in [(10, 2), (2, 10), (17, 10), (10, 17), (10, 10)] {
            assertPixel(b, x, y, Self.red)
        }
        // After restoreState the clip is gone.
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: .blue)
        assertPixel(c.makeBitmap(), 0, 0, Self.blue)
    }

    func testRoundedClipCombinesWithRectClipAndAlpha() {
        let c = GraphicsContext(pixelWidth: 20, pixelHeight: 20)
        c.clip(toRoundedRect: CGRect(x: 2, y: 2, width: 16, height: 16), cornerRadius: 4)
        // A rect clip on top keeps only the left half x < 10.
        c.clip(to: CGRect(x: 0, y: 0, width: 10, height: 20))
        c.alpha = 0.5
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 20), with: .red)
        let b = c.makeBitmap()
        assertPixel(b, 5, 10, [128, 0, 0, 128])  // inside both, alpha 0.5: 127.5 → 128
        assertPixel(b, 12, 10, Self.clear)  // outside the rect clip
        assertPixel(b, 1, 10, Self.clear)  // outside the rounded clip
        assertPixel(b, 2, 2, Self.clear)  // outside the rounded corner
    }

    func testNestedRoundedClipsMultiply() {
        let c = GraphicsContext(pixelWidth: 20, pixelHeight: 20)
        c.clip(toRoundedRect: CGRect(x: 0, y: 0, width: 10, height: 20), cornerRadius: 2)
        c.clip(toRoundedRect: CGRect(x: 5, y: 0, width: 15, height: 20), cornerRadius: 2)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 20), with: .green)
        let b = c.makeBitmap()
        // Only the overlap x 5 ... 10 (away from the corners) is drawn.
        assertPixel(b, 7, 10, Self.green)
        assertPixel(b, 3, 10, Self.clear)
        assertPixel(b, 12, 10, Self.clear)

        // Coverage multiplies where both clips overlap. Outer clip (0, 0, 20, 20) radius 8 (corner
        // centre (8, 8)); inner clip (1, 1, 18, 18) radius 1 (corner centre (2, 2)).
        func draw(twoClips: Bool) -> Bitmap {
            let c = GraphicsContext(pixelWidth: 20, pixelHeight: 20)
            c.clip(toRoundedRect: CGRect(x: 0, y: 0, width: 20, height: 20), cornerRadius: 8)
            if twoClips { c.clip(toRoundedRect: CGRect(x: 1, y: 1, width: 18, height: 18), cornerRadius: 1) }
            c.fill(CGRect(x: 0, y: 0, width: 20, height: 20), with: .green)
            return c.makeBitmap()
        }
        let one = draw(twoClips: false), two = draw(twoClips: true)
        // Pixel (1, 1): the inner clip covers part of it (its corner arc runs through it), but it is
        // outside the outer clip (nearest point (2, 2) is √72 ≈ 8.49 > 8 from (8, 8)): 0 × partial = 0.
        assertPixel(two, 1, 1, Self.clear)
        // Pixel (2, 2): the inner clip covers it fully (it lies beyond the inner corner's centre);
        // the outer clip partly (nearest (3, 3) at √50 ≈ 7.07 < 8, farthest (2, 2) at 8.49 > 8):
        // the product is the outer clip's coverage alone.
        let p22 = pixel(one, 2, 2)
        XCTAssert(p22[3] > 0 && p22[3] < 255, "pixel (2, 2) \(p22) should be partly covered")
        assertPixel(two, 2, 2, p22, tolerance: 1)
        assertPixel(two, 10, 10, Self.green)
        assertPixel(two, 0, 10, Self.clear)
    }

    // MARK: - Strokes

    func testStrokeOfInsetRectFillsTheOuterPixelRingAt1x() {
        let c = GraphicsContext(pixelWidth: 6, pixelHeight: 5)
        // A 1-pt line centred on the edges of (0.5, 0.5, 5, 4) covers x 0...1 and 5...6, y 0...1 and
        // 4...5 inside the outer rect (0, 0, 6, 5): exactly the outer ring of pixels, corners included
        // (Core Graphics' default miter join makes square corners).
        c.stroke(CGRect(x: 0, y: 0, width: 6, height: 5).insetBy(dx: 0.5, dy: 0.5), with: .red, lineWidth: 1)
        assertAllPixels(c.makeBitmap()) { x, y in
            (x == 0 || x == 5 || y == 0 || y == 4) ? Self.red : Self.clear
        }
    }

    func testStrokeOfInsetRectAt2x() {
        let c = GraphicsContext(pixelWidth: 8, pixelHeight: 6, scale: 2)
        // At 2x the line is 2 px wide, centred on device x 1 and 7, y 1 and 5: it covers device
        // x 0...2 and 6...8, y 0...2 and 4...6 inside (0, 0, 8, 6): a 2-pixel ring, square corners.
        c.stroke(CGRect(x: 0, y: 0, width: 4, height: 3).insetBy(dx: 0.5, dy: 0.5), with: .blue, lineWidth: 1)
        assertAllPixels(c.makeBitmap()) { x, y in
            (x < 2 || x >= 6 || y < 2 || y >= 4) ? Self.blue : Self.clear
        }
        // A 0.5 pt line on the inset-by-0.25 rect at 2x is the 1-pixel outer ring.
        let d = GraphicsContext(pixelWidth: 8, pixelHeight: 6, scale: 2)
        d.stroke(CGRect(x: 0, y: 0, width: 4, height: 3).insetBy(dx: 0.25, dy: 0.25), with: .blue, lineWidth: 0.5)
        assertAllPixels(d.makeBitmap()) { x, y in
            (x == 0 || x == 7 || y == 0 || y == 5) ? Self.blue : Self.clear
        }
    }

    func testStrokeOnPixelEdgesStraddlesTwoPixels() {
        let c = GraphicsContext(pixelWidth: 8, pixelHeight: 8)
        // Edges of (1, 1, 5, 5) at 1x; the 1-pt line covers x 0.5...1.5 etc.: pixels 0 and 1 of
        // each side half covered (127.5 → 128). At the outer corner pixel (0, 0): x and y in
        // [0.5, 1] → 0.25 covered → 63.75 → 64. At the inner corner pixel (1, 1): the line covers
        // [1,2]² minus the hole [1.5, 2]² → 1 - 0.25 = 0.75 → 191.25 → 191.
        c.stroke(CGRect(x: 1, y: 1, width: 5, height: 5), with: .red, lineWidth: 1)
        let b = c.makeBitmap()
        assertPixel(b, 0, 3, [128, 0, 0, 128])
        assertPixel(b, 1, 3, [128, 0, 0, 128])
        assertPixel(b, 2, 3, Self.clear)
        assertPixel(b, 3, 0, [128, 0, 0, 128])
        assertPixel(b, 3, 6, [128, 0, 0, 128])
        assertPixel(b, 0, 0, [64, 0, 0, 64])
        assertPixel(b, 1, 1, [191, 0, 0, 191])
        assertPixel(b, 6, 6, [64, 0, 0, 64])  // x, y in [6, 6.5] → 0.25
        assertPixel(b, 5, 5, [191, 0, 0, 191])
        assertPixel(b, 7, 3, Self.clear)
        assertPixel(b, 3, 3, Self.clear)
    }

    func testStrokeRoundedRect() {
        let c = GraphicsContext(pixelWidth: 20, pixelHeight: 20)
        // Path: (0.5, 0.5, 19, 19) radius 5. The 1-pt line's outer edge is (0, 0, 20, 20) with
        // radius 5.5 (corner centre (5.5, 5.5)), its inner edge (1, 1, 18, 18) with radius 4.5
        // (same centre).
        c.strokeRoundedRect(CGRect(x: 0.5, y: 0.5, width: 19, height: 19), cornerRadius: 5, with: .red, lineWidth: 1)
        let b = c.makeBitmap()
        // Straight parts: the outer pixel ring, fully.
        assertPixel(b, 10, 0, Self.red)
        assertPixel(b, 0, 10, Self.red)
        assertPixel(b, 19, 10, Self.red)
        assertPixel(b, 10, 19, Self.red)
        // Just inside the straight parts: untouched.
        assertPixel(b, 10, 1, Self.clear)
        assertPixel(b, 1, 10, Self.clear)
        // Corner pixel (0, 0): its nearest point (1, 1) is √40.5 ≈ 6.36 > 5.5 from the centre: outside.
        assertPixel(b, 0, 0, Self.clear)
        // Pixel (1, 1): nearest (2, 2) at √24.5 ≈ 4.95 < 5.5 (inside the outer edge) and > 4.5
        // (outside the inner edge); farthest (1, 1) at 6.36 → partly covered.
        let p11 = pixel(b, 1, 1)
        XCTAssert(p11[3] > 0 && p11[3] < 255, "pixel (1,1) \(p11) should be partly covered")
        // Pixel (2, 2): all of it within 5.5 of the centre (farthest (2, 2) at 4.95); nearest
        // (3, 3) at √12.5 ≈ 3.54 < 4.5 → the inner edge crosses it: partly covered.
        let p22 = pixel(b, 2, 2)
        XCTAssert(p22[3] > 0 && p22[3] < 255, "pixel (2,2) \(p22) should be partly covered")
        // Pixel (4, 4): farthest (4, 4) at √4.5 ≈ 2.12 < 4.5 → inside the hole: untouched.
        assertPixel(b, 4, 4, Self.clear)
        assertPixel(b, 10, 10, Self.clear)
        // Symmetry of the four corners.
        assertPixel(b, 18, 1, p11, tolerance: 1)
        assertPixel(b, 1, 18, p11, tolerance: 1)
        assertPixel(b, 18, 18, p11, tolerance: 1)
    }

    func testStrokeWiderThanTheRectFillsIt() {
        let c = GraphicsContext(pixelWidth: 6, pixelHeight: 6)
        // (2, 2, 2, 2) with a 2-pt line: outer (1, 1, 4, 4), no hole left (inner would be empty).
        c.stroke(CGRect(x: 2, y: 2, width: 2, height: 2), with: .green, lineWidth: 2)
        assertAllPixels(c.makeBitmap()) { x, y in (1...4).contains(x) && (1...4).contains(y) ? Self.green : Self.clear }
    }

    // MARK: - Content modes

    /// Draws the 8x4 quadrant image (scale 1) into (4, 4, 16, 16) of a 24x24 context at 1x.
    private func drawQuadrants(_ mode: ContentMode, rect: CGRect = CGRect(x: 4, y: 4, width: 16, height: 16)) -> Bitmap {
        let c = GraphicsContext(pixelWidth: 24, pixelHeight: 24)
        c.draw(quadrants(width: 8, height: 4), in: rect, contentMode: mode)
        return c.makeBitmap()
    }

    func testUnscaledModesPlaceTheImageAtItsOwnSize() {
        // The 8x4 image in rect (4, 4, 16, 16) (midX = midY = 12, maxX = maxY = 20):
        //   center:      x 12 - 4 = 8,  y 12 - 2 = 10
        //   top:         x 8,  y 4          bottom:      x 8,  y 20 - 4 = 16
        //   left:        x 4,  y 10         right:       x 20 - 8 = 12, y 10
        //   topLeft:     x 4,  y 4          topRight:    x 12, y 4
        //   bottomLeft:  x 4,  y 16         bottomRight: x 12, y 16
        let origins: [(ContentMode, Int, Int)] = [
            (.center, 8, 10), (.top, 8, 4), (.bottom, 8, 16), (.left, 4, 10), (.right, 12, 10),
            (.topLeft, 4, 4), (.topRight, 12, 4), (.bottomLeft, 4, 16), (.bottomRight, 12, 16),
        ]
        for (mode, ox, oy) in origins {
            assertShowsQuadrants(drawQuadrants(mode), at: ox, oy)
        }
    }

    func testCenterClipsToRect() {
        // Rect (4, 4, 6, 2), image 8x4: frame x 7 - 4 = 3, y 5 - 2 = 3 → [3, 11) x [3, 7), clipped to
        // [4, 10) x [4, 6). Device x 4 ... 9 shows image x 1 ... 6 (red/blue for < 4, so device
        // x < 7); device y 4 shows image row 1 (top), y 5 row 2 (bottom).
        let b = drawQuadrants(.center, rect: CGRect(x: 4, y: 4, width: 6, height: 2))
        assertShowsQuadrants(b, at: 3, 3, visible: (4..<10, 4..<6))
    }

    func testScaleToFill() {
        // 8x4 stretched to 16x16 at (4, 4): 2x across, 4x down; the quadrant boundaries land at
        // device x 12 and y 12. Bilinear upscaling with sample positions at pixel centres:
        // device x 4 + i samples image x (i + 0.5) / 2 - 0.5, so i ≤ 6 (x ≤ 10) samples ≤ 2.75,
        // between pure-red columns; device y 4 + j samples (j + 0.5) / 4 - 0.5, j ≤ 5 gives ≤ 0.875.
        let b = drawQuadrants(.scaleToFill)
        assertPixel(b, 4, 4, Self.red)
        assertPixel(b, 10, 9, Self.red)
        assertPixel(b, 19, 4, Self.green)
        assertPixel(b, 13, 9, Self.green)  // i = 9 samples 4.25: columns 4 and 5 (green)
        assertPixel(b, 4, 19, Self.blue)
        assertPixel(b, 19, 19, Self.yellow)
        // Device x 11 (i = 7) samples 3.25: 0.75 red + 0.25 green = (191.25, 63.75, 0) → (191, 64, 0).
        assertPixel(b, 11, 5, [191, 64, 0, 255])
        // Outside the rect: untouched.
        for (x, y) in [(3, 10), (20, 10), (10, 3), (10, 20), (0, 0), (23, 23)] {
            assertPixel(b, x, y, Self.clear)
        }
    }

    func testAspectFitLetterboxes() {
        // 8x4 into 16x16: scale min(2, 4) = 2 → 16x8, centred: y offset (16 - 8) / 2 = 4 → device
        // y 8 ... 16, x 4 ... 20. Quadrant boundaries at device x 12, y 12.
        let b = drawQuadrants(.aspectFit)
        // The letterbox bars (device y 4 ... 8 and 16 ... 20) are untouched.
        for x in 0..<24 {
            for y in Array(0..<8) + Array(16..<24) {
                assertPixel(b, x, y, Self.clear)
            }
        }
        // The image's first and last rows and columns are pure (clamped at the edge).
        assertPixel(b, 4, 8, Self.red)
        assertPixel(b, 19, 8, Self.green)
        assertPixel(b, 4, 15, Self.blue)
        assertPixel(b, 19, 15, Self.yellow)
        // Row 8 + j samples image y (j + 0.5) / 2 - 0.5: j = 2 (y 10) → 0.75, rows 0 and 1 (top);
        // j = 3 (y 11) → 1.25: 0.75 top + 0.25 bottom.
        assertPixel(b, 6, 10, Self.red)
        assertPixel(b, 17, 13, Self.yellow)
        // (6, 11): red 0.75 + blue 0.25 = (191.25, 0, 63.75) → (191, 0, 64).
        assertPixel(b, 6, 11, [191, 0, 64, 255])
        // Nothing left or right of the image.
        assertPixel(b, 3, 12, Self.clear)
        assertPixel(b, 20, 12, Self.clear)
    }

    func testAspectFitTallRectLetterboxesLeftAndRight() {
        // 8x4 into (4, 4, 16, 4): scale min(2, 1) = 1 → 8x4 at x 4 + (16 - 8) / 2 = 8, y 4:
        // pixel-aligned and the same size, so the pixels are copied exactly.
        let b = drawQuadrants(.aspectFit, rect: CGRect(x: 4, y: 4, width: 16, height: 4))
        assertShowsQuadrants(b, at: 8, 4)
    }

    func testAspectFillCropsAndCovers() {
        // 8x4 into 16x16: scale max(2, 4) = 4 → 32x16 at x 4 + (16 - 32) / 2 = -4, y 4. Visible: image
        // x 2 ... 6, so the vertical boundary (image x 4) lands at device -4 + 16 = 12; the horizontal
        // one at device y 4 + 8 = 12. Device x 4 + i samples image x 2 + (i + 0.5) / 4 - 0.5:
        // i ≤ 5 (x ≤ 9) samples ≤ 2.875 (red columns 2 and 3), i ≥ 10 (x ≥ 14) ≥ 4.125.
        // Between them, the blends: device x samples image x (x + 2.5) / 4, device y samples
        // image y 4 · (y - 4 + 0.5) / 16 - 0.5 = (y - 5.5) / 4, clamped to 0 ... 3. A sample s
        // between pixel columns 3 and 4 (rows 1 and 2) takes s - 3 (s - 1) of the right (bottom)
        // quadrants' colour. The weights are multiples of 1/64, so every value is exact before it
        // rounds (x.5 up).
        func blended(_ x: Int, _ y: Int) -> [Int] {
            let right = min(1, max(0, (Double(x) + 2.5) / 4 - 3))
            let bottom = min(1, max(0, min(3, max(0, (Double(y) - 5.5) / 4)) - 1))
            let mix = [
                (Self.red, (1 - right) * (1 - bottom)), (Self.green, right * (1 - bottom)),
                (Self.blue, (1 - right) * bottom), (Self.yellow, right * bottom),
            ]
            return (0..<4).map { c in Int((mix.reduce(0) { $0 + Double($1.0[c]) * $1.1 } + 0.5).rounded(.down)) }
        }
        let b = drawQuadrants(.aspectFill)
        assertAllPixels(b) { x, y in
            guard (4..<20).contains(x), (4..<20).contains(y) else { return Self.clear }
            let cx = x <= 9 ? 0 : (x >= 14 ? 1 : -1)
            let cy = y <= 9 ? 0 : (y >= 14 ? 1 : -1)
            if cx < 0 || cy < 0 { return blended(x, y) }  // near the boundaries
            return self.quadrantColor(cx * 4, cy * 2, 8, 4)
        }
        // Corners of the rect are covered (nothing letterboxed).
        assertPixel(b, 4, 4, Self.red)
        assertPixel(b, 19, 4, Self.green)
        assertPixel(b, 4, 19, Self.blue)
        assertPixel(b, 19, 19, Self.yellow)
        // Device x 11 (i = 7): 2 + 7.5 / 4 - 0.5 = 3.375 → 0.625 red + 0.375 green
        // = (159.375, 95.625, 0) → (159, 96, 0).
        assertPixel(b, 11, 5, [159, 96, 0, 255])
    }

    func testAspectFillWithEmptyCropRectOrigin() {
        // 8x4 into (0, 0, 4, 4): scale max(0.5, 1) = 1 → 8x4, overflowing by 4 horizontally, placed at
        // x (4 - 8) * origin.x. Whole pixels and same size: exact copies.
        let wide = quadrants(width: 8, height: 4), tall = quadrants(width: 4, height: 8)
        func draw(_ image: Bitmap, _ origin: CGPoint) -> Bitmap {
            let c = GraphicsContext(pixelWidth: 4, pixelHeight: 4)
            c.draw(
                image, in: CGRect(x: 0, y: 0, width: 4, height: 4),
                contentMode: .aspectFill, cropRect: CGRect(origin: origin, size: .zero))
            return c.makeBitmap()
        }
        // (0, 0): left edge kept → image x 0 ... 4: red over blue.
        assertAllPixels(draw(wide, .zero)) { _, y in y < 2 ? Self.red : Self.blue }
        // (1, 1): right edge kept → image x 4 ... 8: green over yellow.
        assertAllPixels(draw(wide, CGPoint(x: 1, y: 1))) { _, y in y < 2 ? Self.green : Self.yellow }
        // Default (0.5, 0.5): x -2 → image x 2 ... 6: red | green.
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 4)
        c.draw(wide, in: CGRect(x: 0, y: 0, width: 4, height: 4), contentMode: .aspectFill)
        assertShowsQuadrants(c.makeBitmap(), at: -2, 0)

        // Vertically, with a 4x8 image: y (4 - 8) * origin.y.
        // (0, 0): top → red | green.  (1, 1): bottom → blue | yellow.
        assertAllPixels(draw(tall, .zero)) { x, _ in x < 2 ? Self.red : Self.green }
        assertAllPixels(draw(tall, CGPoint(x: 1, y: 1))) { x, _ in x < 2 ? Self.blue : Self.yellow }
    }

    func testCropRectFeaturesTheRightHalf() {
        // cropRect (0.5, 0, 0.5, 1) of the 8x4 image is its right 4x4 pixels: green over yellow.
        // Into (0, 0, 8, 8): 2x upscale of that region alone (bilinear clamped to the region, so no
        // red leaks in from image column 3). Row j samples region y (j + 0.5) / 2 - 0.5:
        // j ≤ 2 → ≤ 0.75 (green rows 0, 1), j = 3 → 1.25: 0.75 green + 0.25 yellow = (63.75, 255, 0)
        // → (64, 255, 0); j = 4 → 1.75: 0.25 green + 0.75 yellow = (191.25, 255, 0) → (191, 255, 0).
        let crop = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
        let expected: (Int, Int) -> [Int] = { _, y in
            switch y {
            case ...2: return Self.green
            case 3: return [64, 255, 0, 255]
            case 4: return [191, 255, 0, 255]
            default: return Self.yellow
            }
        }
        for mode in [ContentMode.scaleToFill, .aspectFill, .aspectFit] {
            // The region is square like the rect, so these three modes agree.
            let c = GraphicsContext(pixelWidth: 8, pixelHeight: 8)
            c.draw(
                quadrants(width: 8, height: 4), in: CGRect(x: 0, y: 0, width: 8, height: 8),
                contentMode: mode, cropRect: crop)
            assertAllPixels(c.makeBitmap(), expected)
        }
        // At its own size (center), the featured half is the whole image: 4x4 at (2, 2) of (0, 0, 8, 8).
        let c = GraphicsContext(pixelWidth: 8, pixelHeight: 8)
        c.draw(
            quadrants(width: 8, height: 4), in: CGRect(x: 0, y: 0, width: 8, height: 8),
            contentMode: .center, cropRect: crop)
        assertAllPixels(c.makeBitmap()) { x, y in
            guard (2..<6).contains(x), (2..<6).contains(y) else { return Self.clear }
            return y < 4 ? Self.green : Self.yellow
        }
    }

    func testBitmapScaleSetsItsPointSize() {
        // An 8x4-pixel bitmap at scale 2 is 4x2 points.
        let image = quadrants(width: 8, height: 4, scale: 2)
        // At 1x, topLeft: 4x2 device pixels, each the area average of 2x2 image pixels of one quadrant.
        let c = GraphicsContext(pixelWidth: 6, pixelHeight: 4)
        c.draw(image, in: CGRect(x: 0, y: 0, width: 6, height: 4), contentMode: .topLeft)
        assertShowsQuadrants(c.makeBitmap(), at: 0, 0, width: 4, height: 2)
        // At 2x, bottomRight of (0, 0, 6, 4) pt: frame (2, 2, 4, 2) pt = device (4, 4, 8, 4): copied.
        let d = GraphicsContext(pixelWidth: 12, pixelHeight: 8, scale: 2)
        d.draw(image, in: CGRect(x: 0, y: 0, width: 6, height: 4), contentMode: .bottomRight)
        assertShowsQuadrants(d.makeBitmap(), at: 4, 4)
    }

    func testDrawDownscalesByAreaAveraging() {
        // A 1-px checkerboard column pattern black/white 4x2 → 2x1: every output is 2x2 mixed:
        // (0 + 255 + 255 + 0) / 4 = 127.5 → 128.
        var bytes = [UInt8](repeating: 255, count: 4 * 2 * 4)
        for y in 0..<2 {
            for x in 0..<4 where (x + y) % 2 == 0 {
                bytes[(y * 4 + x) * 4] = 0; bytes[(y * 4 + x) * 4 + 1] = 0; bytes[(y * 4 + x) * 4 + 2] = 0
            }
        }
        let c = GraphicsContext(pixelWidth: 2, pixelHeight: 1)
        c.draw(Bitmap(width: 4, height: 2, pixels: bytes), in: CGRect(x: 0, y: 0, width: 2, height: 1))
        assertAllPixels(c.makeBitmap()) { _, _ in [128, 128, 128, 255] }
    }

    func testDrawAtFractionalPositionBlendsEdges() {
        // A 2x1 opaque green image at x 0.5 (same size): pixel 0 half covered, showing image x
        // 0 ... 0.5 → 127.5 → 128 green/alpha; pixel 1 fully covered (green on both sides); pixel 2 half.
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 1)
        c.draw(Bitmap(width: 2, height: 1, fill: .green), in: CGRect(x: 0.5, y: 0, width: 2, height: 1))
        assertAllPixels(c.makeBitmap()) { x, _ in
            switch x {
            case 0, 2: return [0, 128, 0, 128]
            case 1: return Self.green
            default: return Self.clear
            }
        }
    }

    func testDrawHonoursClipAndAlpha() {
        let c = GraphicsContext(pixelWidth: 8, pixelHeight: 4)
        c.clip(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        c.alpha = 0.5
        // The quadrant image copied at (0, 0); the right half is clipped away, the rest at alpha 0.5:
        // red → (127.5, 0, 0, 127.5) → (128, 0, 0, 128).
        c.draw(quadrants(width: 8, height: 4), in: CGRect(x: 0, y: 0, width: 8, height: 4))
        let b = c.makeBitmap()
        assertPixel(b, 0, 0, [128, 0, 0, 128])
        assertPixel(b, 3, 3, [0, 0, 128, 128])
        assertPixel(b, 4, 0, Self.clear)
        assertPixel(b, 7, 3, Self.clear)
    }

    func testContentModeFrames() {
        // The frame maths on its own, non-square rect (10, 20, 100, 50), content 40x20 (aspect 2).
        let r = CGRect(x: 10, y: 20, width: 100, height: 50)
        let s = CGSize(width: 40, height: 20)
        // aspectFit: scale min(2.5, 2.5) = 2.5 → exactly the rect.
        XCTAssertEqual(ContentMode.aspectFit.frame(forContentSize: s, in: r), r)
        // Content 20x20: fit scale 2.5 → 50x50 at x 10 + 25; fill scale 5 → 100x100 at y 20 - 25.
        let sq = CGSize(width: 20, height: 20)
        XCTAssertEqual(ContentMode.aspectFit.frame(forContentSize: sq, in: r), CGRect(x: 35, y: 20, width: 50, height: 50))
        XCTAssertEqual(ContentMode.aspectFill.frame(forContentSize: sq, in: r), CGRect(x: 10, y: -5, width: 100, height: 100))
        XCTAssertEqual(
            ContentMode.aspectFill.frame(forContentSize: sq, in: r, alignment: CGPoint(x: 0, y: 1)),
            CGRect(x: 10, y: -30, width: 100, height: 100))
        XCTAssertEqual(ContentMode.scaleToFill.frame(forContentSize: sq, in: r), r)
        XCTAssertEqual(ContentMode.bottomRight.frame(forContentSize: sq, in: r), CGRect(x: 90, y: 50, width: 20, height: 20))
        XCTAssertEqual(ContentMode.allCases.count, 12)
    }

    // MARK: - Gradients

    /// A 10x1 context with a two-stop red → blue gradient from x 0.5 to 8.5: pixel i's centre is at
    /// x i + 0.5, so t = i / 8 (exact in binary).
    private func redBlueGradient(_ options: GradientDrawingOptions, alpha: CGFloat = 1) -> Bitmap {
        let c = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
        c.alpha = alpha
        c.drawLinearGradient(
            Gradient(colors: [.red, .blue]), from: CGPoint(x: 0.5, y: 0), to: CGPoint(x: 8.5, y: 0),
            options: options)
        return c.makeBitmap()
    }

    func testTwoStopGradientValues() {
        let b = redBlueGradient([.drawsBeforeStart, .drawsAfterEnd])
        // t = i / 8: red 255 (1 - t), blue 255 t.
        assertPixel(b, 0, 0, Self.red)  // t 0: start colour
        assertPixel(b, 2, 0, [191, 0, 64, 255])  // t 0.25: 191.25, 63.75
        assertPixel(b, 4, 0, [128, 0, 128, 255])  // t 0.5: 127.5, 127.5 (middle)
        assertPixel(b, 6, 0, [64, 0, 191, 255])  // t 0.75
        assertPixel(b, 8, 0, Self.blue)  // t 1: end colour
        assertPixel(b, 9, 0, Self.blue)  // past the end, extended
        // The same gradient after translateBy(x: 2): from x -1.5 ... 6.5 in user space is again device
        // x 0.5 ... 8.5, so the same pixels.
        let c = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
        c.translateBy(x: 2, y: 0)
        c.drawLinearGradient(
            Gradient(colors: [.red, .blue]), from: CGPoint(x: -1.5, y: 0), to: CGPoint(x: 6.5, y: 0),
            options: [.drawsBeforeStart, .drawsAfterEnd])
        XCTAssertEqual(c.makeBitmap().pixels, b.pixels)
    }

    func testGradientEndsWithoutOptions() {
        // Without the options nothing is drawn outside [start, end]; the pixels whose centres sit
        // exactly on the start or end are half covered: red * 0.5 → 128, blue * 0.5 → 128.
        let b = redBlueGradient([])
        assertPixel(b, 0, 0, [128, 0, 0, 128])
        assertPixel(b, 4, 0, [128, 0, 128, 255])
        assertPixel(b, 8, 0, [0, 0, 128, 128])
        assertPixel(b, 9, 0, Self.clear)
        // Only before: the start is full, the end half, past it nothing.
        let before = redBlueGradient([.drawsBeforeStart])
        assertPixel(before, 0, 0, Self.red)
        assertPixel(before, 8, 0, [0, 0, 128, 128])
        assertPixel(before, 9, 0, Self.clear)
        // Only after.
        let after = redBlueGradient([.drawsAfterEnd])
        assertPixel(after, 0, 0, [128, 0, 0, 128])
        assertPixel(after, 9, 0, Self.blue)
    }

    func testGradientStartsLaterWithoutBeforeStart() {
        // From x 3.5 to 7.5 (t = (i - 3) / 4): pixels 0 ... 2 are wholly before the start, untouched
        // without .drawsBeforeStart, filled red with it.
        func draw(_ options: GradientDrawingOptions) -> Bitmap {
            let c = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
            c.drawLinearGradient(
                Gradient(colors: [.red, .blue]), from: CGPoint(x: 3.5, y: 0),
                to: CGPoint(x: 7.5, y: 0), options: options)
            return c.makeBitmap()
        }
        let plain = draw([]), before = draw([.drawsBeforeStart])
        for x in 0...2 {
            assertPixel(plain, x, 0, Self.clear)
            assertPixel(before, x, 0, Self.red)
        }
        assertPixel(plain, 5, 0, [128, 0, 128, 255])  // t 0.5
    }

    func testThreeStopGradient() {
        // Stops given out of order: red at 0, green at 0.25, blue at 1. t = i / 8.
        let gradient = Gradient(stops: [
            GradientStop(location: 1, color: .blue),
            GradientStop(location: 0, color: .red),
            GradientStop(location: 0.25, color: .green),
        ])
        let c = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
        c.drawLinearGradient(
            gradient, from: CGPoint(x: 0.5, y: 0), to: CGPoint(x: 8.5, y: 0),
            options: [.drawsBeforeStart, .drawsAfterEnd])
        let b = c.makeBitmap()
        assertPixel(b, 0, 0, Self.red)
        assertPixel(b, 1, 0, [128, 128, 0, 255])  // t 0.125: halfway red → green, 127.5 each
        assertPixel(b, 2, 0, Self.green)  // t 0.25: the middle stop
        assertPixel(b, 5, 0, [0, 128, 128, 255])  // t 0.625: (0.625 - 0.25) / 0.75 = 0.5 green → blue
        assertPixel(b, 8, 0, Self.blue)

        // Gradient(colors:) spaces three colours at 0, 0.5, 1.
        XCTAssertEqual(Gradient(colors: [.red, .green, .blue]).stops.map(\.location), [0, 0.5, 1])
    }

    func testGradientInterpolatesPremultiplied() {
        // Red → clear: at t 0.5 premultiplied (255, 0, 0, 255) / 2 = (127.5, 0, 0, 127.5) → (128, 0, 0, 128),
        // still pure red when un-premultiplied. (Straight interpolation towards clear black would
        // give r 64 at a 128.)
        let c = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
        c.drawLinearGradient(
            Gradient(colors: [.red, .clear]), from: CGPoint(x: 0.5, y: 0), to: CGPoint(x: 8.5, y: 0),
            options: [.drawsBeforeStart, .drawsAfterEnd])
        let b = c.makeBitmap()
        assertPixel(b, 4, 0, [128, 0, 0, 128])
        assertPixel(b, 8, 0, Self.clear)
        // Red → transparent WHITE gives the same: a transparent colour's components premultiply to 0.
        // (Interpolating straight colours, then premultiplying, would let the white leak in: at t 0.5
        // (255, 127.5, 127.5) × 0.5 → (128, 64, 64, 128).)
        let d = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
        d.drawLinearGradient(
            Gradient(colors: [.red, Color(white: 1, alpha: 0)]), from: CGPoint(x: 0.5, y: 0),
            to: CGPoint(x: 8.5, y: 0), options: [.drawsBeforeStart, .drawsAfterEnd])
        let e = d.makeBitmap()
        assertPixel(e, 4, 0, [128, 0, 0, 128])
        assertPixel(e, 2, 0, [191, 0, 0, 191])  // t 0.25: 255 * 0.75 = 191.25
        assertPixel(e, 8, 0, Self.clear)
    }

    func testGradientClipAndAlpha() {
        let c = GraphicsContext(pixelWidth: 10, pixelHeight: 1)
        c.clip(to: CGRect(x: 2, y: 0, width: 3, height: 1))
        c.alpha = 0.5
        c.drawLinearGradient(
            Gradient(colors: [.red, .blue]), from: CGPoint(x: 0.5, y: 0), to: CGPoint(x: 8.5, y: 0),
            options: [.drawsBeforeStart, .drawsAfterEnd])
        let b = c.makeBitmap()
        // Only pixels 2 ... 4 are drawn, at half opacity: pixel 4 (127.5, 0, 127.5, 255) * 0.5
        // = (63.75, 0, 63.75, 127.5) → (64, 0, 64, 128); pixel 2 (191.25, 0, 63.75, 255) * 0.5
        // = (95.625, 0, 31.875, 127.5) → (96, 0, 32, 128).
        assertAllPixels(b) { x, _ in
            switch x {
            case 2: return [96, 0, 32, 128]
            case 3: return [80, 0, 48, 128]  // t 0.375: (159.375, 95.625) / 2 = 79.69, 47.81
            case 4: return [64, 0, 64, 128]
            default: return Self.clear
            }
        }
    }

    func testVerticalGradientUnderTranslationAt2x() {
        // At 2x, translated by (0, 0.25) pt = 0.5 px: the gradient from y 0 to 4 pt runs device
        // y 0.5 ... 8.5, so device row j has t = j / 8 as in the horizontal case.
        let c = GraphicsContext(pixelWidth: 2, pixelHeight: 10, scale: 2)
        c.translateBy(x: 0, y: 0.25)
        c.drawLinearGradient(
            Gradient(colors: [.red, .blue]), from: CGPoint(x: 0, y: 0), to: CGPoint(x: 0, y: 4),
            options: [.drawsBeforeStart, .drawsAfterEnd])
        let b = c.makeBitmap()
        for x in 0..<2 {
            assertPixel(b, x, 0, Self.red)
            assertPixel(b, x, 2, [191, 0, 64, 255])
            assertPixel(b, x, 4, [128, 0, 128, 255])
            assertPixel(b, x, 8, Self.blue)
        }
    }

    // MARK: - Masks

    /// Premultiplied 4x1 mask: opaque white, opaque black, black at alpha 128, transparent.
    private let maskBitmap = Bitmap(width: 4, height: 1, pixels: [255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 128, 0, 0, 0, 0])

    func testFillMaskUsesOnlyAlpha() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 1)
        c.fill(mask: maskBitmap, in: CGRect(x: 0, y: 0, width: 4, height: 1), with: .blue)
        // Coverage = mask alpha / 255, whatever the mask's colour: 1, 1, 128/255, 0 → blue 255, 255, 128, 0.
        assertAllPixels(c.makeBitmap()) { x, _ in
            [[0, 0, 255, 255], [0, 0, 255, 255], [0, 0, 128, 128], [0, 0, 0, 0]][x]
        }
    }

    func testFillMaskStretched() {
        let c = GraphicsContext(pixelWidth: 8, pixelHeight: 1)
        // Stretched 2x across (bilinear, centres): output i samples mask x (i + 0.5) / 2 - 0.5, alphas
        // 255, 255, 128, 0:
        // i 0 → -0.25 → clamped 0: 255;  i 1 → 0.25: 255;  i 2 → 0.75: 255;
        // i 3 → 1.25: 0.75 * 255 + 0.25 * 128 = 223.25 → 223;  i 4 → 1.75: 63.75 + 96 = 159.75 → 160;
        // i 5 → 2.25: 0.75 * 128 = 96;  i 6 → 2.75: 0.25 * 128 = 32;  i 7 → 3.25 → clamped 3: 0.
        c.fill(mask: maskBitmap, in: CGRect(x: 0, y: 0, width: 8, height: 1), with: .blue)
        let expected = [255, 255, 255, 223, 160, 96, 32, 0]
        assertAllPixels(c.makeBitmap()) { x, _ in [0, 0, expected[x], expected[x]] }
    }

    func testFillMaskWithColourAlphaAndClip() {
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 1, fill: .red)
        c.clip(to: CGRect(x: 0, y: 0, width: 3, height: 1))
        // Green at alpha 0.5 through coverage 1: (0, 127.5, 0, 127.5) + red * 0.5 → (128, 128, 0, 255).
        // Pixel 3 is clipped away.
        c.fill(mask: maskBitmap, in: CGRect(x: 0, y: 0, width: 4, height: 1), with: Color.green.withAlpha(0.5))
        let b = c.makeBitmap()
        assertPixel(b, 0, 0, [128, 128, 0, 255])
        assertPixel(b, 1, 0, [128, 128, 0, 255])
        // Coverage 128/255 * 0.5: src 0.25098 * 255 = 64.0 green; keep 1 - 0.25098 → red 190.999 → 191.
        assertPixel(b, 2, 0, [191, 64, 0, 255])
        assertPixel(b, 3, 0, Self.red)
    }

    // MARK: - Output

    func testMakeBitmapIsASnapshot() {
        let c = GraphicsContext(pixelWidth: 2, pixelHeight: 2)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1), with: .red)
        let first = c.makeBitmap()
        c.fill(CGRect(x: 0, y: 0, width: 2, height: 2), with: .blue)
        let second = c.makeBitmap()
        assertAllPixels(first) { x, y in x == 0 && y == 0 ? Self.red : Self.clear }
        assertAllPixels(second) { _, _ in Self.blue }
        c.draw(Bitmap(width: 2, height: 2, fill: .green), in: CGRect(x: 0, y: 0, width: 2, height: 2))
        assertAllPixels(second) { _, _ in Self.blue }
        assertAllPixels(c.makeBitmap()) { _, _ in Self.green }
    }

    // MARK: - Golden

    func testComposedSceneGolden() throws {
        try GraphicsLibrary.initialize()
        let photo = try ImageDecoder.decode(contentsOf: Fixtures.imagesDirectory.appendingPathComponent("red-panda.jpg").path)
        let c = GraphicsContext(size: CGSize(width: 200, height: 140), scale: 2, fill: Color(rgb8: 236, 240, 232))
        // A card: a soft shadow (rounded rect 2 pt lower), the card; its 1-pt border comes last.
        let card = CGRect(x: 10, y: 10, width: 180, height: 120)
        c.fillRoundedRect(card.offsetBy(dx: 0, dy: 2), cornerRadius: 12, with: Color(white: 0, alpha: 0.15))
        c.fillRoundedRect(card, cornerRadius: 12, with: .white)
        // The photo aspectFill in a rounded clip at the top of the card.
        c.withSavedState {
            c.clip(toRoundedRect: CGRect(x: 18, y: 18, width: 164, height: 72), cornerRadius: 8)
            c.draw(photo, in: CGRect(x: 18, y: 18, width: 164, height: 72), contentMode: .aspectFill)
            // A dark gradient over the photo's lower part.
            c.drawLinearGradient(
                Gradient(colors: [Color(white: 0, alpha: 0), Color(white: 0, alpha: 0.6)]),
                from: CGPoint(x: 0, y: 50), to: CGPoint(x: 0, y: 90), options: [.drawsAfterEnd])
        }
        // A colour bar gradient with a translation.
        c.withSavedState {
            c.translateBy(x: 18, y: 98)
            c.clip(toRoundedRect: CGRect(x: 0, y: 0, width: 120, height: 10), cornerRadius: 5)
            c.drawLinearGradient(
                Gradient(colors: [.orange, .red, Color(rgb8: 120, 40, 160)]),
                from: .zero, to: CGPoint(x: 120, y: 0))
        }
        c.strokeRoundedRect(
            CGRect(x: 144, y: 96, width: 38, height: 26), cornerRadius: 6,
            with: Color(rgb8: 30, 90, 50), lineWidth: 1.5)
        c.fill(CGRect(x: 150.25, y: 107.25, width: 26, height: 4), with: Color(rgb8: 30, 90, 50, alpha: 0.5))
        c.strokeRoundedRect(card.insetBy(dx: 0.5, dy: 0.5), cornerRadius: 11.5, with: Color(white: 0.7), lineWidth: 1)
        c.stroke(CGRect(x: 18, y: 112, width: 110, height: 10), with: Color.blue.withAlpha(0.6), lineWidth: 1)
        GoldenImage.assertMatches(c.makeBitmap(), named: "GraphicsContextScene", tolerance: 2)
    }
}

final class GraphicsContextOddInputTests: XCTestCase {
    /// Degenerate geometry draws nothing (or clamps) and never traps.
    func testDegenerateAndNonFiniteInputsDoNotCrash() {
        let photo = Bitmap(width: 64, height: 48, fill: .red)
        let context = GraphicsContext(pixelWidth: 32, pixelHeight: 32, fill: .white)
        context.draw(photo, in: CGRect(x: 0, y: 0, width: 1e-9, height: 1e-9))
        context.draw(photo, in: CGRect(x: 0, y: 0, width: 1e-300, height: 10))
        context.draw(photo, in: CGRect(x: 0, y: 0, width: 0, height: 0), contentMode: .aspectFill)
        context.scaleBy(x: .nan, y: 1)
        context.translateBy(x: .infinity, y: 0)
        context.drawLinearGradient(
            Gradient(colors: [.black, .clear]), from: .zero, to: CGPoint(x: 0, y: 10),
            options: [.drawsBeforeStart, .drawsAfterEnd])
        context.fill(CGRect(x: CGFloat.nan, y: 0, width: 10, height: 10), with: .black)
        let result = context.makeBitmap()
        XCTAssertEqual(result.width, 32)
        // The gradient, drawn with the transform intact (the non-finite ones were ignored),
        // covers everything: black before its start.
        XCTAssertEqual(result.pixel(x: 5, y: 20).a, 255)
        XCTAssertEqual(GraphicsContext(size: CGSize(width: CGFloat.nan, height: 10)).pixelWidth, 0)
        XCTAssertEqual(
            GraphicsContext(size: CGSize(width: 1e12, height: 1), scale: 1).pixelWidth,
            GraphicsContext.maximumPixelSide)
    }
}

/// Anti-aliasing quality against integrated coverage, saturation, the draw path's filters, and
/// golden scenes at 1x (with a photo) and 2x (shapes under a non-uniform scale).
final class GraphicsContextQualityTests: XCTestCase {
    private func pixel(_ b: Bitmap, _ x: Int, _ y: Int) -> [Int] {
        let p = b.pixel(x: x, y: y)
        return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
    }

    /// The area of a rounded rect inside pixel (x, y), integrated on a 64 x 64 grid of samples.
    private func roundedCoverage(_ x: Int, _ y: Int, rect: CGRect, radius: CGFloat) -> Double {
        let n = 64
        var inside = 0
        for sy in 0..<n {
            for sx in 0..<n {
                let px = CGFloat(x) + (CGFloat(sx) + 0.5) / CGFloat(n)
                let py = CGFloat(y) + (CGFloat(sy) + 0.5) / CGFloat(n)
                guard rect.contains(CGPoint(x: px, y: py)) else { continue }
                let cx = min(max(px, rect.minX + radius), rect.maxX - radius)
                let cy = min(max(py, rect.minY + radius), rect.maxY - radius)
                if (px - cx) * (px - cx) + (py - cy) * (py - cy) <= radius * radius { inside += 1 }
            }
        }
        return Double(inside) / Double(n * n)
    }

    func testFillRoundedRectMatchesIntegratedCoverage() {
        // Fractional edges and a radius of 4 at 1x: every pixel within 2% of the true area.
        let rect = CGRect(x: 1.5, y: 1.25, width: 13, height: 9.5)
        let c = GraphicsContext(pixelWidth: 17, pixelHeight: 12)
        c.fillRoundedRect(rect, cornerRadius: 4, with: .white)
        let b = c.makeBitmap()
        for y in 0..<12 {
            for x in 0..<17 {
                XCTAssertEqual(
                    Double(pixel(b, x, y)[3]) / 255, roundedCoverage(x, y, rect: rect, radius: 4),
                    accuracy: 0.02, "\(x),\(y)")
            }
        }
    }

    func testRoundedClipMatchesIntegratedCoverage() {
        // Red through a rounded clip onto blue: r = 255 k, b = 255 (1 - k), k the clip's coverage.
        let rect = CGRect(x: 2, y: 2, width: 16, height: 12)
        let c = GraphicsContext(pixelWidth: 20, pixelHeight: 16, fill: .blue)
        c.clip(toRoundedRect: rect, cornerRadius: 5)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 16), with: .red)
        let b = c.makeBitmap()
        var partial = 0
        for y in 0..<16 {
            for x in 0..<20 {
                let p = pixel(b, x, y)
                let expected = roundedCoverage(x, y, rect: rect, radius: 5)
                XCTAssertEqual(p[0] + p[2], 255, accuracy: 1, "\(x),\(y)")
                XCTAssertEqual(Double(p[0]) / 255, expected, accuracy: 0.02, "coverage at \(x),\(y)")
                if expected == 0 { XCTAssertEqual(p, [0, 0, 255, 255], "\(x),\(y) is outside, untouched") }
                if expected > 0.05 && expected < 0.95 { partial += 1 }
            }
        }
        XCTAssertGreaterThan(partial, 8, "corners are anti-aliased")
    }

    func testMalformedSourceSaturatesInsteadOfWrapping() {
        // Colour over alpha (255, 0, 0, 0) over white adds up to 510 red: it must clamp to 255.
        let c = GraphicsContext(pixelWidth: 1, pixelHeight: 1, fill: .white)
        c.draw(Bitmap(width: 1, height: 1, pixels: [255, 0, 0, 0]), in: CGRect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertEqual(pixel(c.makeBitmap(), 0, 0), [255, 255, 255, 255])
    }

    func testDrawingAShrunkCheckerboardShowsNoPattern() {
        let source = Fixtures.checkerboard(width: 1920, height: 1080)
        // 6 x 6 checks per pixel, 18 white: 127.5 everywhere.
        let c = GraphicsContext(pixelWidth: 320, pixelHeight: 180)
        c.draw(source, in: CGRect(x: 0, y: 0, width: 320, height: 180), contentMode: .aspectFill)
        let b = c.makeBitmap()
        var low = 255, high = 0
        for y in 0..<180 {
            for x in 0..<320 {
                let p = pixel(b, x, y)
                low = min(low, p[0], p[1], p[2]); high = max(high, p[0], p[1], p[2])
                XCTAssertEqual(p[3], 255)
            }
        }
        XCTAssertGreaterThanOrEqual(low, 127)
        XCTAssertLessThanOrEqual(high, 128)
        // Off the pixel grid at a non-integer ratio (6.41 x 6.35) it stays within a few levels: the
        // mean of an XOR pattern over a box of side L is off by at most 2 (0.5 / L)^2 of the range.
        let d = GraphicsContext(pixelWidth: 300, pixelHeight: 180)
        d.draw(source, in: CGRect(x: 0.33, y: 0.33, width: 299.5, height: 170))
        let e = d.makeBitmap()
        for y in 1..<170 {
            for x in 1..<299 {
                XCTAssertEqual(Double(pixel(e, x, y)[0]), 127.5, accuracy: 4, "\(x),\(y)")
            }
        }
    }

    func testDrawUpscalesLikeTheResampler() {
        // Red, blue over green, white, drawn 2x: the same bilinear weights as Resampler.resize;
        // (1, 1) = 9/16 red + 3/16 blue + 3/16 green + 1/16 white = (159.375, 63.75, 63.75) -> (159, 64, 64).
        let image = Bitmap(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 0, 255, 255, 0, 255, 0, 255, 255, 255, 255, 255])
        let c = GraphicsContext(pixelWidth: 4, pixelHeight: 4)
        c.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 4))
        XCTAssertEqual(c.makeBitmap().pixels, Resampler.resize(image, toPixelWidth: 4, pixelHeight: 4).pixels)
        XCTAssertEqual(pixel(c.makeBitmap(), 1, 1), [159, 64, 64, 255])
    }

    // MARK: Golden scenes

    /// A card at 1x: shadow, rounded clip, an aspect-filled 1920 x 1080 photo with a scrim, a pill,
    /// text-like bars with fractional edges, a gradient bar, a stroked square and a hairline border.
    static func drawCard(photo: Bitmap, scale: CGFloat) -> Bitmap {
        let ctx = GraphicsContext(size: CGSize(width: 240, height: 300), scale: scale, fill: Color(white: 0.93))
        let card = CGRect(x: 12, y: 12, width: 216, height: 276)
        ctx.fillRoundedRect(card.offsetBy(dx: 0, dy: 2), cornerRadius: 14, with: Color(white: 0, alpha: 0.15))
        ctx.withSavedState {
            ctx.clip(toRoundedRect: card, cornerRadius: 14)
            ctx.fill(card, with: .white)
            let imageRect = CGRect(x: card.minX, y: card.minY, width: card.width, height: 150)
            ctx.draw(photo, in: imageRect, contentMode: .aspectFill)
            ctx.withSavedState {
                ctx.clip(to: imageRect)
                ctx.drawLinearGradient(
                    Gradient(colors: [Color(white: 0, alpha: 0.8), .clear]),
                    from: CGPoint(x: 0, y: imageRect.maxY), to: CGPoint(x: 0, y: imageRect.midY),
                    options: .drawsAfterEnd)
            }
            ctx.fillRoundedRect(
                CGRect(x: card.minX + 12, y: imageRect.maxY - 30, width: 90, height: 20), cornerRadius: 10,
                with: Color(red: 0.2, green: 0.6, blue: 0.3, alpha: 0.9))
            for i in 0..<4 {
                ctx.fill(
                    CGRect(
                        x: card.minX + 12, y: imageRect.maxY + 16 + CGFloat(i) * 14.5,
                        width: 190 - CGFloat(i) * 30.25, height: 7.5), with: Color(white: 0.75))
            }
            ctx.withSavedState {
                ctx.clip(
                    toRoundedRect: CGRect(x: card.minX + 12, y: card.maxY - 30, width: card.width - 24, height: 14),
                    cornerRadius: 7)
                let stops = [
                    GradientStop(location: 0, color: .orange), GradientStop(location: 0.5, color: .red),
                    GradientStop(location: 1, color: .blue),
                ]
                ctx.drawLinearGradient(
                    Gradient(stops: stops), from: CGPoint(x: card.minX + 12, y: 0),
                    to: CGPoint(x: card.maxX - 12, y: 0))
            }
            ctx.stroke(CGRect(x: card.maxX - 40, y: imageRect.maxY + 16, width: 24, height: 24), with: .blue, lineWidth: 2)
        }
        ctx.strokeRoundedRect(
            card.insetBy(dx: 0.5, dy: 0.5), cornerRadius: 13.5, with: Color(white: 0, alpha: 0.25), lineWidth: 1)
        return ctx.makeBitmap()
    }

    func testGoldenCardSceneAt1x() throws {
        try GraphicsLibrary.initialize()
        let photo = try ImageDecoder.decode(contentsOf: Fixtures.imagesDirectory.appendingPathComponent("kingfisher.webp").path)
        XCTAssertEqual(photo.width, 1920)
        // The photo depends on the platform's WebP decoder: allow a few pixels off by a little.
        GoldenImage.assertMatches(
            Self.drawCard(photo: photo, scale: 1), named: "GraphicsContext-card-1x",
            tolerance: 3, maxDifferingFraction: 0.002)
    }

    func testGoldenShapesAt2x() {
        // Shapes only, with fractional geometry, a non-uniform scale (elliptic corners) and alpha.
        let ctx = GraphicsContext(size: CGSize(width: 120, height: 80), scale: 2, fill: .white)
        ctx.fillRoundedRect(CGRect(x: 4.25, y: 4.25, width: 50, height: 30), cornerRadius: 8, with: Color(rgb8: 40, 120, 200))
        ctx.strokeRoundedRect(
            CGRect(x: 60.5, y: 4.5, width: 55, height: 30), cornerRadius: 15, with: Color(rgb8: 200, 60, 40),
            lineWidth: 3)
        ctx.withSavedState {
            ctx.translateBy(x: 4, y: 40)
            ctx.scaleBy(x: 2, y: 1)
            ctx.alpha = 0.7
            ctx.fillRoundedRect(CGRect(x: 0, y: 0, width: 25, height: 34), cornerRadius: 6, with: Color(rgb8: 30, 160, 90))
        }
        ctx.withSavedState {
            ctx.clip(toRoundedRect: CGRect(x: 60, y: 40, width: 56, height: 36), cornerRadius: 18)
            ctx.drawLinearGradient(
                Gradient(colors: [.yellow, Color(red: 0.5, green: 0, blue: 1, alpha: 0.5)]),
                from: CGPoint(x: 60, y: 40), to: CGPoint(x: 116, y: 76))
            ctx.stroke(CGRect(x: 70.25, y: 50.25, width: 20, height: 10), with: .black, lineWidth: 0.5)
        }
        GoldenImage.assertMatches(ctx.makeBitmap(), named: "GraphicsContext-shapes-2x")
    }

    // MARK: Opacity

    func testAContextFilledOpaqueStaysOpaqueWhateverIsDrawnOverIt() {
        let context = GraphicsContext(pixelWidth: 24, pixelHeight: 16, scale: 1, fill: Color(white: 0.2))
        XCTAssertTrue(context.isOpaque)
        context.fill(CGRect(x: 2.3, y: 1.7, width: 9.1, height: 5.2), with: Color(red: 1, green: 0, blue: 0, alpha: 0.37))
        context.fillRoundedRect(CGRect(x: 4, y: 4, width: 15, height: 9), cornerRadius: 4, with: Color(white: 1, alpha: 0.1))
        context.draw(
            Bitmap(width: 5, height: 5, fill: Color(red: 0, green: 1, blue: 0, alpha: 0.01)),
            in: CGRect(x: 10.5, y: 3.25, width: 11, height: 7))
        let bitmap = context.makeBitmap()
        XCTAssertTrue(bitmap.isOpaque)
        XCTAssertTrue(bitmap.pixelsAreOpaque, "every alpha is 255, as the bitmap says")

        XCTAssertFalse(GraphicsContext(pixelWidth: 4, pixelHeight: 4).isOpaque)
        XCTAssertFalse(GraphicsContext(pixelWidth: 4, pixelHeight: 4, fill: Color(white: 1, alpha: 0.99)).isOpaque)
    }

    func testABitmapFlattenedOverAColourIsOpaqueAndComposited() {
        // Premultiplied: half red, and transparent.
        let pixels: [UInt8] = [128, 0, 0, 128, 0, 0, 0, 0]
        let bitmap = Bitmap(width: 2, height: 1, pixels: pixels)
        XCTAssertFalse(bitmap.isOpaque)
        XCTAssertFalse(bitmap.pixelsAreOpaque)
        let flat = bitmap.flattened(over: Color(red: 0, green: 0, blue: 1))
        XCTAssertTrue(flat.isOpaque)
        XCTAssertEqual(flat.pixels, [128, 0, 127, 255, 0, 0, 255, 255])
        // A translucent colour is first put over black.
        XCTAssertEqual(bitmap.flattened(over: Color(red: 0, green: 0, blue: 1, alpha: 0.5)).pixels[4...], [0, 0, 128, 255])
        // An opaque bitmap is its own flattening, and keeps its flag at another scale.
        XCTAssertTrue(flat.flattened(over: .black) === flat)
        XCTAssertTrue(flat.withScale(2).isOpaque)
        // Seen opaque by its pixels, though not said to be.
        XCTAssertTrue(Bitmap(width: 1, height: 1, pixels: [1, 2, 3, 255]).pixelsAreOpaque)
    }
}
