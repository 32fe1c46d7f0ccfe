import CanopyGraphics
import Foundation

/// Centres its child on X, Y or both (`ASCenterLayoutSpec`, a relative spec with centre positions).
public final class CenterLayoutSpec: LayoutElement {
    public struct CenteringOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let x = CenteringOptions(rawValue: 1 << 0)
        public static let y = CenteringOptions(rawValue: 1 << 1)
        public static let xy: CenteringOptions = [.x, .y]
    }

    public struct SizingOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Take the child's width (within the range) instead of the max width.
        public static let minimumX = SizingOptions(rawValue: 1 << 0)
        /// Take the child's height instead of the max height.
        public static let minimumY = SizingOptions(rawValue: 1 << 1)
        public static let minimumXY: SizingOptions = [.minimumX, .minimumY]
    }

    public let style: Style
    public let layoutCache = LayoutCache()
    public let centeringOptions: CenteringOptions
    public let sizingOptions: SizingOptions
    public let child: any LayoutElement

    public init(
        style: Style = Style(), centeringOptions: CenteringOptions = .xy,
        sizingOptions: SizingOptions = [], child: any LayoutElement
    ) {
        self.style = style
        self.centeringOptions = centeringOptions
        self.sizingOptions = sizingOptions
        self.child = child
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        var sizing: RelativeLayoutSpec.SizingOptions = []
        if sizingOptions.contains(.minimumX) { sizing.insert(.minimumWidth) }
        if sizingOptions.contains(.minimumY) { sizing.insert(.minimumHeight) }
        let placed = RelativeLayoutSpec.place(
            child, horizontally: centeringOptions.contains(.x) ? .center : .none,
            vertically: centeringOptions.contains(.y) ? .center : .none,
            sizing: sizing, in: constrainedSize)
        return Layout(element: self, size: placed.size, sublayouts: [placed.sublayout])
    }
}
