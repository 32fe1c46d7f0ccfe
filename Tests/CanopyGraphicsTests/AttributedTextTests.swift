@testable import CanopyGraphics
import Foundation
import XCTest

/// The CanopyGraphics attribute scope on Foundation's AttributedString.
final class AttributedTextTests: XCTestCase {
    private let lato16 = Font(family: "Lato", size: 16)

    func testDynamicMemberLookupSetsAndReadsEveryAttribute() {
        var text = AttributedString("Hello world")
        let shadow = TextShadow(color: .black, offset: CGSize(width: 1, height: 2), blurRadius: 3)
        let style = ParagraphStyle(alignment: .center, lineSpacing: 4, lineBreakMode: .truncatingMiddle)
        text.canopy.font = lato16
        text.foregroundColor = .red
        text.kern = 1.5
        text.shadow = shadow
        text.paragraphStyle = style
        let runs = Array(text.runs)
        XCTAssertEqual(runs.count, 1)
        XCTAssertEqual(runs[0].font, lato16)
        XCTAssertEqual(runs[0].foregroundColor, .red)
        XCTAssertEqual(runs[0].kern, 1.5)
        XCTAssertEqual(runs[0].shadow, shadow)
        XCTAssertEqual(runs[0].paragraphStyle, style)
        XCTAssertEqual(runs[0].canopy.font, lato16)
    }

    func testAttributesOnASubrangeMakeRuns() throws {
        var text = AttributedString("one two three", font: lato16, color: .white)
        let range = try XCTUnwrap(text.range(of: "two"))
        text[range].foregroundColor = .orange
        text[range].font = lato16.withSize(20)
        let runs = text.runs.map { (String(text[$0.range].characters), $0.foregroundColor, $0.font?.size) }
        XCTAssertEqual(runs.count, 3)
        XCTAssertEqual(runs[0].0, "one ")
        XCTAssertEqual(runs[1].0, "two")
        XCTAssertEqual(runs[1].1, .orange)
        XCTAssertEqual(runs[1].2, 20)
        XCTAssertEqual(runs[2].1, .white)
    }

    func testConvenienceInitialiserLeavesNilArgumentsUnset() {
        let text = AttributedString("x", font: lato16, color: .blue)
        let run = text.runs.first!
        XCTAssertEqual(run.font, lato16)
        XCTAssertEqual(run.foregroundColor, .blue)
        XCTAssertNil(run.kern)
        XCTAssertNil(run.shadow)
        XCTAssertNil(run.paragraphStyle)
    }

    func testAttributeContainerHelperMergesIntoText() {
        var text = AttributedString("abc")
        text.mergeAttributes(.canopy(font: lato16, kern: 2))
        XCTAssertEqual(text.runs.first?.font, lato16)
        XCTAssertEqual(text.runs.first?.kern, 2)
        XCTAssertNil(text.runs.first?.foregroundColor)
    }

    func testDifferentAttributesMakeDifferentStrings() {
        let a = AttributedString("same", font: lato16, color: .white)
        let b = AttributedString("same", font: lato16, color: .black)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a, AttributedString("same", font: lato16, color: .white))
    }

    func testDefaultsOfTheValueTypes() {
        XCTAssertEqual(ParagraphStyle.default.alignment, .natural)
        XCTAssertEqual(ParagraphStyle.default.lineSpacing, 0)
        XCTAssertEqual(ParagraphStyle.default.lineBreakMode, .wordWrapping)
        XCTAssertEqual(TextShadow(blurRadius: -2).blurRadius, 0, "a negative blur radius is clamped")
        XCTAssertEqual(String(TextLayout.defaultTruncationString.characters[...]), "\u{2026}")
    }
}
