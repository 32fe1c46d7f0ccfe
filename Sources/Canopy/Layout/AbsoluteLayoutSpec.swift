import CanopyGraphics
import Foundation

/// Places children at their `style.layoutPosition` (`ASAbsoluteLayoutSpec`).
public final class AbsoluteLayoutSpec: LayoutElement {
    public enum Sizing: Sendable, Equatable {
        /// Take the range's max size where finite; wrap the children on an infinite axis.
        case `default`
        /// Wrap the children (the union of their frames and the origin), within the range.
        case sizeToFit
    }

    public let style: Style
    public let layoutCache = LayoutCache()
    public let sizing: Sizing
    public let children: [any LayoutElement]

    public init(style: Style = Style(), sizing: Sizing = .default, children: [any LayoutElement]) {
        self.style = style
        self.sizing = sizing
        self.children = children
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        var size = definedParentSize(constrainedSize)
        let parent = size
        var sublayouts: [Layout] = []
        for child in children {
            let values = child.style.valuesForLayout()
            let position = values.layoutPosition
            // A child's auto max is what is left of the max size past its position.
            let autoRange = SizeRange(
                min: .zero,
                max: CGSize(
                    width: constrainedSize.max.width - position.x,
                    height: constrainedSize.max.height - position.y))
            let childRange = values.sizeRange(parentSize: parent, autoRange: autoRange)
            sublayouts.append(child.layoutThatFits(childRange, parentSize: parent).positioned(at: position))
        }
        if sizing == .sizeToFit || size.width.isNaN {
            size.width = sublayouts.reduce(constrainedSize.min.width) { max($0, $1.frame.maxX) }
        }
        if sizing == .sizeToFit || size.height.isNaN {
            size.height = sublayouts.reduce(constrainedSize.min.height) { max($0, $1.frame.maxY) }
        }
        return Layout(element: self, size: constrainedSize.clamp(size), sublayouts: sublayouts)
    }
}
