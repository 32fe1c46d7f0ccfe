import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

/// Text in any script: a character Lato lacks is drawn with the system font fontconfig finds for
/// it (Noto's, which `make setup` installs): CJK, Arabic, Hebrew, Devanagari, colour emoji. Each
/// name is laid out and drawn, and no character is left to the missing-glyph box; with fallback
/// off (a machine without those fonts) the same names still lay out and draw, with boxes.
final class FontFallbackTests: XCTestCase {
    private static let names = [
        "森のジャガー 美洲豹",  // Japanese and Chinese
        "نمر أمريكي",  // Arabic
        "יגואר",  // Hebrew
        "जगुआर बाघ",  // Devanagari: conjuncts and vowel signs
        "jaguar 🐆 ñandú",  // emoji in Latin
    ]

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
    }

    override func tearDown() {
        FontFallback.isEnabled = true
        super.tearDown()
    }

    private func layout(_ text: String, size: CGFloat = 24) throws -> TextLayout {
        let font = Font(family: TestFonts.family, size: size, weight: .bold)
        return try TextLayout(AttributedString(text, font: font, color: .white), width: 800, fonts: TestFonts.registry)
    }

    /// Draws `layout` white on black and returns how many pixels it lit, and how many of them are
    /// coloured (not grey).
    private func draw(_ layout: TextLayout) -> (lit: Int, colored: Int) {
        // The layout's whole width: a right-to-left line sits at its right end.
        let context = GraphicsContext(
            pixelWidth: Int(layout.width) + 4, pixelHeight: Int(layout.size.height.rounded(.up)) + 4, scale: 1,
            fill: .black)
        layout.draw(in: context, at: CGPoint(x: 2, y: 2))
        let bitmap = context.makeBitmap()
        var lit = 0, colored = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                if max(p.r, p.g, p.b) > 40 { lit += 1 }
                if Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) > 60 { colored += 1 }
            }
        }
        return (lit, colored)
    }

    func testEveryScriptIsDrawnWithoutMissingGlyphBoxes() throws {
        let installed = FileManager.default.fileExists(atPath: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
        try XCTSkipUnless(installed, "the Noto fonts (make setup) are not installed")
        for name in Self.names {
            let layout = try layout(name)
            XCTAssertEqual(layout.missingGlyphs, [], "\(name): missing glyphs")
            XCTAssertEqual(layout.lineCount, 1, name)
            XCTAssertGreaterThan(draw(layout).lit, 100, "\(name) drew nothing")
        }
        // The emoji is drawn in its own colours, at the text's size (its font is a 109-pixel
        // bitmap strike, shrunk to the line).
        let emoji = try layout("🐆")
        XCTAssertGreaterThan(draw(emoji).colored, 50, "the leopard is not in colour")
        XCTAssertLessThan(emoji.size.height, 24 * 1.6)
        XCTAssertLessThan(emoji.size.width, 24 * 1.6)
        // The space after it is the text's own, not the emoji font's (as wide as an emoji).
        let spaced = try layout("🐆 b").size.width - emoji.size.width - (try layout("b").size.width)
        XCTAssertEqual(spaced, try layout("a b").size.width - (try layout("ab").size.width), accuracy: 2)
    }

    func testWithoutFallbackTheNamesStillLayOutWithBoxes() throws {
        FontFallback.isEnabled = false
        for name in Self.names {
            let layout = try layout(name, size: 23)  // a size no other test opened: no fallback style memo
            XCTAssertFalse(layout.missingGlyphs.isEmpty, "\(name): Lato has these?")
            XCTAssertGreaterThan(draw(layout).lit, 20, "\(name): not even boxes drawn")
        }
        // Lato's own characters are never missing.
        XCTAssertEqual(try layout("jaguar ñandú").missingGlyphs, [])
    }
}
