import Foundation

/// A shadow under text, as NSShadow: a colour, an offset in points (y down) and a blur radius
/// in points (0 = a sharp copy of the glyphs).
public struct TextShadow: Sendable, Hashable {
    public var color: Color
    public var offset: CGSize
    public var blurRadius: CGFloat

    public init(
        color: Color = Color(white: 0, alpha: 1.0 / 3.0), offset: CGSize = CGSize(width: 0, height: -3),
        blurRadius: CGFloat = 0
    ) {
        self.color = color
        self.offset = offset
        self.blurRadius = Self.usableBlurRadius(blurRadius)
    }

    /// The largest blur radius drawn, in points; larger (or non-finite) values are clamped.
    public static let maximumBlurRadius: CGFloat = 100

    /// A blur radius as drawing uses it: 0...maximumBlurRadius, NaN as 0.
    static func usableBlurRadius(_ radius: CGFloat) -> CGFloat {
        radius.isNaN ? 0 : min(maximumBlurRadius, max(0, radius))
    }
}
