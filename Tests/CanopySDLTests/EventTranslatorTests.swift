import Canopy
import CSDL2
import Foundation
import XCTest
@testable import CanopySDL

final class EventTranslatorTests: XCTestCase {
    private func wheel(_ preciseY: Float, flipped: Bool = false) -> SDL_Event {
        var e = SDL_Event()
        e.type = SDL_MOUSEWHEEL.rawValue
        e.wheel.preciseY = preciseY
        e.wheel.y = Int32(preciseY.rounded(.towardZero))
        e.wheel.direction = flipped ? SDL_MOUSEWHEEL_FLIPPED.rawValue : SDL_MOUSEWHEEL_NORMAL.rawValue
        return e
    }

    func testWholeWheelValuesAreClicksDownwardPositive() {
        var t = EventTranslator()
        guard case .wheel(let w)? = t.translate(wheel(-2), now: 1) else { return XCTFail("no wheel event") }
        XCTAssertEqual(w.kind, .clicks)
        XCTAssertEqual(w.deltaY, 2, "SDL's negative y is toward the user: scrolling down")
        guard case .wheel(let flipped)? = t.translate(wheel(-2, flipped: true), now: 2) else { return XCTFail() }
        XCTAssertEqual(flipped.deltaY, -2)
    }

    func testFractionalValuesArePreciseAndLatchTheDevice() {
        var t = EventTranslator()
        guard case .wheel(let a)? = t.translate(wheel(-0.3), now: 1) else { return XCTFail() }
        XCTAssertEqual(a.kind, .precise)
        XCTAssertEqual(a.deltaY, 3, accuracy: 1e-5, "0.3 units of 10 px")
        guard case .wheel(let b)? = t.translate(wheel(-1), now: 1.2) else { return XCTFail() }
        XCTAssertEqual(b.kind, .precise, "a whole value from a device just seen precise stays precise")
        XCTAssertEqual(b.deltaY, 10, accuracy: 1e-5)
        guard case .wheel(let c)? = t.translate(wheel(-1), now: 2) else { return XCTFail() }
        XCTAssertEqual(c.kind, .clicks, "the latch expires")
    }

    func testADropIsOneEventWithEveryPathAtItsEnd() {
        var t = EventTranslator()
        func event(_ type: SDL_EventType, _ path: String? = nil) -> SDL_Event {
            var e = SDL_Event()
            e.type = type.rawValue
            if let path { e.drop.file = SDL_strdup(path) }  // the translator frees it, as SDL's
            return e
        }
        XCTAssertNil(t.translate(event(SDL_DROPBEGIN), now: 1))
        XCTAssertNil(t.translate(event(SDL_DROPFILE, "/home/me/Pictures/ñandú 🐆.jpg"), now: 1))
        XCTAssertNil(t.translate(event(SDL_DROPFILE, "/home/me/Pictures/Holiday"), now: 1))
        XCTAssertEqual(
            t.translate(event(SDL_DROPCOMPLETE), now: 1),
            .filesDropped(["/home/me/Pictures/ñandú 🐆.jpg", "/home/me/Pictures/Holiday"]))
        // A file without a BEGIN (older SDL): at once. An empty drop: nothing.
        XCTAssertEqual(t.translate(event(SDL_DROPFILE, "/tmp/a.png"), now: 2), .filesDropped(["/tmp/a.png"]))
        XCTAssertNil(t.translate(event(SDL_DROPBEGIN), now: 3))
        XCTAssertNil(t.translate(event(SDL_DROPCOMPLETE), now: 3))
    }

    func testKeys() {
        XCTAssertEqual(
            EventTranslator.key(SDL_Keycode(SDLK_SLASH.rawValue), modifiers: .shift), .character("/"),
            "keys are keys; what they type comes as text")
        XCTAssertEqual(EventTranslator.key(SDL_Keycode(SDLK_f.rawValue), modifiers: []), .character("f"))
        XCTAssertEqual(EventTranslator.key(SDL_Keycode(SDLK_F1.rawValue), modifiers: []), .function(1))
        XCTAssertEqual(EventTranslator.key(SDL_Keycode(SDLK_F12.rawValue), modifiers: []), .function(12))
        XCTAssertEqual(EventTranslator.key(SDL_Keycode(SDLK_PAGEDOWN.rawValue), modifiers: []), .pageDown)
        XCTAssertEqual(EventTranslator.modifiers(UInt32(KMOD_LCTRL.rawValue | KMOD_RSHIFT.rawValue)), [.control, .shift])
    }

    func testTypedTextArrivesAsText() {
        var t = EventTranslator()
        var e = SDL_Event()
        e.type = SDL_TEXTINPUT.rawValue
        withUnsafeMutableBytes(of: &e.text.text) { raw in
            for (i, byte) in "?".utf8.enumerated() { raw[i] = byte }
            raw["?".utf8.count] = 0
        }
        XCTAssertEqual(t.translate(e, now: 0), .text("?"))
    }

    func testButtonsAndQuit() {
        var t = EventTranslator()
        var e = SDL_Event()
        e.type = SDL_MOUSEBUTTONDOWN.rawValue
        e.button.button = UInt8(SDL_BUTTON_LEFT)
        e.button.x = 12
        e.button.y = 34
        e.button.clicks = 2
        XCTAssertEqual(t.translate(e, now: 0), .pointerDown(.left, CGPoint(x: 12, y: 34), clickCount: 2))
        var q = SDL_Event()
        q.type = SDL_QUIT.rawValue
        XCTAssertEqual(t.translate(q, now: 0), .quit)
    }
}
