/// A set of `ControlEvent`s, to register an action for several at once or send several.
public struct ControlEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The set holding just `event`.
    public init(_ event: ControlEvent) { self.init(rawValue: 1 << UInt(event.rawValue)) }

    public static let touchDown = ControlEvents(.touchDown)
    public static let touchDownRepeat = ControlEvents(.touchDownRepeat)
    public static let touchDragInside = ControlEvents(.touchDragInside)
    public static let touchDragOutside = ControlEvents(.touchDragOutside)
    public static let touchUpInside = ControlEvents(.touchUpInside)
    public static let touchUpOutside = ControlEvents(.touchUpOutside)
    public static let touchCancel = ControlEvents(.touchCancel)
    public static let valueChanged = ControlEvents(.valueChanged)
    /// Every pointer event of a press.
    public static let allTouchEvents: ControlEvents = [
        .touchDown, .touchDownRepeat, .touchDragInside,
        .touchDragOutside, .touchUpInside, .touchUpOutside,
        .touchCancel,
    ]
    public static let allEvents = ControlEvents(rawValue: ~0)

    public func contains(_ event: ControlEvent) -> Bool { contains(ControlEvents(event)) }

    /// The events in the set, in `ControlEvent`'s order (the order actions are sent in).
    public var events: [ControlEvent] { ControlEvent.allCases.filter { contains($0) } }
}
