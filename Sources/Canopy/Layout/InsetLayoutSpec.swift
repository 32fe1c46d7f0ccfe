import CanopyGraphics
import Foundation

/// Insets its child (`ASInsetLayoutSpec`). An infinite inset means "wrap the child": the child gets
/// no minimum on that axis and is pushed against the opposite edge (centred if both are infinite).
public final class InsetLayoutSpec: LayoutElement {
    public let style: Style
    public let layoutCache = LayoutCache()
    public let insets: EdgeInsets
    public let child: any LayoutElement

    public init(style: Style = Style(), insets: EdgeInsets, child: any LayoutElement) {
        self.style = style
        self.insets = insets
        self.child = child
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        func finite(_ value: CGFloat, _ fallback: CGFloat) -> CGFloat { value.isInfinite ? fallback : value }
        // On an axis with no finite max there is no far edge to push against: an infinite inset
        // there counts as 0 (Texture would give an infinite size and position).
        let wide = constrainedSize.max.width.isFinite, tall = constrainedSize.max.height.isFinite
        let insets = EdgeInsets(
            top: tall ? self.insets.top : finite(self.insets.top, 0),
            left: wide ? self.insets.left : finite(self.insets.left, 0),
            bottom: tall ? self.insets.bottom : finite(self.insets.bottom, 0),
            right: wide ? self.insets.right : finite(self.insets.right, 0))
        let insetsX = finite(insets.left, 0) + finite(insets.right, 0)
        let insetsY = finite(insets.top, 0) + finite(insets.bottom, 0)
        let minWidth = insets.left.isInfinite || insets.right.isInfinite ? 0 : constrainedSize.min.width
        let minHeight = insets.top.isInfinite || insets.bottom.isInfinite ? 0 : constrainedSize.min.height
        let childRange = SizeRange(
            min: CGSize(width: max(0, minWidth - insetsX), height: max(0, minHeight - insetsY)),
            max: CGSize(
                width: max(0, constrainedSize.max.width - insetsX),
                height: max(0, constrainedSize.max.height - insetsY)))
        let sublayout = child.layoutThatFits(childRange, parentSize: childRange.max)

        let size = constrainedSize.clamp(
            CGSize(
                width: finite(sublayout.size.width + insets.left + insets.right, constrainedSize.max.width),
                height: finite(sublayout.size.height + insets.top + insets.bottom, constrainedSize.max.height)))
        // An infinite leading inset places the child from the trailing one; both infinite centres it
        // in the range's max (Texture's choice, kept).
        let centerX = (constrainedSize.max.width - sublayout.size.width) / 2
        let centerY = (constrainedSize.max.height - sublayout.size.height) / 2
        let x = finite(
            insets.left,
            constrainedSize.max.width
                - (finite(insets.right, centerX) + sublayout.size.width))
        let y = finite(
            insets.top,
            constrainedSize.max.height
                - (finite(insets.bottom, centerY) + sublayout.size.height))
        return Layout(element: self, size: size, sublayouts: [sublayout.positioned(at: CGPoint(x: x, y: y))])
    }
}
