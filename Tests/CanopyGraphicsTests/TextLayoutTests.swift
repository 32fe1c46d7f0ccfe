@testable import CanopyGraphics
import CanopyTestSupport
import Foundation
import Synchronization
import XCTest

/// Fonts and helpers shared by the text tests.
enum TextFixtures {
    /// A registry of its own with the Lato faces, so the tests do not depend on the shared one.
    static let fonts = TestFonts.registry

    static let lato16 = Font(family: "Lato", size: 16)

    static func setUp() throws {
        try GraphicsLibrary.initialize()
        XCTAssertGreaterThanOrEqual(fonts.families.count, 1, "no fonts in \(TestResources.fontsDirectory)")
    }

    /// The width of `text` in whole pixels, as SDL_ttf measures one shaped line.
    static func pixels(_ text: String, _ font: Font = lato16, scale: CGFloat = 1) throws -> Int {
        Int((try fonts.width(of: text, font: font, scale: scale) * scale).rounded())
    }

    /// Points that are exactly `pixels` wide at `scale`.
    static func points(_ pixels: Int, scale: CGFloat = 1) -> CGFloat { CGFloat(pixels) / scale }

    /// The lines greedy word wrapping gives, measuring each candidate line as one shaped string
    /// (an oracle independent of TextLayout; words must each fit the width).
    static func expectedLines(_ text: String, width: CGFloat, font: Font = lato16, scale: CGFloat = 1) throws -> [String] {
        let available = Int((width * scale + 1e-6).rounded(.down))
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ").map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            let fits = try pixels(candidate, font, scale: scale) <= available
            if current.isEmpty || fits {
                current = candidate
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    static func layout(
        _ text: AttributedString, width: CGFloat, lines: Int = 0, truncation: AttributedString? = nil,
        scale: CGFloat = 1
    ) throws -> TextLayout {
        try TextLayout(
            text, width: width, maximumNumberOfLines: lines, truncationString: truncation,
            scale: scale, fonts: fonts)
    }

    static func plain(
        _ text: String, font: Font = lato16, color: Color = .black,
        style: ParagraphStyle? = nil
    ) -> AttributedString {
        AttributedString(text, font: font, color: color, paragraphStyle: style)
    }
}

final class TextLayoutTests: XCTestCase {
    typealias F = TextFixtures
    let sentence = "The quick brown fox jumps over the lazy dog near the riverbank while seven wild geese fly south"

    override func setUpWithError() throws { try F.setUp() }

    // MARK: Line breaking

    func testLinesBreakWhereTheMeasuredWidthsSay() throws {
        for scale in [CGFloat(1), 2] {
            // A width exactly as wide as four words keeps them; one pixel less pushes one down.
            let four = try F.pixels("The quick brown fox", scale: scale)
            for available in [four, four - 1, four + 37] {
                let width = F.points(available, scale: scale)
                let layout = try F.layout(F.plain(sentence), width: width, scale: scale)
                let expected = try F.expectedLines(sentence, width: width, scale: scale)
                XCTAssertEqual(layout.lines.map(\.text), expected, "width \(available) px at \(scale)x")
                XCTAssertEqual(layout.lineCount, expected.count)
                for line in layout.lines {
                    XCTAssertLessThanOrEqual(line.width, width)
                    XCTAssertEqual(line.width, CGFloat(try F.pixels(line.text, scale: scale)) / scale, "measured = shaped")
                }
            }
            let exact = try F.layout(F.plain(sentence), width: F.points(four, scale: scale), scale: scale)
            XCTAssertEqual(exact.lines.first?.text, "The quick brown fox")
            let less = try F.layout(F.plain(sentence), width: F.points(four - 1, scale: scale), scale: scale)
            XCTAssertEqual(less.lines.first?.text, "The quick brown")
        }
    }

    func testKnownStringGivesTheWorkedOutLineCount() throws {
        // "The quick brown fox jumps" is the widest five-word line of the sentence's start, so a
        // width just above it must hold it, and the rest follows the greedy rule.
        let width = F.points(try F.pixels("The quick brown fox jumps")) + 0.5
        let layout = try F.layout(F.plain(sentence), width: width)
        let expected = try F.expectedLines(sentence, width: width)
        XCTAssertEqual(layout.lines.first?.text, "The quick brown fox jumps")
        XCTAssertEqual(layout.lineCount, expected.count)
        XCTAssertGreaterThanOrEqual(layout.lineCount, 4)
        XCTAssertEqual(layout.size.height, CGFloat(layout.lineCount) * (try F.fonts.metrics(of: F.lato16).lineHeight))
        XCTAssertEqual(layout.size.width, layout.lines.map(\.width).max())
    }

    func testAWordLongerThanTheWidthBreaksBetweenCharacters() throws {
        let word = "Pneumonoultramicroscopic"
        let width = F.points(try F.pixels("Pneumono")) + 0.5
        let layout = try F.layout(F.plain("Hi " + word + " ok"), width: width)
        XCTAssertEqual(layout.lines.first?.text, "Hi", "a word that fits a line alone is not broken")
        XCTAssertEqual(layout.lines[1].text, "Pneumono")
        XCTAssertEqual(layout.lines.map(\.text).joined(), "Hi" + word + " ok", "the word's rest and the next word share a line")
        for line in layout.lines { XCTAssertLessThanOrEqual(line.width, width, line.text) }
    }

    func testBreaksNeverSplitAGraphemeCluster() throws {
        let text = String(repeating: "e\u{301}", count: 12) + "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}" + "ab"
        let attributed = F.plain(text)
        let layout = try F.layout(attributed, width: 18)
        XCTAssertGreaterThan(layout.lineCount, 3)
        XCTAssertEqual(layout.lines.map(\.text).joined(), text)
        var covered = 0
        for line in layout.lines {
            let scalar = try XCTUnwrap(line.text.unicodeScalars.first)
            XCTAssertNotEqual(scalar.value, 0x301, "a line starts with a combining mark")
            XCTAssertNotEqual(scalar.value, 0x200D, "a line starts inside an emoji sequence")
            XCTAssertEqual(String(attributed[line.range].characters[...]), line.text)
            covered += line.text.count
        }
        XCTAssertEqual(covered, text.count)
    }

    func testLinesBreakAfterHyphens() throws {
        let width = F.points(try F.pixels("well-known") - 1)
        let layout = try F.layout(F.plain("well-known facts"), width: width)
        XCTAssertEqual(layout.lines.first?.text, "well-")
        XCTAssertEqual(layout.lines.dropFirst().first?.text.hasPrefix("known"), true)
    }

    func testExplicitNewlinesEndParagraphs() throws {
        let text = F.plain("one\ntwo\n\nthree\n")
        let layout = try F.layout(text, width: 300)
        XCTAssertEqual(layout.lines.map(\.text), ["one", "two", "", "three", ""])
        XCTAssertEqual(String(text[layout.lines[0].range].characters[...]), "one\n")
        XCTAssertTrue(layout.lines[4].range.isEmpty)
        let lineHeight = try F.fonts.metrics(of: F.lato16).lineHeight
        XCTAssertEqual(layout.size.height, 5 * lineHeight)
        XCTAssertEqual(layout.lines[3].origin.y, 3 * lineHeight)
    }

    func testCharWrappingBreaksAnywhere() throws {
        let style = ParagraphStyle(lineBreakMode: .charWrapping)
        let width = F.points(try F.pixels("abc defg")) + 0.5
        let layout = try F.layout(F.plain("abc defghij", style: style), width: width)
        XCTAssertEqual(layout.lines.map(\.text), ["abc defg", "hij"])
        let words = try F.layout(F.plain("abc defghij"), width: width)
        XCTAssertEqual(words.lines.map(\.text), ["abc", "defghij"])
    }

    func testUnlimitedWidthKeepsEachParagraphOnOneLine() throws {
        let layout = try F.layout(F.plain("a long first paragraph\nsecond"), width: .infinity)
        XCTAssertEqual(layout.lines.map(\.text), ["a long first paragraph", "second"])
        XCTAssertEqual(layout.size.width, CGFloat(try F.pixels("a long first paragraph")))
    }

    // MARK: Truncation

    func testMaximumNumberOfLinesTruncatesTheTailOfTheLastLine() throws {
        let width: CGFloat = 150
        let full = try F.layout(F.plain(sentence), width: width)
        XCTAssertGreaterThan(full.lineCount, 3)
        XCTAssertFalse(full.isTruncated)
        let layout = try F.layout(F.plain(sentence), width: width, lines: 2)
        XCTAssertTrue(layout.isTruncated)
        XCTAssertEqual(layout.lineCount, 2)
        XCTAssertEqual(layout.lines[0].text, full.lines[0].text)
        XCTAssertFalse(layout.lines[0].isTruncated)
        let last = layout.lines[1]
        XCTAssertTrue(last.isTruncated)
        XCTAssertTrue(last.text.hasSuffix("\u{2026}"), last.text)
        XCTAssertLessThanOrEqual(last.width, width)
        XCTAssertEqual(last.width, CGFloat(try F.pixels(last.text)), "one segment, measured as drawn")
        // Only as many characters as needed went: one more (with the spaces before it) overflows.
        let kept = String(last.text.dropLast())
        let original = full.lines[1].text
        XCTAssertTrue(original.hasPrefix(kept), "\(kept) / \(original)")
        XCTAssertFalse(kept.hasSuffix(" "))
        if kept.count < original.count {
            var more = String(original.prefix(kept.count + 1))
            while more.hasSuffix(" ") && more.count < original.count { more = String(original.prefix(more.count + 1)) }
            XCTAssertGreaterThan(try F.pixels(more + "\u{2026}"), Int(width), "removed more than needed")
        }
        XCTAssertEqual(layout.size.height, 2 * (try F.fonts.metrics(of: F.lato16).lineHeight))
    }

    func testNoTruncationWhenTheLinesSuffice() throws {
        let full = try F.layout(F.plain(sentence), width: 150)
        let limited = try F.layout(F.plain(sentence), width: 150, lines: full.lineCount)
        XCTAssertFalse(limited.isTruncated)
        XCTAssertEqual(limited.lines.map(\.text), full.lines.map(\.text))
        let trailing = try F.layout(F.plain("abc\n\n  "), width: 150, lines: 1)
        XCTAssertFalse(trailing.isTruncated, "only empty paragraphs were left out")
        XCTAssertEqual(trailing.lines.map(\.text), ["abc"])
    }

    func testCustomAttributedTruncationString() throws {
        let more = AttributedString(" \u{2026} more", font: Font(family: "Lato", size: 16, weight: .bold), color: .red)
        let width: CGFloat = 160
        let layout = try F.layout(F.plain(sentence, color: .white), width: width, lines: 2, truncation: more)
        XCTAssertTrue(layout.isTruncated)
        let last = try XCTUnwrap(layout.lines.last)
        XCTAssertTrue(last.text.hasSuffix(" \u{2026} more"), last.text)
        XCTAssertLessThanOrEqual(last.width, width)
        let token = try XCTUnwrap(last.segments.last)
        XCTAssertTrue(token.containsTruncationString)
        XCTAssertEqual(token.text, " \u{2026} more")
        XCTAssertEqual(token.color, .red)
        XCTAssertEqual(token.font.weight, .bold)
        XCTAssertEqual(last.segments.first?.color, .white)
        XCTAssertEqual(last.width, last.segments.map(\.width).reduce(0, +))
    }

    func testTruncationStringTakesTheTextsAttributesItLacks() throws {
        let bold = Font(family: "Lato", size: 18, weight: .bold)
        let layout = try F.layout(AttributedString(sentence, font: bold, color: .green), width: 140, lines: 1)
        let token = try XCTUnwrap(layout.lines.last?.segments.last)
        XCTAssertEqual(layout.lines.last?.segments.count, 1, "same attributes: drawn as one segment")
        XCTAssertEqual(token.font, bold)
        XCTAssertEqual(token.color, .green)
    }

    func testHeadAndMiddleTruncationKeepTheEnds() throws {
        let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
        let width: CGFloat = 130
        let head = try F.layout(F.plain(text, style: ParagraphStyle(lineBreakMode: .truncatingHead)), width: width, lines: 1)
        let headLine = try XCTUnwrap(head.lines.first)
        XCTAssertTrue(head.isTruncated)
        XCTAssertTrue(headLine.text.hasPrefix("\u{2026}"), headLine.text)
        XCTAssertTrue(text.hasSuffix(String(headLine.text.dropFirst())), headLine.text)
        XCTAssertLessThanOrEqual(headLine.width, width)

        let middle = try F.layout(F.plain(text, style: ParagraphStyle(lineBreakMode: .truncatingMiddle)), width: width, lines: 1)
        let middleLine = try XCTUnwrap(middle.lines.first)
        let parts = middleLine.text.components(separatedBy: "\u{2026}")
        XCTAssertEqual(parts.count, 2, middleLine.text)
        XCTAssertTrue(text.hasPrefix(parts[0]) && !parts[0].isEmpty, middleLine.text)
        XCTAssertTrue(text.hasSuffix(parts[1]) && !parts[1].isEmpty, middleLine.text)
        XCTAssertLessThanOrEqual(abs(parts[0].count - parts[1].count), 3, "about as much kept at each end")
        XCTAssertLessThanOrEqual(middleLine.width, width)
    }

    func testClippingCutsWithoutATruncationString() throws {
        let style = ParagraphStyle(lineBreakMode: .clipping)
        let full = try F.layout(F.plain(sentence), width: 150)
        let clipped = try F.layout(F.plain(sentence, style: style), width: 150, lines: 2)
        XCTAssertTrue(clipped.isTruncated)
        XCTAssertEqual(clipped.lines.map(\.text), Array(full.lines.prefix(2).map(\.text)))
    }

    // MARK: Alignment, baselines, spacing

    func testJustifiedLinesFillTheWidthExactlyButTheLast() throws {
        for scale in [CGFloat(1), 2] {
            let width: CGFloat = 200
            let style = ParagraphStyle(alignment: .justified)
            let layout = try F.layout(F.plain(sentence + "\n" + sentence, style: style), width: width, scale: scale)
            let plain = try F.layout(F.plain(sentence + "\n" + sentence), width: width, scale: scale)
            XCTAssertEqual(layout.lines.map(\.text), plain.lines.map(\.text), "justifying does not move breaks")
            let lastOfParagraph = Set([plain.lineCount / 2 - 1, plain.lineCount - 1])
            for (i, line) in layout.lines.enumerated() {
                XCTAssertEqual(line.origin.x, 0)
                let right = try XCTUnwrap(line.segments.last.map { $0.origin.x + $0.width })
                if lastOfParagraph.contains(i) {
                    XCTAssertLessThan(line.width, width, "the last line of a paragraph is not stretched")
                    XCTAssertEqual(line.width, plain.lines[i].width)
                } else {
                    XCTAssertEqual(line.width, width, "line \(i) at \(scale)x")
                    XCTAssertEqual(right, width, "line \(i) at \(scale)x")
                    XCTAssertEqual(line.segments.count, line.text.split(separator: " ").count, "one segment a word")
                    for segment in line.segments {
                        XCTAssertEqual(segment.width, CGFloat(try F.pixels(segment.text, scale: scale)) / scale)
                    }
                }
            }
        }
    }

    func testCenterAndRightAlignmentOffsets() throws {
        let scale: CGFloat = 2
        let width: CGFloat = 200
        let wordPixels = try F.pixels("centered", scale: scale)
        let right = try F.layout(F.plain("centered", style: ParagraphStyle(alignment: .right)), width: width, scale: scale)
        XCTAssertEqual(right.lines[0].origin.x + right.lines[0].width, width)
        XCTAssertEqual(right.lines[0].origin.x, CGFloat(400 - wordPixels) / scale)
        let center = try F.layout(F.plain("centered", style: ParagraphStyle(alignment: .center)), width: width, scale: scale)
        XCTAssertEqual(center.lines[0].origin.x, CGFloat((400 - wordPixels) / 2) / scale)
        XCTAssertEqual(center.lines[0].segments[0].origin.x, center.lines[0].origin.x)
        let left = try F.layout(F.plain("centered", style: ParagraphStyle(alignment: .left)), width: width, scale: scale)
        XCTAssertEqual(left.lines[0].origin.x, 0)
        XCTAssertEqual(center.size, left.size, "size is the widest line, wherever it sits")
    }

    func testNaturalAlignmentFollowsTheParagraphsDirection() throws {
        let hebrew = try F.layout(F.plain("\u{05E9}\u{05DC}\u{05D5}\u{05DD} \u{05E2}\u{05D5}\u{05DC}\u{05DD}"), width: 300)
        XCTAssertEqual(hebrew.lines[0].origin.x + hebrew.lines[0].width, 300, "right-to-left: natural is right")
        XCTAssertTrue(hebrew.lines[0].segments.allSatisfy(\.isRightToLeft))
        let latin = try F.layout(F.plain("hello"), width: 300)
        XCTAssertEqual(latin.lines[0].origin.x, 0)
    }

    // MARK: Bidirectional text (UAX #9 through FriBiDi)

    /// The segments of a one-line layout in the order they are drawn, left to right.
    private static func drawnOrder(_ text: String, style: ParagraphStyle? = nil) throws -> [TextLayout.Segment] {
        let layout = try F.layout(F.plain(text, style: style), width: 2000)
        XCTAssertEqual(layout.lineCount, 1)
        return layout.lines[0].segments.sorted { $0.origin.x < $1.origin.x }
    }

    /// Where a segment holding `piece` is drawn, left to right among the segments.
    private static func place(of piece: String, in segments: [TextLayout.Segment]) -> Int? {
        segments.firstIndex { $0.text.contains(piece) }
    }

    func testNumbersInRightToLeftTextKeepTheirOrderAndTheWordsRunRightToLeft() throws {
        // "shalom 123 olam": in a right-to-left paragraph, olam is leftmost, then 123 (read left to
        // right), then shalom at the right.
        let shalom = "\u{05E9}\u{05DC}\u{05D5}\u{05DD}", olam = "\u{05E2}\u{05D5}\u{05DC}\u{05DD}"
        let segments = try Self.drawnOrder("\(shalom) 123 \(olam)")
        let number = try XCTUnwrap(segments.first { $0.text.contains("123") })
        XCTAssertFalse(number.isRightToLeft, "digits are shaped left to right, not as 321")
        XCTAssertEqual(number.text.trimmingCharacters(in: .whitespaces), "123")
        let order = [olam, "123", shalom].map { Self.place(of: $0, in: segments) }
        XCTAssertEqual(order.compactMap { $0 }.count, 3)
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted(), "\(segments.map(\.text))")
        XCTAssertTrue(segments.filter { $0.text.contains(shalom) || $0.text.contains(olam) }.allSatisfy(\.isRightToLeft))
    }

    func testARightToLeftNameInLeftToRightTextStaysInPlaceWithItsPunctuation() throws {
        // "photo of shalom.jpg (2)": a left-to-right paragraph; the Hebrew word alone runs right
        // to left, the extension and the bracketed number after it.
        let shalom = "\u{05E9}\u{05DC}\u{05D5}\u{05DD}"
        let segments = try Self.drawnOrder("photo of \(shalom).jpg (2)")
        let order = ["photo", shalom, ".", "jpg"].map { Self.place(of: $0, in: segments) }
        XCTAssertEqual(order.compactMap { $0 }.count, 4, "\(segments.map(\.text))")
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted(), "\(segments.map(\.text))")
        XCTAssertEqual(segments.filter(\.isRightToLeft).map(\.text), [shalom])
    }

    func testBracketsAroundANumberInRightToLeftTextStayWithIt() throws {
        // "shalom (2)": the pair belongs to the right-to-left run (drawn mirrored by HarfBuzz), the
        // 2 inside is left to right, and all of it is left of the word.
        let shalom = "\u{05E9}\u{05DC}\u{05D5}\u{05DD}"
        let segments = try Self.drawnOrder("\(shalom) (2)")
        let two = try XCTUnwrap(Self.place(of: "2", in: segments))
        let word = try XCTUnwrap(Self.place(of: shalom, in: segments))
        XCTAssertLessThan(two, word, "\(segments.map(\.text))")
        XCTAssertFalse(segments[two].isRightToLeft)
        let brackets = segments.filter { $0.text.contains("(") || $0.text.contains(")") }
        XCTAssertFalse(brackets.isEmpty)
        XCTAssertTrue(brackets.allSatisfy(\.isRightToLeft), "the brackets take the paragraph's direction")
    }

    func testExplicitOverridesAndEmbeddingsSetTheDirection() throws {
        // RLO "one two" PDF: the words are forced right to left, shaped as one right-to-left run.
        let overridden = try Self.drawnOrder("start \u{202E}one two\u{202C} end")
        let words = try XCTUnwrap(overridden.first { $0.text.contains("one") })
        XCTAssertTrue(words.text.contains("two"), "\(overridden.map(\.text))")
        XCTAssertTrue(words.isRightToLeft)
        XCTAssertEqual(overridden.filter(\.isRightToLeft).count, 1)
        // RLE around a Latin word and a Hebrew one: level 1 for the run, the Latin word at 2 inside
        // it, so the Hebrew word comes first from the left, then the Latin one, then "end".
        let shalom = "\u{05E9}\u{05DC}\u{05D5}\u{05DD}"
        let embedded = try Self.drawnOrder("start \u{202B}one \(shalom)\u{202C} end")
        let order = ["start", shalom, "one", "end"].map { Self.place(of: $0, in: embedded) }
        XCTAssertEqual(order.compactMap { $0 }.count, 4, "\(embedded.map(\.text))")
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted(), "\(embedded.map(\.text))")
        XCTAssertEqual(Set(order.compactMap { $0 }).count, 4, "four places: \(embedded.map(\.text))")
        // The controls themselves take no fallback font, and are never missing glyphs.
        let layout = try F.layout(F.plain("start \u{2067}123\u{2069} end"), width: 2000)
        XCTAssertEqual(layout.missingGlyphs, [])
        XCTAssertEqual(Set(layout.lines[0].segments.map(\.font.family)).count, 1, "\(layout.lines[0].segments.map(\.font))")
    }

    func testBaselinesAndLineHeights() throws {
        let metrics = try F.fonts.metrics(of: F.lato16)
        let layout = try F.layout(F.plain("one\ntwo\nthree"), width: 300)
        XCTAssertEqual(layout.firstBaseline, metrics.ascent)
        XCTAssertEqual(layout.lastBaseline, metrics.ascent + 2 * metrics.lineHeight)
        XCTAssertEqual(layout.size.height, 3 * metrics.lineHeight)
        XCTAssertEqual(layout.lines[1].baseline, layout.lines[1].origin.y + metrics.ascent)
        XCTAssertEqual(layout.lines[1].segments[0].origin.y, layout.lines[1].baseline)

        let big = Font(family: "Lato", size: 30, weight: .heavy)
        var mixed = F.plain("small ")
        mixed.append(AttributedString("BIG", font: big))
        mixed.append(F.plain(" small"))
        let line = try F.layout(mixed, width: 400)
        let bigMetrics = try F.fonts.metrics(of: big)
        XCTAssertEqual(line.lineCount, 1)
        XCTAssertEqual(line.firstBaseline, bigMetrics.ascent, "the tallest font sets the baseline")
        XCTAssertEqual(line.lines[0].height, bigMetrics.lineHeight)
        XCTAssertEqual(line.lines[0].segments.map(\.text), ["small ", "BIG", " small"])
        var expected: CGFloat = 0
        for segment in line.lines[0].segments {
            XCTAssertEqual(segment.origin.x, expected)
            expected += CGFloat(try F.pixels(segment.text, segment.font))
        }
        XCTAssertEqual(line.size.width, expected)
    }

    func testLineSpacingAddsSpaceBetweenLines() throws {
        let metrics = try F.fonts.metrics(of: F.lato16)
        let style = ParagraphStyle(lineSpacing: 5)
        let layout = try F.layout(F.plain(sentence, style: style), width: 150)
        let n = CGFloat(layout.lineCount)
        XCTAssertGreaterThan(layout.lineCount, 2)
        XCTAssertEqual(layout.size.height, n * metrics.lineHeight + (n - 1) * 5)
        XCTAssertEqual(layout.lines[2].origin.y, 2 * (metrics.lineHeight + 5))
        XCTAssertEqual(layout.lastBaseline, (n - 1) * (metrics.lineHeight + 5) + metrics.ascent)
    }

    // MARK: Kerning

    func testKernWidensTheLineByKernBetweenEachPairOfCharacters() throws {
        for scale in [CGFloat(1), 2] {
            let word = "kerning"
            let narrow = try F.layout(AttributedString(word, font: F.lato16, kern: 1), width: 300, scale: scale)
            let wide = try F.layout(AttributedString(word, font: F.lato16, kern: 3), width: 300, scale: scale)
            XCTAssertEqual(wide.size.width - narrow.size.width, 2 * CGFloat(word.count - 1), "at \(scale)x")
            // Each character is measured alone, the kern between them.
            var sum = 0
            for character in word { sum += try F.pixels(String(character), scale: scale) }
            let kernPixels = Int((1 * scale).rounded())
            XCTAssertEqual(narrow.size.width, CGFloat(sum + kernPixels * (word.count - 1)) / scale)
        }
    }

    // MARK: Edge cases

    func testEmptyString() throws {
        let layout = try F.layout(AttributedString(), width: 100, lines: 2)
        XCTAssertEqual(layout.lineCount, 0)
        XCTAssertEqual(layout.size, .zero)
        XCTAssertFalse(layout.isTruncated)
        XCTAssertEqual(layout.firstBaseline, 0)
        XCTAssertEqual(layout.lastBaseline, 0)
    }

    func testWhitespaceOnlyIsOneEmptyLine() throws {
        let layout = try F.layout(F.plain("    "), width: 100)
        XCTAssertEqual(layout.lineCount, 1)
        XCTAssertEqual(layout.size.width, 0)
        XCTAssertEqual(layout.size.height, try F.fonts.metrics(of: F.lato16).lineHeight)
        XCTAssertTrue(layout.lines[0].segments.isEmpty)
        XCTAssertEqual(layout.lines[0].text, "")
    }

    func testSpacesWhereLinesBreakHangAndAreNotMeasured() throws {
        let width = F.points(try F.pixels("alpha")) + 0.5
        let layout = try F.layout(F.plain("alpha      beta"), width: width)
        XCTAssertEqual(layout.lines.map(\.text), ["alpha", "beta"])
        XCTAssertEqual(layout.lines[0].width, CGFloat(try F.pixels("alpha")))
    }

    func testUnregisteredFamilyThrows() {
        XCTAssertThrowsError(try F.layout(AttributedString("x", font: Font(family: "Nope", size: 12)), width: 10)) { error in
            XCTAssertEqual(error as? FontError, .noSuchFamily("Nope"))
        }
    }

    func testRightToLeftAndEmojiTextLaysOutConsistently() throws {
        let samples = [
            "\u{645}\u{631}\u{62D}\u{628}\u{627} \u{628}\u{627}\u{644}\u{639}\u{627}\u{644}\u{645} \u{648}\u{645}\u{631}\u{62D}\u{628}\u{627}",
            "\u{05E9}\u{05DC}\u{05D5}\u{05DD} hello \u{05E2}\u{05D5}\u{05DC}\u{05DD} 123",
            "Family \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} flags \u{1F1EB}\u{1F1F7}\u{1F1E9}\u{1F1EA} done \u{1F600}",
            "mixed \u{645}\u{631}\u{62D}\u{628}\u{627} and \u{1F600}\ttab",
        ]
        for text in samples {
            for width: CGFloat in [30, 80, 272] {
                for scale: CGFloat in [1, 2] {
                    let attributed = F.plain(text)
                    let layout = try F.layout(attributed, width: width, lines: 0, scale: scale)
                    XCTAssertGreaterThan(layout.lineCount, 0)
                    XCTAssertEqual(
                        layout.lines.map { String(attributed[$0.range].characters[...]) }.joined(), text,
                        "the lines' ranges cover the text")
                    for line in layout.lines {
                        let sum = line.segments.reduce(CGFloat(0)) { $0 + $1.width }
                        XCTAssertEqual(line.width, sum, "segments add up to the line")
                        if line.text.count > 1 { XCTAssertLessThanOrEqual(line.width, width) }
                    }
                    let truncated = try F.layout(attributed, width: width, lines: 1, scale: scale)
                    XCTAssertLessThanOrEqual(truncated.lineCount, 1)
                }
            }
        }
        let arabic = try F.layout(F.plain(samples[0]), width: 400)
        XCTAssertTrue(arabic.lines[0].segments.allSatisfy(\.isRightToLeft))
    }

    func testLayoutsMadeOnManyThreadsAgree() throws {
        let reference = try F.layout(F.plain(sentence), width: 150, lines: 3, scale: 2)
        let results = Mutex<[[String]]>([])
        let text = sentence
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let layout = try? TextFixtures.layout(TextFixtures.plain(text), width: 150, lines: 3, scale: 2)
            results.withLock { $0.append(layout?.lines.map { "\($0.text)@\($0.width)" } ?? []) }
        }
        let expected = reference.lines.map { "\($0.text)@\($0.width)" }
        for result in results.withLock({ $0 }) { XCTAssertEqual(result, expected) }
    }
}

final class TextLayoutNarrowTruncationTests: XCTestCase {
    /// A truncation string wider than the layout clips the last line instead of overflowing.
    func testATruncationStringWiderThanTheLineClipsInstead() throws {
        try TextFixtures.setUp()
        let text = AttributedString("Lions rest in the shade at noon and hunt when it is cool", font: TextFixtures.lato16)
        let wide = AttributedString(" … read the whole story", font: TextFixtures.lato16)
        let width = TextFixtures.points(try TextFixtures.pixels("Lions rest"))  // narrower than the wide string
        XCTAssertGreaterThan(try TextFixtures.pixels(" … read the whole story"), try TextFixtures.pixels("Lions rest"))
        let layout = try TextLayout(
            text, width: width, maximumNumberOfLines: 1, truncationString: wide,
            scale: 1, fonts: TextFixtures.fonts)
        XCTAssertTrue(layout.isTruncated)
        XCTAssertEqual(layout.lineCount, 1)
        XCTAssertLessThanOrEqual(layout.size.width, width, "stays inside the width")
        XCTAssertEqual(layout.lines[0].text, "Lions rest")
    }
}
