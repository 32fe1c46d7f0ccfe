/// A control's state (UIKit's UIControl.State, Texture's ASControlState): `normal` is the empty
/// set; a control may be highlighted and selected at once, and disabled with either.
public struct ControlState: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let normal: ControlState = []
    /// The pointer is down and within the control's expanded tracking area.
    public static let highlighted = ControlState(rawValue: 1 << 0)
    /// `isEnabled` is false.
    public static let disabled = ControlState(rawValue: 1 << 1)
    public static let selected = ControlState(rawValue: 1 << 2)
}
