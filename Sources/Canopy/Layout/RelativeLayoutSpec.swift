import CanopyGraphics
import Foundation

/// Places its child at the start, centre or end of each axis (`ASRelativeLayoutSpec`).
public final class RelativeLayoutSpec: LayoutElement {
    public enum Position: Sendable, Equatable {
        /// Not positioned on this axis: the child gets the range's minimum and sits at the start.
        case none
        case start, center, end

        var proportion: CGFloat {
            switch self {
            case .none, .start: return 0
            case .center: return 0.5
            case .end: return 1
            }
        }
    }

    public struct SizingOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Shrink the spec's width to the child's (within the range) instead of filling the max.
        public static let minimumWidth = SizingOptions(rawValue: 1 << 0)
        /// Shrink the spec's height to the child's.
        public static let minimumHeight = SizingOptions(rawValue: 1 << 1)
        public static let minimumSize: SizingOptions = [.minimumWidth, .minimumHeight]
    }

    public let style: Style
    public let layoutCache = LayoutCache()
    public let horizontalPosition: Position
    public let verticalPosition: Position
    public let sizingOptions: SizingOptions
    public let child: any LayoutElement

    public init(
        style: Style = Style(), horizontalPosition: Position, verticalPosition: Position,
        sizingOptions: SizingOptions = [], child: any LayoutElement
    ) {
        self.style = style
        self.horizontalPosition = horizontalPosition
        self.verticalPosition = verticalPosition
        self.sizingOptions = sizingOptions
        self.child = child
    }

    /// Texture's spelling (`sizingOption:`, singular).
    public convenience init(
        style: Style = Style(), horizontalPosition: Position, verticalPosition: Position,
        sizingOption: SizingOptions, child: any LayoutElement
    ) {
        self.init(
            style: style, horizontalPosition: horizontalPosition, verticalPosition: verticalPosition,
            sizingOptions: sizingOption, child: child)
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        let placed = Self.place(
            child, horizontally: horizontalPosition, vertically: verticalPosition,
            sizing: sizingOptions, in: constrainedSize)
        return Layout(element: self, size: placed.size, sublayouts: [placed.sublayout])
    }

    /// The spec's size and its child's placed layout for these positions and sizing
    /// (`CenterLayoutSpec` places its child with it too).
    static func place(
        _ child: any LayoutElement, horizontally horizontalPosition: Position,
        vertically verticalPosition: Position, sizing sizingOptions: SizingOptions,
        in constrainedSize: SizeRange
    ) -> (size: CGSize, sublayout: Layout) {
        let parent = definedParentSize(constrainedSize)
        let childMin = CGSize(
            width: horizontalPosition == .none ? constrainedSize.min.width : 0,
            height: verticalPosition == .none ? constrainedSize.min.height : 0)
        let sublayout = child.layoutThatFits(SizeRange(min: childMin, max: constrainedSize.max), parentSize: parent)
        // Fill the max where it is finite, else wrap the child.
        var size = constrainedSize.clamp(
            CGSize(
                width: parent.width.isNaN ? sublayout.size.width : parent.width,
                height: parent.height.isNaN ? sublayout.size.height : parent.height))
        size = constrainedSize.clamp(
            CGSize(
                width: sizingOptions.contains(.minimumWidth) ? min(size.width, sublayout.size.width) : size.width,
                height: sizingOptions.contains(.minimumHeight) ? min(size.height, sublayout.size.height) : size.height))
        let position = CGPoint(
            x: (size.width - sublayout.size.width) * horizontalPosition.proportion,
            y: (size.height - sublayout.size.height) * verticalPosition.proportion)
        return (size, sublayout.positioned(at: position))
    }
}
