import Canopy
import CanopyGraphics
import Foundation
import XCTest

@testable import RainforestKit

/// The scripted scroll the benchmarks share, and the floor's scene as the bare SDL program reads it.
final class CompositorFloorTests: XCTestCase {
    func testTheScrollBouncesBetweenTheTopAndTheEnd() {
        var scroll = BouncingScroll()
        XCTAssertEqual(scroll.advance(40, end: 100), 40)
        XCTAssertEqual(scroll.advance(40, end: 100), 80)
        XCTAssertEqual(scroll.advance(40, end: 100), 100, "stops at the end and turns")
        XCTAssertEqual(scroll.advance(30, end: 100), 70)
        XCTAssertEqual(scroll.advance(90, end: 100), 0, "stops at the top and turns")
        XCTAssertEqual(scroll.advance(10, end: 100), 10)
        // Content shorter than the viewport: it stays at the top.
        var short = BouncingScroll()
        XCTAssertEqual(short.advance(10, end: 0), 0)
        XCTAssertEqual(short.advance(10, end: 0), 0)
    }

    private func scene(scale: CGFloat) -> FloorScene {
        let opaque = Bitmap(width: 2, height: 2, fill: .black)
        let translucent = Bitmap(width: 2, height: 2, fill: Color(white: 1, alpha: 0.5))
        func card(_ frame: CGRect, _ bitmap: Bitmap) -> FloorScene.Card {
            .init(
                frame: frame, bitmap: bitmap, isOpaque: bitmap.pixelsAreOpaque, backgroundColor: .black, borderColor: nil,
                borderWidth: 0, cornerRadius: 0)
        }
        return FloorScene(
            viewport: CGRect(x: 0, y: 20, width: 300, height: 200), end: 700,
            cards: [
                card(CGRect(x: 10, y: 10, width: 100, height: 150), opaque),
                card(CGRect(x: 120.25, y: 10, width: 100, height: 180.5), translucent),
                card(CGRect(x: 10, y: 170, width: 100, height: 150), opaque),
            ], covered: 400, windowSize: CGSize(width: 300, height: 220), scale: scale)
    }

    func testTheVisibleCardsAreThoseMeetingTheViewport() {
        let scene = scene(scale: 1)
        XCTAssertEqual(scene.visibleCards(at: 0), [0, 1, 2])
        XCTAssertEqual(scene.visibleCards(at: 165), [1, 2])
        XCTAssertEqual(scene.visibleCards(at: 320), [])
    }

    func testTheBareScriptIsTheSceneInPixels() {
        let lines = scene(scale: 2).bareScript(speed: 1000, refresh: 120, frames: 300).split(separator: "\n")
        XCTAssertEqual(
            lines,
            [
                "window 600 440", "viewport 0 40 600 400", "end 1400", "speed 2000.0", "refresh 120.0", "frames 300",
                "card 20 20 200 300 1",
                // Edges rounded to whole pixels, as the compositor places them.
                "card 241 20 200 361 0",
                "card 20 340 200 300 1",
            ])
    }

    func testTheInstructionCountIsReadFromCallgrindsOutput() {
        let output = [
            "# callgrind format", "version: 1", "events: Ir", "fl=(1) main.c", "fn=(1) main", "16 3", "", "summary: 6217312345",
            "",
        ]
        XCTAssertEqual(InstructionBenchmark.totals(output.joined(separator: "\n")), 6_217_312_345)
        XCTAssertEqual(InstructionBenchmark.totals("events: Ir\ntotals: 42\n"), 42)
        XCTAssertNil(InstructionBenchmark.totals("events: Ir\nsummary: none\n"))
        XCTAssertNil(InstructionBenchmark.totals(""))
    }
}
