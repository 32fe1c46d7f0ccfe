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
    private let relative: RelativeLayoutSpec

    public init(style: Style = Style(), centeringOptions: CenteringOptions = .xy,
                sizingOptions: SizingOptions = [], child: any LayoutElement) {
        self.style = style
        self.centeringOptions = centeringOptions
        self.sizingOptions = sizingOptions
        self.child = child
        var relativeSizing: RelativeLayoutSpec.SizingOptions = []
        if sizingOptions.contains(.minimumX) { relativeSizing.insert(.minimumWidth) }
        if sizingOptions.contains(.minimumY) { relativeSizing.insert(.minimumHeight) }
        relative = RelativeLayoutSpec(
            horizontalPosition: centeringOptions.contains(.x) ? .center : .none,
            verticalPosition: centeringOptions.contains(.y) ? .center : .none,
            sizingOptions: relativeSizing, child: child)
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        // The inner relative spec has an empty style, so its resolved range is `constrainedSize`.
        let inner = relative.calculateLayoutThatFits(constrainedSize)
        return Layout(element: self, size: inner.size, sublayouts: inner.sublayouts)
    }
}
