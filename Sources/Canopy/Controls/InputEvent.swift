import Foundation

/// Input, as Canopy sees it: backend-neutral, in points, in window coordinates.
public enum InputEvent: Sendable, Equatable {
    case pointerMoved(CGPoint)
    case pointerDown(PointerButton, CGPoint, clickCount: Int)
    case pointerUp(PointerButton, CGPoint)
    /// The pointer left the window.
    case pointerExited
    case wheel(WheelEvent)
    case key(KeyEvent)
    /// Text typed, as the keyboard layout produced it ("?" whatever keys make it).
    case text(String)
    /// The window's size in points and its pixel density (pixels per point) changed.
    case resized(CGSize, scale: CGFloat)
    /// The user asked to close the window.
    case quit
    /// Files or folders were dropped on the window (absolute paths, in the order given).
    case filesDropped([String])
}

public enum PointerButton: Sendable, Equatable {
    case left, middle, right, other(Int)
}

/// A wheel or trackpad scroll. Positive `deltaY` scrolls toward the end of the content
/// (the content moves up).
public struct WheelEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Whole detents of a mouse wheel (or a trackpad the backend reports as such):
        /// deltas count clicks, to be turned into an animated scroll.
        case clicks
        /// Fine-grained deltas in points, applied directly (trackpads, smooth wheels).
        case precise
    }
    public var kind: Kind
    public var deltaX: CGFloat
    public var deltaY: CGFloat
    public var location: CGPoint
    /// When the event happened (monotonic seconds).
    public var time: TimeInterval

    public init(kind: Kind, deltaX: CGFloat = 0, deltaY: CGFloat, location: CGPoint = .zero, time: TimeInterval) {
        self.kind = kind
        self.deltaX = deltaX
        self.deltaY = deltaY
        self.location = location
        self.time = time
    }
}

/// A key press or release.
public struct KeyEvent: Sendable, Equatable {
    public var key: Key
    public var modifiers: KeyModifiers
    public var isDown: Bool
    public var isRepeat: Bool
    public var time: TimeInterval

    public init(key: Key, modifiers: KeyModifiers = [], isDown: Bool = true, isRepeat: Bool = false, time: TimeInterval = 0) {
        self.key = key
        self.modifiers = modifiers
        self.isDown = isDown
        self.isRepeat = isRepeat
        self.time = time
    }
}

/// The keys Canopy names. Printable keys arrive as `.character` with the key's unshifted
/// character (lowercase letters); what they type arrives separately as `InputEvent.text`.
public enum Key: Sendable, Hashable {
    case up, down, left, right
    case pageUp, pageDown, home, end
    case space, enter, escape, tab, backspace
    case function(Int)
    case character(Character)
    case unknown
}

public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let shift = KeyModifiers(rawValue: 1)
    public static let control = KeyModifiers(rawValue: 2)
    public static let alt = KeyModifiers(rawValue: 4)
    public static let meta = KeyModifiers(rawValue: 8)
}
