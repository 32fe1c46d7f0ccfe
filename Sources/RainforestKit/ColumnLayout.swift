import Canopy
import Foundation

/// The tutorial's collection layout: fixed-width columns, centred, each stacking its items by
/// their own heights. Two columns when the container is at least `twoColumnMinimumWidth` wide,
/// one below. Each item goes to the shortest column (the leftmost on a tie), so columns stay
/// even however the heights vary. Items are measured at the column's width, any height.
public struct ColumnLayout: CollectionLayout, Equatable {
    public var columnWidth: CGFloat
    public var spacing: CGFloat
    public var twoColumnMinimumWidth: CGFloat

    public init(columnWidth: CGFloat = 320, spacing: CGFloat = 10, twoColumnMinimumWidth: CGFloat = 650) {
        self.columnWidth = columnWidth
        self.spacing = spacing
        self.twoColumnMinimumWidth = twoColumnMinimumWidth
    }

    /// The number of columns for a container width.
    public func columnCount(forWidth width: CGFloat) -> Int {
        width >= twoColumnMinimumWidth ? 2 : 1
    }

    public func sizeRange(forItemAt index: Int, collectionWidth width: CGFloat) -> SizeRange {
        SizeRange(min: CGSize(width: columnWidth, height: 0), max: CGSize(width: columnWidth, height: .infinity))
    }

    /// Places items (each `columnWidth` wide, whatever width it measured) with `spacing` above
    /// the first row and below the last.
    public func layout(sizes: [CGSize], width: CGFloat) -> CollectionLayoutResult {
        layout(heights: sizes.map(\.height), width: width)
    }

    /// Places items of the given heights in a container `width` wide.
    public func layout(heights: [CGFloat], width: CGFloat) -> CollectionLayoutResult {
        let columns = columnCount(forWidth: width)
        let total = CGFloat(columns) * columnWidth + CGFloat(columns - 1) * spacing
        let left = max(0, ((width - total) / 2).rounded(.down))
        var bottoms = [CGFloat](repeating: spacing, count: columns)
        var frames: [CGRect] = []
        frames.reserveCapacity(heights.count)
        for height in heights {
            var column = 0
            for c in 1..<columns where bottoms[c] < bottoms[column] { column = c }
            let x = left + CGFloat(column) * (columnWidth + spacing)
            let h = height.isFinite ? max(0, height) : 0
            frames.append(CGRect(x: x, y: bottoms[column], width: columnWidth, height: h))
            bottoms[column] += h + spacing
        }
        return CollectionLayoutResult(frames: frames, contentHeight: bottoms.max() ?? spacing)
    }
}
