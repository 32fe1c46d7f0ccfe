import Canopy
import CSDL2
import Foundation

/// Turns SDL events into Canopy's input events.
///
/// Drops: SDL sends one SDL_DROPFILE per file or folder between SDL_DROPBEGIN and
/// SDL_DROPCOMPLETE; they become one `filesDropped` with every path, at the end.
///
/// Wheels: SDL's X11 backend reports whole clicks; its Wayland backend reports a trackpad's
/// movement as fractional `preciseY` in units of 10 surface pixels. A fractional value marks
/// the device as precise for the next half second, so a precise device's occasional whole
/// values are not mistaken for clicks.
struct EventTranslator {
    /// Points per unit of SDL's precise wheel value for a continuous (trackpad) source.
    static let pointsPerPreciseUnit: CGFloat = 10
    /// How long a fractional wheel value marks the device as precise.
    static let preciseLatch: TimeInterval = 0.5

    private var lastFractionalWheel: TimeInterval = -.infinity
    private var pointer = CGPoint.zero
    /// The paths of a drop in progress (between SDL_DROPBEGIN and SDL_DROPCOMPLETE), or nil.
    private var dropping: [String]?

    mutating func translate(_ event: SDL_Event, now: TimeInterval) -> InputEvent? {
        switch SDL_EventType(event.type) {
        case SDL_QUIT:
            return .quit
        case SDL_MOUSEMOTION:
            pointer = CGPoint(x: CGFloat(event.motion.x), y: CGFloat(event.motion.y))
            return .pointerMoved(pointer)
        case SDL_MOUSEBUTTONDOWN, SDL_MOUSEBUTTONUP:
            let b = event.button
            let point = CGPoint(x: CGFloat(b.x), y: CGFloat(b.y))
            let button = Self.button(b.button)
            return event.type == SDL_MOUSEBUTTONDOWN.rawValue
                ? .pointerDown(button, point, clickCount: Int(b.clicks)) : .pointerUp(button, point)
        case SDL_MOUSEWHEEL:
            let w = event.wheel
            let flip: CGFloat = w.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue ? -1 : 1
            // SDL's y is positive away from the user (scroll up); ours is positive downward.
            let dy = -CGFloat(w.preciseY) * flip
            let dx = CGFloat(w.preciseX) * flip
            if dy != dy.rounded() || dx != dx.rounded() { lastFractionalWheel = now }
            let location = CGPoint(x: CGFloat(w.mouseX), y: CGFloat(w.mouseY))
            if now - lastFractionalWheel < Self.preciseLatch {
                return .wheel(
                    WheelEvent(
                        kind: .precise, deltaX: dx * Self.pointsPerPreciseUnit,
                        deltaY: dy * Self.pointsPerPreciseUnit, location: location, time: now))
            }
            return .wheel(WheelEvent(kind: .clicks, deltaX: dx, deltaY: dy, location: location, time: now))
        case SDL_KEYDOWN, SDL_KEYUP:
            let k = event.key
            let mods = Self.modifiers(UInt32(k.keysym.mod))
            guard let key = Self.key(k.keysym.sym, modifiers: mods) else { return nil }
            return .key(
                KeyEvent(
                    key: key, modifiers: mods, isDown: event.type == SDL_KEYDOWN.rawValue,
                    isRepeat: k.repeat != 0, time: now))
        case SDL_TEXTINPUT:
            let text = withUnsafeBytes(of: event.text.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            return text.isEmpty ? nil : .text(text)
        case SDL_DROPBEGIN:
            dropping = []
            return nil
        case SDL_DROPFILE:
            // SDL hands over the path's memory: it is freed here, whatever happens to the event.
            guard let file = event.drop.file else { return nil }
            let path = String(cString: file)
            SDL_free(file)
            guard dropping != nil else { return .filesDropped([path]) }  // a drop without BEGIN
            dropping?.append(path)
            return nil
        case SDL_DROPTEXT:
            if let text = event.drop.file { SDL_free(text) }  // its memory is ours to free
            return nil
        case SDL_DROPCOMPLETE:
            defer { dropping = nil }
            guard let paths = dropping, !paths.isEmpty else { return nil }
            return .filesDropped(paths)
        case SDL_WINDOWEVENT:
            if event.window.event == UInt8(SDL_WINDOWEVENT_LEAVE.rawValue) { return .pointerExited }
            return nil
        default:
            return nil
        }
    }

    static func button(_ b: UInt8) -> PointerButton {
        switch Int32(b) {
        case SDL_BUTTON_LEFT: return .left
        case SDL_BUTTON_MIDDLE: return .middle
        case SDL_BUTTON_RIGHT: return .right
        default: return .other(Int(b))
        }
    }

    static func modifiers(_ mod: UInt32) -> KeyModifiers {
        var m: KeyModifiers = []
        if mod & (KMOD_LSHIFT.rawValue | KMOD_RSHIFT.rawValue) != 0 { m.insert(.shift) }
        if mod & (KMOD_LCTRL.rawValue | KMOD_RCTRL.rawValue) != 0 { m.insert(.control) }
        if mod & (KMOD_LALT.rawValue | KMOD_RALT.rawValue) != 0 { m.insert(.alt) }
        if mod & (KMOD_LGUI.rawValue | KMOD_RGUI.rawValue) != 0 { m.insert(.meta) }
        return m
    }

    static func key(_ sym: SDL_Keycode, modifiers: KeyModifiers) -> Key? {
        switch Int(sym) {
        case Int(SDLK_UP.rawValue): return .up
        case Int(SDLK_DOWN.rawValue): return .down
        case Int(SDLK_LEFT.rawValue): return .left
        case Int(SDLK_RIGHT.rawValue): return .right
        case Int(SDLK_PAGEUP.rawValue): return .pageUp
        case Int(SDLK_PAGEDOWN.rawValue): return .pageDown
        case Int(SDLK_HOME.rawValue): return .home
        case Int(SDLK_END.rawValue): return .end
        case Int(SDLK_SPACE.rawValue): return .space
        case Int(SDLK_RETURN.rawValue), Int(SDLK_KP_ENTER.rawValue): return .enter
        case Int(SDLK_ESCAPE.rawValue): return .escape
        case Int(SDLK_TAB.rawValue): return .tab
        case Int(SDLK_BACKSPACE.rawValue): return .backspace
        case Int(SDLK_F1.rawValue)...Int(SDLK_F12.rawValue): return .function(Int(sym) - Int(SDLK_F1.rawValue) + 1)
        case 33...126:
            return .character(Character(Unicode.Scalar(UInt8(sym))))
        default:
            return nil
        }
    }
}
