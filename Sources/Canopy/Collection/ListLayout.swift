import Foundation

// A general-purpose collection layout: one column of items, one under the other.

/// A list: one column of items (the table-style flow of Texture's `ASTableNode`, or a flow
/// layout with one item per row), each measured at the list's item width, any height, and
/// stacked in index order with `spacing` between items and around them.
///
/// The items are `itemWidth` wide, centred in the collection, or, when `itemWidth` is nil, as
/// wide as the collection less `spacing` on each side. The left edge is rounded down to a whole
/// point, so that cells start on a pixel boundary whatever the collection's width, and never
/// goes left of 0: in a collection narrower than the items, they keep their left edge and run
/// off the right.
public struct ListLayout: CollectionLayout, Equatable {
    /// The items' width, or nil for the collection's width less the spacing on both sides.
    public var itemWidth: CGFloat?
    /// Between items, above the first, below the last, and beside items of the collection's
    /// width.
    public var spacing: CGFloat

    public init(itemWidth: CGFloat? = nil, spacing: CGFloat = 10) {
        self.itemWidth = itemWidth
        self.spacing = spacing
    }

    /// The width items get in a collection `width` wide. Negative, NaN or infinite widths and
    /// spacings count as 0, so no setting can make a frame NaN.
    public func itemWidth(forCollectionWidth width: CGFloat) -> CGFloat {
        if let itemWidth { return Self.sanitized(itemWidth) }
        return max(0, Self.sanitized(width) - 2 * Self.sanitized(spacing))
    }

    public func sizeRange(forItemAt index: Int, collectionWidth width: CGFloat) -> SizeRange {
        let itemWidth = itemWidth(forCollectionWidth: width)
        return SizeRange(min: CGSize(width: itemWidth, height: 0), max: CGSize(width: itemWidth, height: .infinity))
    }

    /// Places items of the given sizes (each `itemWidth(forCollectionWidth:)` wide, whatever width
    /// it measured) one under the other. An empty list has no content: its height is 0.
    public func layout(sizes: [CGSize], width: CGFloat) -> CollectionLayoutResult {
        guard !sizes.isEmpty else { return .empty }
        let itemWidth = itemWidth(forCollectionWidth: width)
        let spacing = Self.sanitized(spacing)
        let left = max(0, ((Self.sanitized(width) - itemWidth) / 2).rounded(.down))
        var top = spacing
        var frames: [CGRect] = []
        frames.reserveCapacity(sizes.count)
        for size in sizes {
            let height = Self.sanitized(size.height)
            frames.append(CGRect(x: left, y: top, width: itemWidth, height: height))
            top += height + spacing
        }
        return CollectionLayoutResult(frames: frames, contentHeight: top)
    }

    /// `value` if finite and positive, else 0.
    private static func sanitized(_ value: CGFloat) -> CGFloat {
        value.isFinite && value > 0 ? value : 0
    }
}
