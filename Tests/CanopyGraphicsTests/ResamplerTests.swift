import CanopyGraphics
import Foundation
import XCTest

/// Tests of `Resampler.resize`. Conventions: premultiplied RGBA8 in and out; pixel k covers
/// [k, k + 1) and is sampled at its centre k + 0.5. Shrinking averages the source area each output
/// pixel covers; growing interpolates bilinearly between source pixel centres, clamped at the edges.
/// Expected values are worked out by hand in the comments.
final class ResamplerTests: XCTestCase {
    // MARK: - Helpers

    private func pixel(_ b: Bitmap, _ x: Int, _ y: Int) -> [Int] {
        let p = b.pixel(x: x, y: y)
        return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
    }

    /// An opaque grey bitmap from rows of grey levels.
    private func greys(_ rows: [[Int]]) -> Bitmap {
        let h = rows.count, w = rows[0].count
        var bytes = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 { bytes[(y * w + x) * 4 + c] = UInt8(rows[y][x]) }
            }
        }
        return Bitmap(width: w, height: h, pixels: bytes)
    }

    /// A reproducible pseudo-random generator (xorshift64*), so failures can be replayed.
    private struct XorShift {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
    }

    // MARK: - Shrinking

    func testCheckerboardDownscaleIsFlatGrey() {
        // A 1-px black/white checkerboard, 1920x1080 → 320x180: exactly 6x6 source pixels per output
        // pixel, 18 black and 18 white → 255 * 18 / 36 = 127.5, so 127 or 128 after Float rounding,
        // the same everywhere (no moiré, no pattern).
        let checkerboard = Fixtures.checkerboard(width: 1920, height: 1080)
        let out = Resampler.resize(checkerboard, toPixelWidth: 320, pixelHeight: 180)
        XCTAssertEqual(out.width, 320)
        XCTAssertEqual(out.height, 180)
        var lo = 255, hi = 0, alphaOK = true
        for y in 0..<180 {
            for x in 0..<320 {
                let p = pixel(out, x, y)
                lo = min(lo, p[0], p[1], p[2])
                hi = max(hi, p[0], p[1], p[2])
                alphaOK = alphaOK && p[3] == 255
            }
        }
        XCTAssert(lo >= 127 && hi <= 128, "grey levels span \(lo)...\(hi), expected within 127...128")
        XCTAssertLessThanOrEqual(hi - lo, 1)
        XCTAssert(alphaOK, "alpha must stay 255")
    }

    func testCheckerboardDownscaleAtNonIntegerRatioHasNoPattern() {
        // 1920x1080 → 333x187: each output averages an a x b = 5.766 x 5.775 source rectangle. The
        // checkerboard is 127.5 + 127.5 * s(x) * s(y) with s = ±1 alternating per pixel; over any
        // interval the integral of s lies within [-1, 1], so over the rectangle the product term
        // averages to at most 1 / (a * b) = 1 / 33.3 in size: every output is 127.5 ± 3.83,
        // i.e. 124 ... 131 after rounding. Point sampling would give 0 or 255 (aliasing).
        let checkerboard = Fixtures.checkerboard(width: 1920, height: 1080)
        let out = Resampler.resize(checkerboard, toPixelWidth: 333, pixelHeight: 187)
        var lo = 255, hi = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let p = pixel(out, x, y)
                lo = min(lo, p[0]); hi = max(hi, p[0])
            }
        }
        XCTAssert(lo >= 124 && hi <= 131, "grey levels span \(lo)...\(hi)")
    }

    func testConstantColourSurvivesExactly() {
        // Weights of every output sum to 1, so a flat colour comes out unchanged, opaque or not.
        for colour in [[37, 140, 201, 255], [20, 50, 90, 128]] {
            let w = 1920, h = 1080
            var bytes = [UInt8](repeating: 0, count: w * h * 4)
            for i in 0..<(w * h) { for c in 0..<4 { bytes[i * 4 + c] = UInt8(colour[c]) } }
            let source = Bitmap(width: w, height: h, pixels: bytes)
            for (ow, oh) in [(320, 180), (333, 187), (1, 1)] {
                let out = Resampler.resize(source, toPixelWidth: ow, pixelHeight: oh)
                var bad = 0
                out.pixels.withUnsafeBufferPointer { p in
                    for i in 0..<(ow * oh) where (0..<4).contains(where: { Int(p[i * 4 + $0]) != colour[$0] }) {
                        bad += 1
                    }
                }
                XCTAssertEqual(bad, 0, "\(colour) → \(ow)x\(oh): \(bad) pixels changed")
            }
        }
    }

    func testShrinkAveragesAreasByHand() {
        // Three greys 0, 90, 180 → two pixels: 1.5 source pixels each.
        // Output 0 covers [0, 1.5): (0 * 1 + 90 * 0.5) / 1.5 = 30.
        // Output 1 covers [1.5, 3): (90 * 0.5 + 180 * 1) / 1.5 = 150.
        let out = Resampler.resize(greys([[0, 90, 180]]), toPixelWidth: 2, pixelHeight: 1)
        XCTAssertEqual(pixel(out, 0, 0), [30, 30, 30, 255])
        XCTAssertEqual(pixel(out, 1, 0), [150, 150, 150, 255])
        // 4x4 → 2x2: each output averages its 2x2 block.
        // top-left (0 + 40 + 80 + 120) / 4 = 60; top-right (200 + 240 + 0 + 0) / 4 = 110;
        // bottom-left (10 + 10 + 10 + 10) / 4 = 10; bottom-right (255 * 2 + 1 + 3) / 4 = 128.5 → 129.
        let block = greys([
            [0, 40, 200, 240],
            [80, 120, 0, 0],
            [10, 10, 255, 1],
            [10, 10, 255, 3],
        ])
        let small = Resampler.resize(block, toPixelWidth: 2, pixelHeight: 2)
        XCTAssertEqual(pixel(small, 0, 0), [60, 60, 60, 255])
        XCTAssertEqual(pixel(small, 1, 0), [110, 110, 110, 255])
        XCTAssertEqual(pixel(small, 0, 1), [10, 10, 10, 255])
        XCTAssertEqual(pixel(small, 1, 1), [129, 129, 129, 255])
    }

    func testNonIntegerRatioKeepsTheMeanColour() {
        // Area averaging gives every source pixel the same total weight (1 / ratio) across the
        // outputs, so the output mean equals the source mean up to rounding: within 1 level.
        let w = 1920, h = 1080
        var rng = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        var bytes = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) {
            let r = rng.next()
            bytes[i * 4] = UInt8(truncatingIfNeeded: r >> 8)
            bytes[i * 4 + 1] = UInt8(truncatingIfNeeded: r >> 24)
            bytes[i * 4 + 2] = UInt8(truncatingIfNeeded: r >> 40)
        }
        let source = Bitmap(width: w, height: h, pixels: bytes)
        func means(_ b: Bitmap) -> [Double] {
            var sums = [Double](repeating: 0, count: 4)
            b.pixels.withUnsafeBufferPointer { p in
                for i in 0..<(b.width * b.height) { for c in 0..<4 { sums[c] += Double(p[i * 4 + c]) } }
            }
            return sums.map { $0 / Double(b.width * b.height) }
        }
        let before = means(source)
        for (ow, oh) in [(333, 187), (333, 1080), (1920, 187)] {
            let after = means(Resampler.resize(source, toPixelWidth: ow, pixelHeight: oh))
            for c in 0..<4 {
                XCTAssertEqual(after[c], before[c], accuracy: 1, "channel \(c) mean at \(ow)x\(oh)")
            }
        }
    }

    // MARK: - Growing

    func testBilinearUpscaleOf2x2ByHand() {
        // Source greys:  A 0   B 200
        //                C 100 D 40
        // 2x up: output pixel i's centre i + 0.5 maps to source position (i + 0.5) / 2, i.e. between
        // source centres at index (i + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to 0...1:
        // weights on the first pixel 1, 0.75, 0.25, 0.
        // Rows after the horizontal pass:  top (0, 200) → 0, 50, 150, 200
        //                                  bottom (100, 40) → 100, 85, 55, 40
        // Output rows: 0 = top; 1 = 0.75 top + 0.25 bottom = 25, 58.75, 126.25, 160;
        // 2 = 0.25 top + 0.75 bottom = 75, 76.25, 78.75, 80; 3 = bottom. Rounded to nearest.
        let out = Resampler.resize(greys([[0, 200], [100, 40]]), toPixelWidth: 4, pixelHeight: 4)
        let expected = [
            [0, 50, 150, 200],
            [25, 59, 126, 160],
            [75, 76, 79, 80],
            [100, 85, 55, 40],
        ]
        for y in 0..<4 {
            for x in 0..<4 {
                let v = expected[y][x]
                XCTAssertEqual(pixel(out, x, y), [v, v, v, 255], "(\(x), \(y))")
            }
        }
    }

    func testMixedAxesShrinkOneGrowTheOther() {
        // 4x1 greys 0, 100, 200, 40 → 2x2: across, pairs average to 50 and 120; down, one source
        // row grows to two, both clamped to that row.
        let out = Resampler.resize(greys([[0, 100, 200, 40]]), toPixelWidth: 2, pixelHeight: 2)
        for y in 0..<2 {
            XCTAssertEqual(pixel(out, 0, y), [50, 50, 50, 255])
            XCTAssertEqual(pixel(out, 1, y), [120, 120, 120, 255])
        }
    }

    // MARK: - Alpha

    func testPremultipliedEdgesHaveNoDarkFringe() {
        // Half-transparent red is premultiplied (128, 0, 0, 128); next to it transparent (0, 0, 0, 0).
        // Filtering premultiplied values keeps r == a, so un-premultiplied the colour stays pure red.
        // (Filtering straight colour would mix in the transparent pixel's black: r < a.)
        let source = Bitmap(width: 2, height: 1, pixels: [128, 0, 0, 128, 0, 0, 0, 0])
        // Up 2x: weights on the red pixel 1, 0.75, 0.25, 0 → a = 128, 96, 32, 0.
        let up = Resampler.resize(source, toPixelWidth: 4, pixelHeight: 1)
        XCTAssertEqual(up.pixels, [128, 0, 0, 128, 96, 0, 0, 96, 32, 0, 0, 32, 0, 0, 0, 0])
        let straight = up.straightAlphaPixels()
        for i in 0..<3 {
            XCTAssertEqual(Array(straight[i * 4..<i * 4 + 4]).prefix(3), [255, 0, 0], "pixel \(i) un-premultiplied")
        }
        // Down: (128, 0, 0, 128), (0, 0, 0, 0), repeated, 4x1 → 2x1: (64, 0, 0, 64) each → straight 255.
        let stripes = Bitmap(width: 4, height: 1, pixels: [128, 0, 0, 128, 0, 0, 0, 0, 128, 0, 0, 128, 0, 0, 0, 0])
        let down = Resampler.resize(stripes, toPixelWidth: 2, pixelHeight: 1)
        XCTAssertEqual(down.pixels, [64, 0, 0, 64, 64, 0, 0, 64])
        XCTAssertEqual(Array(down.straightAlphaPixels().prefix(4)), [255, 0, 0, 64])

        // A larger soft edge, 3x up and 5x down: every pixel keeps r == a and g == b == 0.
        var bytes = [UInt8](repeating: 0, count: 10 * 10 * 4)
        for y in 0..<10 { for x in 0..<5 { bytes[(y * 10 + x) * 4] = 200; bytes[(y * 10 + x) * 4 + 3] = 200 } }
        let edge = Bitmap(width: 10, height: 10, pixels: bytes)
        for (ow, oh) in [(30, 30), (2, 2), (7, 3)] {
            let out = Resampler.resize(edge, toPixelWidth: ow, pixelHeight: oh)
            for y in 0..<oh {
                for x in 0..<ow {
                    let p = pixel(out, x, y)
                    XCTAssert(p[0] == p[3] && p[1] == 0 && p[2] == 0, "\(ow)x\(oh) (\(x), \(y)) is \(p)")
                }
            }
        }
    }

    // MARK: - Identity and edge cases

    func testSameSizeReturnsTheSamePixels() {
        var rng = XorShift(state: 42)
        var bytes = [UInt8](repeating: 0, count: 37 * 23 * 4)
        for i in 0..<(37 * 23) {
            let r = rng.next()
            let a = UInt8(truncatingIfNeeded: r)
            bytes[i * 4 + 3] = a
            // Keep it valid premultiplied: colour ≤ alpha.
            for c in 0..<3 { bytes[i * 4 + c] = a == 0 ? 0 : UInt8(truncatingIfNeeded: r >> (8 * (c + 1))) % a }
        }
        let source = Bitmap(width: 37, height: 23, scale: 2, pixels: bytes)
        let out = Resampler.resize(source, toPixelWidth: 37, pixelHeight: 23)
        XCTAssertEqual(out.pixels, bytes)
        XCTAssertEqual(out.scale, 2)

        // With padded rows in, the same pixels come out tightly packed.
        let stride = 37 * 4 + 12
        var padded = [UInt8](repeating: 99, count: stride * 23)
        for y in 0..<23 { for i in 0..<(37 * 4) { padded[y * stride + i] = bytes[y * 37 * 4 + i] } }
        let fromPadded = Resampler.resize(
            Bitmap(width: 37, height: 23, bytesPerRow: stride, pixels: padded),
            toPixelWidth: 37, pixelHeight: 23)
        XCTAssertEqual(Array(fromPadded.pixels.prefix(37 * 23 * 4)), bytes)
    }

    func testEmptySizes() {
        let source = Bitmap(width: 4, height: 4, fill: .red)
        let out = Resampler.resize(source, toPixelWidth: 0, pixelHeight: 5)
        XCTAssertEqual(out.width, 0)
        XCTAssertEqual(out.height, 5)
        let fromEmpty = Resampler.resize(Bitmap(width: 0, height: 0, pixels: []), toPixelWidth: 2, pixelHeight: 2)
        XCTAssertEqual(fromEmpty.pixels, [UInt8](repeating: 0, count: 16))
    }
}
