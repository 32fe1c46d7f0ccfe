import CanopyGraphics
import Foundation

/// Lays out each child in the spec's own range at the origin; its size is the largest child's,
/// at least the range's minimum (`ASWrapperLayoutSpec`).
public final class WrapperLayoutSpec: LayoutElement {
    public let style: Style
    public let layoutCache = LayoutCache()
    public let children: [any LayoutElement]

    public init(style: Style = Style(), children: [any LayoutElement]) {
        self.style = style
        self.children = children
    }

    public convenience init(style: Style = Style(), child: any LayoutElement) {
        self.init(style: style, children: [child])
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        var size = constrainedSize.min
        var sublayouts: [Layout] = []
        for child in children {
            let sublayout = child.layoutThatFits(constrainedSize, parentSize: constrainedSize.max)
            size.width = max(size.width, sublayout.size.width)
            size.height = max(size.height, sublayout.size.height)
            sublayouts.append(sublayout)
        }
        return Layout(element: self, size: size, sublayouts: sublayouts)
    }
}
