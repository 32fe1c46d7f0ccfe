import Foundation

/// How a child is aligned across a stack's cross axis, overriding the stack's `alignItems`.
public enum AlignSelf: Sendable, Equatable {
    case auto, start, end, center, stretch, baselineFirst, baselineLast
}

/// The layout properties of one element, with Texture's (`ASLayoutElementStyle`) names and defaults.
///
/// A style is a thread-safe object that belongs to its element, so that it can be changed after the
/// element is made, as in Texture: `spec.style.flexGrow = 1`. Every property is read and written
/// under the style's own lock; the layout engine reads one consistent snapshot at a time
/// (`valuesForLayout()`).
///
/// Changing a property of a style that a layout has already read makes every cached layout stale
/// (`LayoutCache.invalidateAll()`), so a layout can never be answered from a stale cache. Setting a
/// property to the value it already has, or configuring an element that was never laid out,
/// invalidates nothing: a cell that sets its children's styles in every layout pass keeps its cache.
public final class Style: Sendable {
    /// The plain values of a style: what a layout reads, in one consistent copy.
    public struct Values: Sendable, Equatable {
        // Size (ASLayoutElementSize).
        public var width: LayoutDimension = .auto
        public var height: LayoutDimension = .auto
        public var minWidth: LayoutDimension = .auto
        public var maxWidth: LayoutDimension = .auto
        public var minHeight: LayoutDimension = .auto
        public var maxHeight: LayoutDimension = .auto

        // Flexbox (read by `StackLayoutSpec` from its children).
        public var spacingBefore: CGFloat = 0
        public var spacingAfter: CGFloat = 0
        public var flexGrow: CGFloat = 0
        public var flexShrink: CGFloat = 0
        public var flexBasis: LayoutDimension = .auto
        public var alignSelf: AlignSelf = .auto
        public var ascender: CGFloat = 0
        public var descender: CGFloat = 0

        // Absolute layout.
        public var layoutPosition: CGPoint = .zero

        public init() {}

        /// The size range these values allow, resolved against `parentSize`
        /// (Texture's `ASLayoutElementSizeResolveAutoSize`).
        ///
        /// `width`/`height` give an exact length, `min*`/`max*` the bounds; an `.auto` min or max
        /// takes its value from `autoRange`. On each axis min wins over max and max wins over the
        /// exact (preferred) length: the exact length is clamped into [min, max], and with no exact
        /// length the range is [min, max(min, max)].
        public func sizeRange(parentSize: CGSize, autoRange: SizeRange = .unconstrained) -> SizeRange {
            let w = Self.resolveAxis(
                exact: width, min: minWidth, max: maxWidth, parent: parentSize.width,
                autoMin: autoRange.min.width, autoMax: autoRange.max.width)
            let h = Self.resolveAxis(
                exact: height, min: minHeight, max: maxHeight, parent: parentSize.height,
                autoMin: autoRange.min.height, autoMax: autoRange.max.height)
            return SizeRange(min: CGSize(width: w.min, height: h.min), max: CGSize(width: w.max, height: h.max))
        }

        private static func resolveAxis(
            exact: LayoutDimension, min: LayoutDimension, max: LayoutDimension, parent: CGFloat,
            autoMin: CGFloat, autoMax: CGFloat
        ) -> (min: CGFloat, max: CGFloat) {
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

    private let properties: LayoutProperties<Values>

    public init(_ values: Values = Values()) {
        properties = LayoutProperties(values)
    }

    /// A style configured by `configure`, e.g. `Style { $0.preferredSize = CGSize(width: 10, height: 20) }`.
    public convenience init(_ configure: (Style) -> Void) {
        self.init()
        configure(self)
    }

    /// All the values at once (one lock); setting replaces them all.
    public var values: Values {
        get { properties.value }
        set { update { $0 = newValue } }
    }

    /// The values for a layout: a snapshot, after which changing this style invalidates cached layouts.
    public func valuesForLayout() -> Values {
        properties.valueForLayout()
    }

    /// The size range this style allows, resolved against `parentSize` (see `Values.sizeRange`).
    public func sizeRange(parentSize: CGSize, autoRange: SizeRange = .unconstrained) -> SizeRange {
        valuesForLayout().sizeRange(parentSize: parentSize, autoRange: autoRange)
    }

    private func update(_ change: (inout Values) -> Void) {
        properties.update(change)
    }

    public var width: LayoutDimension {
        get { values.width }
        set { update { $0.width = newValue } }
    }
    public var height: LayoutDimension {
        get { values.height }
        set { update { $0.height = newValue } }
    }
    public var minWidth: LayoutDimension {
        get { values.minWidth }
        set { update { $0.minWidth = newValue } }
    }
    public var maxWidth: LayoutDimension {
        get { values.maxWidth }
        set { update { $0.maxWidth = newValue } }
    }
    public var minHeight: LayoutDimension {
        get { values.minHeight }
        set { update { $0.minHeight = newValue } }
    }
    public var maxHeight: LayoutDimension {
        get { values.maxHeight }
        set { update { $0.maxHeight = newValue } }
    }
    /// Space before this child along a stack's main axis, added to the stack's spacing.
    public var spacingBefore: CGFloat {
        get { values.spacingBefore }
        set { update { $0.spacingBefore = newValue } }
    }
    /// Space after this child along a stack's main axis.
    public var spacingAfter: CGFloat {
        get { values.spacingAfter }
        set { update { $0.spacingAfter = newValue } }
    }
    /// The share of a stack's free space this child takes when the children do not fill it.
    public var flexGrow: CGFloat {
        get { values.flexGrow }
        set { update { $0.flexGrow = newValue } }
    }
    /// How much this child gives up, in proportion to its basis, when the children overflow.
    public var flexShrink: CGFloat {
        get { values.flexShrink }
        set { update { $0.flexShrink = newValue } }
    }
    /// The child's initial main-axis length before growing or shrinking (`.auto`: its measured size).
    public var flexBasis: LayoutDimension {
        get { values.flexBasis }
        set { update { $0.flexBasis = newValue } }
    }
    public var alignSelf: AlignSelf {
        get { values.alignSelf }
        set { update { $0.alignSelf = newValue } }
    }
    /// Distance from the top to the first baseline (text leaves set it; stacks propagate it).
    public var ascender: CGFloat {
        get { values.ascender }
        set { update { $0.ascender = newValue } }
    }
    /// Where the last baseline is, from the bottom, with a font's sign: negative, as the last baseline
    /// sits at height + descender (Texture's convention; text leaves set it to their font's descender).
    public var descender: CGFloat {
        get { values.descender }
        set { update { $0.descender = newValue } }
    }
    /// Where `AbsoluteLayoutSpec` places this child.
    public var layoutPosition: CGPoint {
        get { values.layoutPosition }
        set { update { $0.layoutPosition = newValue } }
    }

    /// Width and height in points. Setting it sets `width` and `height` to `.points`; reading it gives
    /// the point values, 0 for an axis that is not in points (Texture asserts there instead).
    public var preferredSize: CGSize {
        get { let v = values; return CGSize(width: Self.points(v.width), height: Self.points(v.height)) }
        set {
            update {
                $0.width = .points(newValue.width); $0.height = .points(newValue.height)
            }
        }
    }

    /// `minWidth` and `minHeight` in points (see `preferredSize`).
    public var minSize: CGSize {
        get { let v = values; return CGSize(width: Self.points(v.minWidth), height: Self.points(v.minHeight)) }
        set {
            update {
                $0.minWidth = .points(newValue.width); $0.minHeight = .points(newValue.height)
            }
        }
    }

    /// `maxWidth` and `maxHeight` in points (see `preferredSize`).
    public var maxSize: CGSize {
        get { let v = values; return CGSize(width: Self.points(v.maxWidth), height: Self.points(v.maxHeight)) }
        set {
            update {
                $0.maxWidth = .points(newValue.width); $0.maxHeight = .points(newValue.height)
            }
        }
    }

    private static func points(_ dimension: LayoutDimension) -> CGFloat {
        if case .points(let value) = dimension { return value }
        return 0
    }
}
