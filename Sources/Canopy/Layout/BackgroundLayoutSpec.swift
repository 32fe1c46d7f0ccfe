import CanopyGraphics
import Foundation

/// Lays out its child, then the background exactly at the child's size behind it
/// (`ASBackgroundLayoutSpec`). Sublayouts: background, child.
public final class BackgroundLayoutSpec: LayoutElement {
    public let style: Style
    public let layoutCache = LayoutCache()
    public let child: any LayoutElement
    public let background: any LayoutElement

    public init(style: Style = Style(), child: any LayoutElement, background: any LayoutElement) {
        self.style = style
        self.child = child
        self.background = background
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        let content = child.layoutThatFits(constrainedSize, parentSize: constrainedSize.max)
        let back = background.layoutThatFits(SizeRange(exactly: content.size), parentSize: content.size)
        return Layout(element: self, size: content.size, sublayouts: [back, content])
    }
}
