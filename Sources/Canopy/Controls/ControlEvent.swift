/// One thing that happened to a control (Texture's ASControlNodeEvent, UIKit's UIControl.Event),
/// as a control's action handlers receive it. `ControlEvents` is a set of them.
public enum ControlEvent: Int, CaseIterable, Sendable, Hashable {
    /// The left button went down on the control (a single click).
    case touchDown
    /// The button went down again on the control within a multiple click (SDL's click count
    /// above 1); sent instead of `touchDown`, as Texture does.
    case touchDownRepeat
    /// The pointer moved while pressed, inside the control's tappable area (bounds and slop).
    case touchDragInside
    /// The pointer moved while pressed, outside the control's tappable area.
    case touchDragOutside
    /// The button went up within the control's expanded tracking area: the "click".
    case touchUpInside
    /// The button went up outside the expanded tracking area.
    case touchUpOutside
    /// The press was taken away: the pointer left the window, a second button went down, the
    /// control left the tree or was disabled.
    case touchCancel
    /// The control's value changed (switches, sliders); controls send it themselves.
    case valueChanged
}
