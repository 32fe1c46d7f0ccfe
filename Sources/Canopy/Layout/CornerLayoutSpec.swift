import CanopyGraphics
import Foundation

/// Puts a corner element (a badge) centred on a corner of its child, moved by `offset`
/// (`ASCornerLayoutSpec`). Sublayouts: child, corner.
public final class CornerLayoutSpec: LayoutElement {
    public enum Location: Sendable, Equatable {
        case topLeft, topRight, bottomLeft, bottomRight
    }

    public let style: Style
    public let layoutCache = LayoutCache()
    public let child: any LayoutElement
    public let corner: any LayoutElement
    public let location: Location
    public let offset: CGPoint
    /// Whether the spec's size includes the corner (true) or is the child's alone (false, the default:
    /// the corner then overflows).
    public let wrapsCorner: Bool

    public init(
        style: Style = Style(), child: any LayoutElement, corner: any LayoutElement,
        location: Location, offset: CGPoint = .zero, wrapsCorner: Bool = false
    ) {
        self.style = style
        self.child = child
        self.corner = corner
        self.location = location
        self.offset = offset
        self.wrapsCorner = wrapsCorner
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        let parent = definedParentSize(constrainedSize)
        let childLayout = child.layoutThatFits(constrainedSize, parentSize: parent)
        let cornerLayout = corner.layoutThatFits(constrainedSize, parentSize: parent)
        var childFrame = CGRect(origin: .zero, size: childLayout.size)
        let cornerSize = cornerLayout.size
        var cornerOrigin: CGPoint
        switch location {
        case .topLeft:
            cornerOrigin = CGPoint(x: -cornerSize.width / 2, y: -cornerSize.height / 2)
        case .topRight:
            cornerOrigin = CGPoint(x: childFrame.width - cornerSize.width / 2, y: -cornerSize.height / 2)
        case .bottomLeft:
            cornerOrigin = CGPoint(x: -cornerSize.width / 2, y: childFrame.height - cornerSize.height / 2)
        case .bottomRight:
            cornerOrigin = CGPoint(
                x: childFrame.width - cornerSize.width / 2,
                y: childFrame.height - cornerSize.height / 2)
        }
        cornerOrigin.x += offset.x
        cornerOrigin.y += offset.y
        var cornerFrame = CGRect(origin: cornerOrigin, size: cornerSize)

        var frame = childFrame
        if wrapsCorner {
            frame = childFrame.union(cornerFrame)
            frame.size = constrainedSize.clamp(frame.size)
        }
        // Shift both so the spec's frame starts at the origin.
        childFrame.origin.x -= frame.minX
        cornerFrame.origin.x -= frame.minX
        childFrame.origin.y -= frame.minY
        cornerFrame.origin.y -= frame.minY
        return Layout(
            element: self, size: frame.size,
            sublayouts: [
                childLayout.positioned(at: childFrame.origin), cornerLayout.positioned(at: cornerFrame.origin),
            ])
    }
}
