import Foundation

/// Anything that can be laid out: a spec or a node (Texture's `ASLayoutElement`).
///
/// Layout is pure: the same element, size range and parent size always give the same layout, so
/// it may run on any thread and is cached per element (`layoutCache`). An element's `style` (and a
/// stack's properties) may change after it is made, as in Texture; a change to a value that a
/// layout has read moves the layout generation on, so no cache answers with a stale layout. Two
/// threads measuring the same element with the same range at once may both compute it (the cache
/// lock is not held while measuring); they get equal layouts. A node whose content changes calls
/// `LayoutCache.invalidateAll()`.
///
/// A flexbox stack fits this protocol unchanged: it measures children with
/// `layoutThatFits(_:parentSize:)` as often as it needs (each measurement is cached), and reads
/// `flexGrow`, `flexShrink`, `flexBasis`, `alignSelf`, `spacingBefore`/`spacingAfter` and
/// `ascender`/`descender` from each child's `style`.
///
/// Implementers provide `style`, `layoutCache` and either `calculateLayoutThatFits(_:)` (specs) or
/// `calculateSizeThatFits(_:)` (leaves); the `layoutThatFits` entry points come from the extension.
public protocol LayoutElement: AnyObject, Sendable {
    var style: Style { get }
    var layoutCache: LayoutCache { get }

    /// The layout for `constrainedSize`, relative to a parent of size `constrainedSize.max`.
    func layoutThatFits(_ constrainedSize: SizeRange) -> Layout
    /// The layout for `constrainedSize` narrowed by this element's style resolved against
    /// `parentSize` (cached).
    func layoutThatFits(_ constrainedSize: SizeRange, parentSize: CGSize) -> Layout
    /// The layout within `constrainedSize`, which already includes the style's size.
    func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout
    /// A leaf's preferred size given the largest size it may take. The default returns `.zero`:
    /// the leaf's size then comes from the size range alone, which the style's width/height/min/max
    /// have already narrowed, so a leaf with a style size gets exactly that size and one without
    /// gets the range's minimum. A length that is not finite counts as 0, so a leaf may answer the
    /// size it is given (on an unbounded axis it then takes the range's minimum), as a node leaf does.
    func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize
}

extension LayoutElement {
    public func layoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        layoutThatFits(constrainedSize, parentSize: constrainedSize.max)
    }

    public func layoutThatFits(_ constrainedSize: SizeRange, parentSize: CGSize) -> Layout {
        let generation = LayoutCache.generation
        if let cached = layoutCache.layout(
            for: constrainedSize, parentSize: parentSize, element: self,
            generation: generation)
        {
            return cached
        }
        let resolved = constrainedSize.intersect(style.sizeRange(parentSize: parentSize))
        let computed = calculateLayoutThatFits(resolved)
        let layout = computed.positioned(at: .zero)
        layoutCache.store(layout, for: constrainedSize, parentSize: parentSize, generation: generation)
        return layout
    }

    /// This element after `configure` has set its style: `LayoutSpec().styled { $0.flexGrow = 1 }`.
    @discardableResult
    public func styled(_ configure: (Style) -> Void) -> Self {
        configure(style)
        return self
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        leafLayout(constrainedSize)
    }

    /// A leaf's layout: `calculateSizeThatFits` for the range's largest size, a length that is not
    /// finite counting as 0, clamped into the range (the default above, and a node without a spec).
    func leafLayout(_ constrainedSize: SizeRange) -> Layout {
        var size = calculateSizeThatFits(constrainedSize.max)
        if !size.width.isFinite { size.width = 0 }
        if !size.height.isFinite { size.height = 0 }
        return Layout(element: self, size: constrainedSize.clamp(size))
    }

    public func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        .zero
    }
}

extension LayoutElement {
    /// The layout of this element's content in `range` with `values` minus their main-axis min and
    /// max (a stack's flex base size ignores them, CSS §9.2.3). Not cached: a stack asks for it only
    /// for children that have a main-axis min or max and no main-axis length.
    func contentLayout(
        _ range: SizeRange, parentSize: CGSize, ignoringMainBoundsOf values: Style.Values,
        horizontal: Bool
    ) -> Layout {
        var unbounded = values
        if horizontal {
            unbounded.minWidth = .auto
            unbounded.maxWidth = .auto
        } else {
            unbounded.minHeight = .auto
            unbounded.maxHeight = .auto
        }
        return calculateLayoutThatFits(range.intersect(unbounded.sizeRange(parentSize: parentSize)))
    }
}
