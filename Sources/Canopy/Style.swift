import Foundation

/// How a child is aligned across a stack's cross axis (used by the future stack spec).
public enum AlignSelf: Sendable, Equatable {
    case auto, start, end, center, stretch, baselineFirst, baselineLast
}

/// The layout properties of one element, with Texture's (`ASLayoutElementStyle`) names and defaults.
///
/// Design choice: `Style` is a plain value (reference-free, `Sendable`, `Equatable`) and every element
/// keeps it in a `let`. Texture's style is mutable after creation, which forces every read to lock
/// and makes cached layouts stale when a property changes; here a spec is immutable once built, so
/// layout is a pure function of (element, size range, parent size) and its cache can never be stale.
/// Build a style with `Style { $0.width = .points(10) }` or by mutating a `var` copy.
public struct Style: Sendable, Equatable {
    // Size (ASLayoutElementSize).
    public var width: Dimension = .auto
    public var height: Dimension = .auto
    public var minWidth: Dimension = .auto
    public var maxWidth: Dimension = .auto
    public var minHeight: Dimension = .auto
    public var maxHeight: Dimension = .auto

    // Flexbox (read by the future stack spec).
    public var spacingBefore: CGFloat = 0
    public var spacingAfter: CGFloat = 0
    public var flexGrow: CGFloat = 0
    public var flexShrink: CGFloat = 0
    public var flexBasis: Dimension = .auto
    public var alignSelf: AlignSelf = .auto
    public var ascender: CGFloat = 0
    public var descender: CGFloat = 0

    // Absolute layout.
    public var layoutPosition: CGPoint = .zero

    public init() {}

    /// A style configured by `configure`, e.g. `Style { $0.preferredSize = CGSize(width: 10, height: 20) }`.
    public init(_ configure: (inout Style) -> Void) {
        configure(&self)
    }

    /// Width and height in points. Setting it sets `width` and `height` to `.points`; reading it gives
    /// the point values, 0 for an axis that is not in points (Texture asserts there instead).
    public var preferredSize: CGSize {
        get { CGSize(width: Self.points(width), height: Self.points(height)) }
        set {
            width = .points(newValue.width)
            height = .points(newValue.height)
        }
    }

    /// `minWidth` and `minHeight` in points (see `preferredSize`).
    public var minSize: CGSize {
        get { CGSize(width: Self.points(minWidth), height: Self.points(minHeight)) }
        set {
            minWidth = .points(newValue.width)
            minHeight = .points(newValue.height)
        }
    }

    /// `maxWidth` and `maxHeight` in points (see `preferredSize`).
    public var maxSize: CGSize {
        get { CGSize(width: Self.points(maxWidth), height: Self.points(maxHeight)) }
        set {
            maxWidth = .points(newValue.width)
            maxHeight = .points(newValue.height)
        }
    }

    private static func points(_ dimension: Dimension) -> CGFloat {
        if case .points(let value) = dimension { return value }
        return 0
    }

    /// The size range this style allows, resolved against `parentSize`
    /// (Texture's `ASLayoutElementSizeResolveAutoSize`).
    ///
    /// `width`/`height` give an exact length, `min*`/`max*` the bounds; an `.auto` min or max takes
    /// its value from `autoRange`. On each axis min wins over max and max wins over the exact
    /// (preferred) length: the exact length is clamped into [min, max], and with no exact length the
    /// range is [min, max(min, max)].
    public func sizeRange(parentSize: CGSize, autoRange: SizeRange = .unconstrained) -> SizeRange {
        let w = Self.resolveAxis(exact: width, min: minWidth, max: maxWidth, parent: parentSize.width,
                                 autoMin: autoRange.min.width, autoMax: autoRange.max.width)
        let h = Self.resolveAxis(exact: height, min: minHeight, max: maxHeight, parent: parentSize.height,
                                 autoMin: autoRange.min.height, autoMax: autoRange.max.height)
        return SizeRange(min: CGSize(width: w.min, height: h.min), max: CGSize(width: w.max, height: h.max))
    }

    private static func resolveAxis(exact: Dimension, min: Dimension, max: Dimension, parent: CGFloat,
                                    autoMin: CGFloat, autoMax: CGFloat) -> (min: CGFloat, max: CGFloat) {
        let lower = min.resolve(parent: parent, auto: autoMin)
        let upper = max.resolve(parent: parent, auto: autoMax)
        let exactValue = exact.resolve(parent: parent, auto: .nan)
        if !exactValue.isNaN {
            let value = Swift.max(lower, Swift.min(upper, exactValue))
            return (value, value)
        }
        return (lower, Swift.max(lower, upper))
    }
}
