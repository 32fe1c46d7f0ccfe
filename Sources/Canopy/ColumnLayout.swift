import Foundation

/// The tutorial's collection layout: fixed-width columns, centred, each stacking its items by
/// their own heights. Two columns when the container is at least `twoColumnMinimumWidth` wide,
/// one below. Each item goes to the shortest column (the leftmost on a tie), so columns stay
/// even however the heights vary.
public struct ColumnLayout: Sendable, Equatable {
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

    /// The placed items and the content's total height.
    public struct Result: Sendable, Equatable {
        public var frames: [CGRect]
        public var contentHeight: CGFloat
        public var columnCount: Int

        /// The indices of the items whose frames meet `rect`, in index order.
        public func indices(intersecting rect: CGRect) -> [Int] {
            // Bisect on the running maximum of maxY (non-decreasing) for the first item that
            // can reach the rect, then scan until the running minimum of the remaining minY
            // passes its bottom.
            guard !frames.isEmpty else { return [] }
            var result: [Int] = []
            var low = 0, high = frames.count
            while low < high {
                let mid = (low + high) / 2
                if runningMaxBottom[mid] < rect.minY { low = mid + 1 } else { high = mid }
            }
            var i = low
            while i < frames.count {
                let f = frames[i]
                if runningMinTop[i] > rect.maxY { break }
                if f.intersects(rect) { result.append(i) }
                i += 1
            }
            return result
        }

        /// The item at the top edge of a viewport scrolled to `offset` (the topmost of those
        /// crossing it, else the first below it), to keep in place across a relayout.
        public func anchor(atOffset offset: CGFloat, viewport: CGSize) -> Anchor? {
            let rect = CGRect(x: 0, y: offset, width: max(1, viewport.width), height: max(1, viewport.height))
            guard let index = indices(intersecting: rect).min(by: { frames[$0].minY < frames[$1].minY }) else {
                return nil
            }
            return Anchor(index: index, distance: offset - frames[index].minY)
        }

        /// The offset that puts an anchor's item where it was relative to the viewport's top.
        public func offset(keeping anchor: Anchor) -> CGFloat {
            guard frames.indices.contains(anchor.index) else { return 0 }
            return frames[anchor.index].minY + anchor.distance
        }

        /// The running maximum of the frames' maxY up to each index, and the minimum of minY
        /// from each index on, for `indices(intersecting:)`.
        fileprivate var runningMaxBottom: [CGFloat] = []
        fileprivate var runningMinTop: [CGFloat] = []

        public static func == (a: Result, b: Result) -> Bool {
            a.frames == b.frames && a.contentHeight == b.contentHeight && a.columnCount == b.columnCount
        }
    }

    /// A reading position that survives a relayout: an item, and how far the viewport's top
    /// edge is below that item's top.
    public struct Anchor: Sendable, Equatable {
        public var index: Int
        public var distance: CGFloat
    }

    /// Places items of the given heights (each `columnWidth` wide) in a container `width` wide,
    /// with `spacing` above the first row and below the last.
    public func layout(heights: [CGFloat], width: CGFloat) -> Result {
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
            frames.append(CGRect(x: x, y: bottoms[column], width: columnWidth, height: height))
            bottoms[column] += height + spacing
        }
        var result = Result(frames: frames, contentHeight: bottoms.max() ?? spacing, columnCount: columns)
        var maxBottom = -CGFloat.infinity
        result.runningMaxBottom = frames.map { maxBottom = max(maxBottom, $0.maxY); return maxBottom }
        var minTop = CGFloat.infinity
        result.runningMinTop = frames.reversed().map { minTop = min(minTop, $0.minY); return minTop }.reversed()
        return result
    }
}
