import CanopyGraphics
import Foundation

/// Lays out its child, then the overlay exactly at the child's size on top of it
/// (`ASOverlayLayoutSpec`). Sublayouts: child, overlay.
public final class OverlayLayoutSpec: LayoutElement {
    public let style: Style
    public let layoutCache = LayoutCache()
    public let child: any LayoutElement
    public let overlay: any LayoutElement

    public init(style: Style = Style(), child: any LayoutElement, overlay: any LayoutElement) {
        self.style = style
        self.child = child
        self.overlay = overlay
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        let content = child.layoutThatFits(constrainedSize, parentSize: constrainedSize.max)
        let over = overlay.layoutThatFits(SizeRange(exactly: content.size), parentSize: content.size)
        return Layout(element: self, size: content.size, sublayouts: [content, over])
    }
}
