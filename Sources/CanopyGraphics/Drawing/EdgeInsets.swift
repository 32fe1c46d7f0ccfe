import Foundation

/// Insets from each edge of a rectangle, with UIKit's meaning: positive insets shrink a rect,
/// negative insets grow it (as hitTestSlop uses them).
public struct EdgeInsets: Sendable, Hashable {
    public var top: CGFloat
    public var left: CGFloat
    public var bottom: CGFloat
    public var right: CGFloat

    public init(top: CGFloat = 0, left: CGFloat = 0, bottom: CGFloat = 0, right: CGFloat = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same inset on every edge.
    public init(all inset: CGFloat) {
        self.init(top: inset, left: inset, bottom: inset, right: inset)
    }

    public static let zero = EdgeInsets()

    public var horizontal: CGFloat { left + right }
    public var vertical: CGFloat { top + bottom }
}

extension CGRect {
    /// The rect with `insets` removed from its edges (grown where they are negative).
    public func inset(by insets: EdgeInsets) -> CGRect {
        CGRect(
            x: minX + insets.left, y: minY + insets.top,
            width: width - insets.horizontal, height: height - insets.vertical)
    }
}
