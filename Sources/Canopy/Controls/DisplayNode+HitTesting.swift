import Foundation

/// Hit testing, as UIKit and Texture do it, over node frames.
///
/// - A node's tappable area is its bounds with `hitTestSlop` applied: negative insets grow it,
///   positive ones shrink it; an area shrunk to nothing (zero or negative width or height) takes
///   no point. The area is half-open, as `CGRect.contains` is: the minimum edges are in, the
///   maximum edges out.
/// - `hitTest(_:)` takes a point in the node's own coordinates. A hidden node, one with alpha
///   below 0.01, or one that does not take input (`isUserInteractionEnabled` false, which every
///   layer-backed node is) answers nil for its whole subtree. So does a node whose
///   `point(inside:)` is false: the area that takes the pointer is bounded by every ancestor's
///   own tappable area, and a subnode's slop (or its frame) reaching beyond its supernode's area
///   takes nothing there. To make it count, grow the supernode's `hitTestSlop` too (Texture's
///   advice). Otherwise the subnodes are asked front to back (the last subnode is on top), each
///   with the point moved into its coordinates by its frame's origin, and the first answer wins;
///   when none answers, the node itself is the hit.
/// - `clipsToBounds` only affects drawing, as in UIKit: a clipping node's tappable area is still
///   its bounds grown by its own slop, so a subnode may take the pointer in that slop, outside the
///   clipped drawing (the hit-test overlay marks such edges orange).
/// - A node has no bounds origin of its own: its subnodes' frames are in its bounds, which start
///   at zero, so hit testing uses frames alone. A node's layer may carry a `boundsOrigin` (a
///   scrolling layer above the node tree); that is outside the tree, and the caller maps window
///   points into the root's coordinates first (`NodeInputRouter.convertFromWindow`, or
///   `Layer.convertFromWindow`). A scrolling node, when there is one, must add its own offset.
extension DisplayNode {
    /// The node's tappable area in its own coordinates: the bounds with `hitTestSlop` applied.
    /// When the slop shrinks it to nothing its `size` has a width or height of zero or less (read
    /// `size`, not `width`, which CGRect makes positive).
    public var tappableArea: CGRect {
        let (frame, slop) = state.withLock { ($0.frame, $0.hitTestSlop) }
        return CGRect(origin: .zero, size: frame.size).inset(by: slop)
    }

    /// Whether `point` is in `tappableArea` (half-open; an empty area contains nothing).
    func isInTappableArea(_ point: CGPoint) -> Bool {
        // Raw origin and size: CGRect's minX, maxX and width standardise a negative size, which
        // would turn an area shrunk past nothing into a real one.
        let area = tappableArea
        let (x, y, width, height) = (area.origin.x, area.origin.y, area.size.width, area.size.height)
        guard width > 0, height > 0 else { return false }
        return point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }

    /// Whether the node takes part in hit testing at all: visible (not hidden, alpha at least
    /// 0.01) and taking input.
    var isHitTestable: Bool {
        state.withLock { s in
            !s.isHidden && s.alpha >= 0.01 && s.isUserInteractionEnabled && !s.isLayerBacked
        }
    }

    /// `hitTest(_:)`'s default (see the rules above).
    @MainActor
    func defaultHitTest(_ point: CGPoint) -> DisplayNode? {
        guard isHitTestable, self.point(inside: point) else { return nil }
        for subnode in subnodes.reversed() {
            let origin = subnode.frame.origin
            if let hit = subnode.hitTest(CGPoint(x: point.x - origin.x, y: point.y - origin.y)) {
                return hit
            }
        }
        return self
    }

    // MARK: Coordinates

    /// The node's origin in the tree's coordinates (the space the topmost ancestor's frame is in),
    /// or, when `ancestor` is given and is an ancestor (or the node itself), in `ancestor`'s own
    /// coordinates.
    private func origin(upTo ancestor: DisplayNode?) -> CGPoint {
        var p = CGPoint.zero
        var node: DisplayNode? = self
        while let current = node, current !== ancestor {
            let origin = current.frame.origin
            p.x += origin.x
            p.y += origin.y
            node = current.supernode
        }
        return p
    }

    /// Converts a point in the node's own coordinates to `node`'s; nil means the tree's coordinates
    /// (the space the topmost ancestor's frame is in, as UIKit's nil means the window). Both nodes
    /// are expected in one tree; for nodes of different trees each tree's space is taken as the
    /// same plane. Frames only (see the notes on bounds origins above). Any thread.
    public func convert(_ point: CGPoint, to node: DisplayNode?) -> CGPoint {
        let from = origin(upTo: nil)
        let to = node?.origin(upTo: nil) ?? .zero
        return CGPoint(x: point.x + from.x - to.x, y: point.y + from.y - to.y)
    }

    /// Converts a point in `node`'s coordinates (the tree's when nil) to the node's own.
    public func convert(_ point: CGPoint, from node: DisplayNode?) -> CGPoint {
        let from = node?.origin(upTo: nil) ?? .zero
        let to = origin(upTo: nil)
        return CGPoint(x: point.x + from.x - to.x, y: point.y + from.y - to.y)
    }

    /// Converts a rect in the node's own coordinates to `node`'s (the tree's when nil).
    public func convert(_ rect: CGRect, to node: DisplayNode?) -> CGRect {
        CGRect(origin: convert(rect.origin, to: node), size: rect.size)
    }

    /// Converts a rect in `node`'s coordinates (the tree's when nil) to the node's own.
    public func convert(_ rect: CGRect, from node: DisplayNode?) -> CGRect {
        CGRect(origin: convert(rect.origin, from: node), size: rect.size)
    }

    /// Whether the node is `node` or one of its descendants (UIKit's isDescendant(of:)).
    public func isDescendant(of node: DisplayNode) -> Bool {
        var current: DisplayNode? = self
        while let candidate = current {
            if candidate === node { return true }
            current = candidate.supernode
        }
        return false
    }

    /// A point in `ancestor`'s own coordinates converted to the node's, walking frames up to the
    /// ancestor only (the ancestor's own frame does not count). Nil when `ancestor` is not an
    /// ancestor of the node nor the node itself.
    func convert(_ point: CGPoint, fromAncestor ancestor: DisplayNode) -> CGPoint? {
        guard isDescendant(of: ancestor) else { return nil }
        let origin = origin(upTo: ancestor)
        return CGPoint(x: point.x - origin.x, y: point.y - origin.y)
    }
}
