@testable import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

final class TextDrawingTests: XCTestCase {
    typealias F = TextFixtures
    let sentence = "The quick brown fox jumps over the lazy dog near the riverbank while seven wild geese fly south"

    override func setUpWithError() throws { try F.setUp() }

    /// The smallest pixel rectangle holding every pixel that `isInk` accepts.
    private func inkBounds(
        _ bitmap: Bitmap, rows: Range<Int>? = nil,
        isInk: (_ r: UInt8, _ a: UInt8) -> Bool
    ) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var result: (minX: Int, minY: Int, maxX: Int, maxY: Int)? = nil
        for y in rows ?? 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                guard isInk(p.r, p.a) else { continue }
                if let r = result {
                    result = (min(r.minX, x), min(r.minY, y), max(r.maxX, x + 1), max(r.maxY, y + 1))
                } else {
                    result = (x, y, x + 1, y + 1)
                }
            }
        }
        return result
    }

    private func draw(_ layout: TextLayout, margin: CGFloat = 10, background: Color? = nil) -> Bitmap {
        let size = CGSize(
            width: max(layout.width.isFinite ? layout.width : 0, layout.size.width) + 2 * margin,
            height: layout.size.height + 2 * margin)
        let context = GraphicsContext(size: size, scale: layout.scale, fill: background)
        layout.draw(in: context, at: CGPoint(x: margin, y: margin))
        return context.makeBitmap()
    }

    // MARK: Measurement equals drawing

    func testEverySegmentsBitmapIsExactlyAsWideAsMeasured() throws {
        var more = AttributedString(" \u{2026} more", font: Font(family: "Lato", size: 16, weight: .bold), color: .red)
        more.kern = 0
        var mixed = F.plain("small ")
        mixed.append(AttributedString("BIG heavy", font: Font(family: "Lato", size: 30, weight: .heavy)))
        mixed.append(AttributedString(" italic words", font: Font(family: "Lato", size: 16, italic: true)))
        let layouts: [TextLayout] = try [1, 2].flatMap { (scale: CGFloat) in
            [
                try F.layout(F.plain(sentence), width: 150, scale: scale),
                try F.layout(F.plain(sentence, style: ParagraphStyle(alignment: .justified)), width: 170, scale: scale),
                try F.layout(F.plain(sentence), width: 150, lines: 2, truncation: more, scale: scale),
                try F.layout(mixed, width: 140, scale: scale),
                try F.layout(AttributedString("kerned text", font: F.lato16, kern: 2.5), width: 300, scale: scale),
                try F.layout(F.plain("\u{645}\u{631}\u{62D}\u{628}\u{627} abc \u{1F600}"), width: 300, scale: scale),
            ]
        }
        var checked = 0
        for layout in layouts {
            for line in layout.lines {
                for segment in line.segments {
                    if segment.pieces.isEmpty {
                        let mask = try XCTUnwrap(
                            segment.handle.renderMask(
                                segment.text, direction: segment.direction,
                                scale: layout.scale))
                        XCTAssertEqual(mask.bitmap.width, segment.pixelWidth, "\"\(segment.text)\" at \(layout.scale)x")
                    } else {
                        let last = try XCTUnwrap(segment.pieces.last)
                        let mask = try XCTUnwrap(
                            segment.handle.renderMask(
                                last.text, direction: segment.direction,
                                scale: layout.scale))
                        XCTAssertEqual(last.x + mask.bitmap.width, segment.pixelWidth, "kerned \"\(segment.text)\"")
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 40)
    }

    func testInkLiesInsideTheMeasuredBoxAndReachesItsRightEdge() throws {
        for scale in [CGFloat(1), 2] {
            let layout = try F.layout(F.plain(sentence, color: .white), width: 150, scale: scale)
            let bitmap = draw(layout)
            let margin = Int(10 * scale)
            let ink = try XCTUnwrap(inkBounds(bitmap) { _, a in a > 0 })
            let right = margin + Int((layout.size.width * scale).rounded())
            XCTAssertGreaterThanOrEqual(ink.minX, margin)
            XCTAssertGreaterThanOrEqual(ink.minY, margin)
            XCTAssertLessThanOrEqual(ink.maxX, right)
            XCTAssertLessThanOrEqual(ink.maxY, margin + Int((layout.size.height * scale).rounded()))
            XCTAssertGreaterThanOrEqual(ink.maxX, right - Int(2 * scale), "the widest line's ink reaches the edge")
            // Line by line: the ink of each line's rows ends near that line's measured width.
            for line in layout.lines {
                let top = margin + Int((line.origin.y * scale).rounded())
                let rows = top..<(top + Int((line.height * scale).rounded()))
                let lineInk = try XCTUnwrap(inkBounds(bitmap, rows: rows) { _, a in a > 0 }, line.text)
                let lineRight = margin + Int(((line.origin.x + line.width) * scale).rounded())
                XCTAssertLessThanOrEqual(lineInk.maxX, lineRight, line.text)
                XCTAssertGreaterThanOrEqual(lineInk.maxX, lineRight - Int(2 * scale), line.text)
            }
        }
    }

    func testGlyphsTallerThanTheAscentStayOnTheBaseline() throws {
        let font = Font(family: "Lato", size: 40, weight: .black)
        let plain = try F.layout(AttributedString("AE", font: font, color: .white), width: 300)
        let accented = try F.layout(AttributedString("\u{C5}\u{C9}", font: font, color: .white), width: 300)
        let a = try XCTUnwrap(inkBounds(draw(plain)) { _, a in a > 128 })
        let b = try XCTUnwrap(inkBounds(draw(accented)) { _, a in a > 128 })
        XCTAssertEqual(a.maxY, b.maxY, "the letters sit on the same baseline")
        XCTAssertLessThan(b.minY, a.minY, "the accents reach higher")
    }

    // MARK: Shadows

    func testShadowIsDrawnUnderTheTextAtItsOffsetAndBlurred() throws {
        let font = Font(family: "Lato", size: 30, weight: .heavy)
        let grey = Color(white: 0.5)
        func picture(_ shadow: TextShadow?) throws -> Bitmap {
            draw(
                try F.layout(AttributedString("Shadow", font: font, color: .white, shadow: shadow), width: 300),
                margin: 20, background: grey)
        }
        let plain = try picture(nil)
        let sharp = try picture(TextShadow(color: .black, offset: CGSize(width: 6, height: 5), blurRadius: 0))
        let soft = try picture(TextShadow(color: .black, offset: CGSize(width: 6, height: 5), blurRadius: 3))
        let background = plain.pixel(x: 0, y: 0).r

        var sharpDark = 0, softDark = 0, halo = 0
        var sharpDarkest = 255, softDarkest = 255
        for y in 0..<plain.height {
            for x in 0..<plain.width {
                XCTAssertGreaterThanOrEqual(plain.pixel(x: x, y: y).r, background, "no shadow, nothing darker")
                let textAtOrigin = x >= 6 && y >= 5 ? Int(plain.pixel(x: x - 6, y: y - 5).r) > Int(background) + 8 : false
                let s = Int(sharp.pixel(x: x, y: y).r), f = Int(soft.pixel(x: x, y: y).r)
                if s < Int(background) - 2 {
                    sharpDark += 1
                    XCTAssertTrue(
                        x >= 6 && y >= 5 && plain.pixel(x: x - 6, y: y - 5).r > background,
                        "a sharp shadow pixel at (\(x), \(y)) has no glyph 6, 5 pixels up-left")
                }
                if f < Int(background) - 2 {
                    softDark += 1
                    if !textAtOrigin { halo += 1 }
                }
                sharpDarkest = min(sharpDarkest, s)
                softDarkest = min(softDarkest, f)
                if plain.pixel(x: x, y: y).r == 255 {
                    XCTAssertGreaterThanOrEqual(sharp.pixel(x: x, y: y).r, 252, "the shadow lies under the text")
                }
            }
        }
        XCTAssertGreaterThan(sharpDark, 200)
        XCTAssertLessThan(sharpDarkest, 10, "a sharp black shadow is black where no text covers it")
        XCTAssertGreaterThan(softDark, sharpDark, "blurring spreads the shadow")
        XCTAssertGreaterThan(halo, 150, "the blurred shadow darkens pixels around the offset glyphs")
        XCTAssertGreaterThan(softDarkest, sharpDarkest, "blurring softens it")
    }

    // MARK: Kerning, edge cases

    func testKernedCharactersAreDrawnApart() throws {
        let layout = try F.layout(
            AttributedString(
                "IIIII", font: Font(family: "Lato", size: 16, weight: .bold),
                color: .white, kern: 10), width: 300)
        let bitmap = draw(layout, margin: 4)
        var columns = [Bool](repeating: false, count: bitmap.width)
        for x in 0..<bitmap.width {
            for y in 0..<bitmap.height where bitmap.pixel(x: x, y: y).a > 64 { columns[x] = true; break }
        }
        var strokes: [Range<Int>] = []
        var x = 0
        while x < columns.count {
            if columns[x] {
                let start = x
                while x < columns.count && columns[x] { x += 1 }
                strokes.append(start..<x)
            } else {
                x += 1
            }
        }
        XCTAssertEqual(strokes.count, 5)
        for (a, b) in zip(strokes, strokes.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b.lowerBound - a.upperBound, 10, "the kern separates the letters")
        }
        XCTAssertLessThanOrEqual(strokes.last!.upperBound, 4 + Int(layout.size.width))
    }

    func testEmptyAndWhitespaceTextDrawNothing() throws {
        for text in ["", "   ", "\n\n"] {
            let layout = try F.layout(F.plain(text, color: .white), width: 100)
            let context = GraphicsContext(pixelWidth: 40, pixelHeight: 60)
            layout.draw(in: context, at: CGPoint(x: 2, y: 2))
            XCTAssertNil(inkBounds(context.makeBitmap()) { _, a in a > 0 }, "\"\(text)\"")
        }
    }

    func testRightToLeftAndEmojiTextDrawsInsideItsBox() throws {
        let samples = [
            "\u{645}\u{631}\u{62D}\u{628}\u{627} \u{628}\u{627}\u{644}\u{639}\u{627}\u{644}\u{645}",
            "\u{05E9}\u{05DC}\u{05D5}\u{05DD} hello \u{05E2}\u{05D5}\u{05DC}\u{05DD}",
            "emoji \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{1F1EB}\u{1F1F7} \u{1F600}",
        ]
        for text in samples {
            for scale: CGFloat in [1, 2] {
                let layout = try F.layout(F.plain(text, color: .white), width: 90, lines: 2, scale: scale)
                let bitmap = draw(layout)
                let ink = try XCTUnwrap(inkBounds(bitmap) { _, a in a > 0 }, "missing-glyph boxes are drawn")
                let margin = Int(10 * scale)
                XCTAssertGreaterThanOrEqual(ink.minX, margin)
                XCTAssertLessThanOrEqual(ink.maxX, margin + Int((90 * scale).rounded()))
                XCTAssertLessThanOrEqual(ink.maxY, margin + Int((layout.size.height * scale).rounded()))
            }
        }
    }

    func testFontRegistryRendersWhiteMasksAsWideAsMeasured() throws {
        for scale: CGFloat in [1, 2] {
            let mask = try F.fonts.renderMask("Mask me", font: F.lato16, scale: scale)
            XCTAssertEqual(mask.width, try F.pixels("Mask me", scale: scale))
            XCTAssertEqual(mask.scale, scale)
            var inked = 0
            for y in 0..<mask.height {
                for x in 0..<mask.width {
                    let p = mask.pixel(x: x, y: y)
                    XCTAssertTrue(p.r == p.a && p.g == p.a && p.b == p.a, "premultiplied white")
                    if p.a > 0 { inked += 1 }
                }
            }
            XCTAssertGreaterThan(inked, 40)
            let glyph = try XCTUnwrap(try F.fonts.glyphMetrics(of: "M", font: F.lato16, scale: scale))
            XCTAssertGreaterThan(glyph.advance, 8)
            XCTAssertGreaterThan(glyph.maxY, glyph.minY)
        }
    }

    // MARK: Golden

    /// A card's text block: a Lato Heavy 30 pt white title with a soft shadow over a dark
    /// background, and a 16 pt description wrapped to 272 pt and truncated at 6 lines.
    func testCardTextBlockMatchesItsGolden() throws {
        let scale: CGFloat = 2
        let shadow = TextShadow(color: Color(white: 0, alpha: 0.75), offset: CGSize(width: 0, height: 2), blurRadius: 4)
        let title = AttributedString(
            "Amazon Rainforest", font: Font(family: "Lato", size: 30, weight: .heavy),
            color: .white, shadow: shadow)
        let description = AttributedString(
            "Rainforests are forests characterized by a closed and continuous tree canopy, moisture-dependent "
                + "vegetation, the presence of epiphytes and lianas and the absence of wildfire. Rainforests can be "
                + "generally classified as tropical rainforests or temperate rainforests, but other types have been "
                + "described. They are home to more than half of all the species of plants and animals on Earth.",
            font: F.lato16, color: Color(white: 1, alpha: 0.9),
            shadow: TextShadow(color: Color(white: 0, alpha: 0.6), offset: CGSize(width: 0, height: 1), blurRadius: 2),
            paragraphStyle: ParagraphStyle(lineSpacing: 2))
        var more = AttributedString(
            " \u{2026} more", font: Font(family: "Lato", size: 16, weight: .bold),
            color: Color(rgb8: 140, 220, 160))
        more.shadow = nil
        let titleLayout = try TextLayout(title, width: 272, scale: scale, fonts: F.fonts)
        let body = try TextLayout(
            description, width: 272, maximumNumberOfLines: 6, truncationString: more,
            scale: scale, fonts: F.fonts)
        XCTAssertEqual(body.lineCount, 6)
        XCTAssertTrue(body.isTruncated)
        XCTAssertLessThanOrEqual(body.lines[5].width, 272)

        let context = GraphicsContext(size: CGSize(width: 304, height: 230), scale: scale, fill: Color(rgb8: 22, 34, 28))
        titleLayout.draw(in: context, at: CGPoint(x: 16, y: 14))
        body.draw(in: context, at: CGPoint(x: 16, y: 14 + titleLayout.size.height + 8))
        GoldenImage.assertMatches(context.makeBitmap(), named: "TextCard", tolerance: 3, maxDifferingFraction: 0.002)
    }
}
