import Foundation

/// Lays its children out in a row or a column with CSS flexbox semantics (`ASStackLayoutSpec`).
///
/// The main axis is the direction of the stack, the cross axis the other one. Children keep their
/// order. Each child is measured with an unbounded main axis (or at its `flexBasis`), the lengths
/// are flexed as CSS's "resolve flexible lengths" does (`flexGrow`, `flexShrink`, min/max clamping
/// with the space handed back to the other flexible children, grow factors below 1 taking only
/// their share), then the children are placed by `justifyContent` and aligned across by
/// `alignItems` / `alignSelf`. With `flexWrap = .wrap` children that do not fit the max main length
/// go to new lines, spaced by `lineSpacing` and distributed by `alignContent`.
///
/// The stack's own length on each axis is its content's, clamped to its size range (Texture's rule,
/// which is CSS's when the range is exact): children grow when their content is shorter than the
/// range's minimum and shrink when it is longer than the maximum. Every property may be changed
/// after creation, as in Texture; a change made after a layout read it invalidates cached layouts.
public final class StackLayoutSpec: LayoutElement {
    public enum Direction: Sendable, Equatable {
        case horizontal, vertical
    }

    /// Where the children go along the main axis when they do not fill it.
    public enum JustifyContent: Sendable, Equatable {
        case start, center, end
        /// The first child at the start, the last at the end, equal gaps between (start if the
        /// children overflow or there is only one).
        case spaceBetween
        /// Equal space around each child: half a gap at either end (centred on overflow).
        case spaceAround
        /// Equal gaps between children and at both ends (centred on overflow).
        case spaceEvenly
    }

    /// How children are aligned across the stack (each child's `alignSelf` may override it).
    public enum AlignItems: Sendable, Equatable {
        case start, end, center
        /// Children without a cross-axis size take the line's cross length (within their min/max).
        case stretch
        /// First baselines (`ascender`) lined up; horizontal stacks only (vertical ones use start).
        case baselineFirst
        /// Last baselines (at height + `descender`, the descender being negative) lined up;
        /// horizontal stacks only.
        case baselineLast
    }

    public enum FlexWrap: Sendable, Equatable {
        case noWrap, wrap
    }

    /// How the lines of a wrapping stack share its cross length.
    public enum AlignContent: Sendable, Equatable {
        case start, center, end, spaceBetween, spaceAround
        /// Free cross space is shared equally among the lines, which grow.
        case stretch
    }

    /// Everything that configures a stack, read by a layout in one piece.
    struct Configuration: Sendable, Equatable {
        var direction: Direction
        var spacing: CGFloat
        var justifyContent: JustifyContent
        var alignItems: AlignItems
        var flexWrap: FlexWrap
        var alignContent: AlignContent
        var lineSpacing: CGFloat
        var children: [any LayoutElement]

        static func == (a: Configuration, b: Configuration) -> Bool {
            a.direction == b.direction && a.spacing == b.spacing && a.justifyContent == b.justifyContent
                && a.alignItems == b.alignItems && a.flexWrap == b.flexWrap && a.alignContent == b.alignContent
                && a.lineSpacing == b.lineSpacing && a.children.count == b.children.count
                && zip(a.children, b.children).allSatisfy { $0 === $1 }
        }
    }

    public let style: Style
    public let layoutCache = LayoutCache()
    private let properties: LayoutProperties<Configuration>

    /// A stack; `StackLayoutSpec()` is a horizontal stack aligned to the start, children stretched
    /// across, as Texture's.
    public init(
        style: Style = Style(), direction: Direction = .horizontal, spacing: CGFloat = 0,
        justifyContent: JustifyContent = .start, alignItems: AlignItems = .stretch,
        flexWrap: FlexWrap = .noWrap, alignContent: AlignContent = .start, lineSpacing: CGFloat = 0,
        children: [any LayoutElement] = []
    ) {
        self.style = style
        properties = LayoutProperties(
            Configuration(
                direction: direction, spacing: spacing, justifyContent: justifyContent, alignItems: alignItems,
                flexWrap: flexWrap, alignContent: alignContent, lineSpacing: lineSpacing, children: children))
    }

    /// A vertical stack.
    public static func vertical(
        spacing: CGFloat = 0, justifyContent: JustifyContent = .start,
        alignItems: AlignItems = .stretch, children: [any LayoutElement] = []
    ) -> StackLayoutSpec {
        StackLayoutSpec(
            direction: .vertical, spacing: spacing, justifyContent: justifyContent,
            alignItems: alignItems, children: children)
    }

    /// A horizontal stack.
    public static func horizontal(
        spacing: CGFloat = 0, justifyContent: JustifyContent = .start,
        alignItems: AlignItems = .stretch, children: [any LayoutElement] = []
    ) -> StackLayoutSpec {
        StackLayoutSpec(
            direction: .horizontal, spacing: spacing, justifyContent: justifyContent,
            alignItems: alignItems, children: children)
    }

    var configuration: Configuration { properties.valueForLayout() }

    public var direction: Direction {
        get { properties.value.direction }
        set { properties.update { $0.direction = newValue } }
    }
    /// Space between adjacent children along the main axis (added to their spacingBefore/After).
    public var spacing: CGFloat {
        get { properties.value.spacing }
        set { properties.update { $0.spacing = newValue } }
    }
    public var justifyContent: JustifyContent {
        get { properties.value.justifyContent }
        set { properties.update { $0.justifyContent = newValue } }
    }
    public var alignItems: AlignItems {
        get { properties.value.alignItems }
        set { properties.update { $0.alignItems = newValue } }
    }
    public var flexWrap: FlexWrap {
        get { properties.value.flexWrap }
        set { properties.update { $0.flexWrap = newValue } }
    }
    public var alignContent: AlignContent {
        get { properties.value.alignContent }
        set { properties.update { $0.alignContent = newValue } }
    }
    /// Space between lines when the stack wraps.
    public var lineSpacing: CGFloat {
        get { properties.value.lineSpacing }
        set { properties.update { $0.lineSpacing = newValue } }
    }
    public var children: [any LayoutElement] {
        get { properties.value.children }
        set { properties.update { $0.children = newValue } }
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        StackLayoutAlgorithm(spec: self, configuration: configuration, range: constrainedSize).layout()
    }
}

extension StackLayoutSpec.AlignItems {
    /// The `alignSelf` of a child that leaves its alignment to the stack (`.auto`).
    var alignSelf: AlignSelf {
        switch self {
        case .start: return .start
        case .end: return .end
        case .center: return .center
        case .stretch: return .stretch
        case .baselineFirst: return .baselineFirst
        case .baselineLast: return .baselineLast
        }
    }
}
