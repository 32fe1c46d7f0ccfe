import CanopyGraphics
import Foundation

// Layout specs follow Texture's semantics. Lengths are not rounded to pixels here (Texture rounds
// centred offsets with ASRoundPixelValue); rounding belongs to whoever turns layouts into layers.

/// A childless spec: it takes the smallest size its range allows, so its style alone sizes it
/// (a flexible spacer, or a fixed box with `preferredSize`). Texture's bare `ASLayoutSpec`.
public final class LayoutSpec: LayoutElement {
    public let style: Style
    public let layoutCache = LayoutCache()

    public init(style: Style = Style()) {
        self.style = style
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        Layout(element: self, size: constrainedSize.min)
    }
}
