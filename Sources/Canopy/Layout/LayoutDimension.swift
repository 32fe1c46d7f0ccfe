import Foundation

/// A length that is resolved against the parent's size, as Texture's `ASDimension`. (Named so
/// that it needs no module prefix beside Foundation's `Dimension`, its units of measure.)
public enum LayoutDimension: Sendable, Equatable {
    /// No opinion: the context decides (the "auto" value of the resolution).
    case auto
    /// An absolute length in points.
    case points(CGFloat)
    /// A fraction (0...1 usually) of the parent's length on the same axis.
    case fraction(CGFloat)

    /// The length this dimension stands for, given the parent's length on its axis.
    ///
    /// `.auto` gives `autoValue`. A fraction of a parent whose length is not finite (the parent
    /// has no size yet: Texture passes NaN, "undefined") is also `autoValue`, so that a fractional
    /// size never turns into NaN or infinity.
    public func resolve(parent: CGFloat, auto autoValue: CGFloat) -> CGFloat {
        switch self {
        case .auto:
            return autoValue
        case .points(let value):
            return value
        case .fraction(let fraction):
            return parent.isFinite ? fraction * parent : autoValue
        }
    }
}
