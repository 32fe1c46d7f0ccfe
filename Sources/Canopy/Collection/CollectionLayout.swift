import Algorithms
import Foundation

/// How a `CollectionNode` places its items (the role of Texture's collection layout delegate):
/// the size range each item is measured in, and the frames of items of known sizes.
///
/// A layout is a value, used on the main thread when the collection places items and on the
/// workers when cells are measured; it must be a pure function of its inputs.
public protocol CollectionLayout: Sendable {
    /// The size range item `index` is measured against, in a collection `width` wide.
    func sizeRange(forItemAt index: Int, collectionWidth width: CGFloat) -> SizeRange

    /// Places items of the given sizes (measured, or estimated where not yet measured) in a
    /// collection `width` wide.
    func layout(sizes: [CGSize], width: CGFloat) -> CollectionLayoutResult
}

/// Placed items: each one's frame in the content's coordinates, and the content's height.
public struct CollectionLayoutResult: Sendable, Equatable {
    public let frames: [CGRect]
    public let contentHeight: CGFloat
    /// The running maximum of the frames' maxY up to each index, and the minimum of minY from
    /// each index on, for `indices(intersecting:)`.
    private let runningMaxBottom: [CGFloat]
    private let runningMinTop: [CGFloat]

    public init(frames: [CGRect], contentHeight: CGFloat) {
        self.frames = frames
        self.contentHeight = contentHeight
        var maxBottom = -CGFloat.infinity
        runningMaxBottom = frames.map {
            maxBottom = max(maxBottom, $0.maxY); return maxBottom
        }
        var minTop = CGFloat.infinity
        runningMinTop = frames.reversed().map {
            minTop = min(minTop, $0.minY); return minTop
        }.reversed()
    }

    public static let empty = CollectionLayoutResult(frames: [], contentHeight: 0)

    /// The indices of the items whose frames overlap `rect` (share some area: touching edges do
    /// not count), in index order: a bisection for the first item that can reach the rect, then a
    /// scan until no later item can (O(log n + k) for layouts whose items run down the content,
    /// as columns and lists do).
    public func indices(intersecting rect: CGRect) -> [Int] {
        guard !frames.isEmpty, !rect.isNull else { return [] }
        var result: [Int] = []
        // The running maximum only grows, so the items that can reach the rect are a suffix:
        // swift-algorithms' bisection finds where it starts.
        var i = runningMaxBottom.partitioningIndex { $0 >= rect.minY }
        while i < frames.count {
            if runningMinTop[i] > rect.maxY { break }
            if frames[i].overlaps(rect) { result.append(i) }
            i += 1
        }
        return result
    }

    /// The item at the top edge of a viewport scrolled to `offset` (the topmost of those
    /// crossing it, else the first below it), to keep in place across a relayout or an update.
    public func anchor(atOffset offset: CGFloat, viewport: CGSize) -> CollectionAnchor? {
        let rect = CGRect(x: 0, y: offset, width: max(1, viewport.width), height: max(1, viewport.height))
        guard let index = indices(intersecting: rect).min(by: { frames[$0].minY < frames[$1].minY }) else {
            return nil
        }
        return CollectionAnchor(index: index, distance: offset - frames[index].minY)
    }

    /// The offset that puts an anchor's item where it was relative to the viewport's top.
    public func offset(keeping anchor: CollectionAnchor) -> CGFloat {
        guard frames.indices.contains(anchor.index) else { return 0 }
        return frames[anchor.index].minY + anchor.distance
    }

    public static func == (a: CollectionLayoutResult, b: CollectionLayoutResult) -> Bool {
        a.frames == b.frames && a.contentHeight == b.contentHeight
    }
}

/// A reading position that survives a relayout: an item, and how far the viewport's top edge
/// is below that item's top.
public struct CollectionAnchor: Sendable, Equatable {
    public var index: Int
    public var distance: CGFloat

    public init(index: Int, distance: CGFloat) {
        self.index = index
        self.distance = distance
    }
}

extension CGRect {
    /// Whether the two rectangles share some area (an edge in common is not enough, unlike
    /// Foundation's `intersects` on Linux): what "in the viewport" and "in a range" mean.
    public func overlaps(_ other: CGRect) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }
}
