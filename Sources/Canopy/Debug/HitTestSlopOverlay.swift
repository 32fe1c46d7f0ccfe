import Foundation

/// The geometry of the hit-test debug overlay (Texture's `ASControlNode.enableHitTestDebug`): for
/// each control that takes the pointer, where its tappable area is and which ancestors limit it.
/// Pure computation over the node tree; a backend fills the regions' pieces on top of everything.
///
/// A control is shown when it and every ancestor up to the root are visible (not hidden, alpha at
/// least 0.01) and take input, and it is enabled: exactly the controls the pointer can reach (as
/// Texture shows only controls with targets, ours take input only once they have an action).
/// Its region is its bounds grown by its `hitTestSlop`, then cut by each ancestor (the root
/// included):
/// - by the ancestor's own tappable area (bounds with its slop), which bounds what hit testing
///   reaches below it;
/// - by the ancestor's bounds when it clips to them, since what it hides cannot be shown.
///
/// Each cut edge is marked by what cut it last, that is by the tightest limit on that edge: dark
/// green (`Cut.tappableArea`) when an ancestor's tappable area ends there, a real limit; orange
/// (`Cut.clipping`) when a clipping ancestor's bounds end there strictly inside every ancestor's
/// tappable area, so the pointer is still taken beyond the edge but the overlay cannot show it.
/// A clipping ancestor without slop has its tappable area equal to its bounds, so it cuts dark
/// green, as in Texture, where orange needs the clipping ancestor to have slop. (Texture marks an
/// edge orange if any clipping ancestor cut it at any level; we colour the edge by the limit that
/// actually placed it.)
///
/// Texture stops climbing at a scroll view; there is no scrolling node yet, and a scrolled layer
/// above the root is accounted for by the root's window origin. The areas use the default
/// geometry (bounds and slop); a subclass that overrides `point(inside:)` with another shape is
/// shown by its rect.
package enum HitTestSlopOverlay {
    /// The tappable area: green at alpha 0.4.
    package static let fillColor = Color(red: 0, green: 1, blue: 0, alpha: 0.4)
    /// An edge an ancestor's tappable area cut: dark green (30, 90, 50) at alpha 0.7.
    package static let tappableAreaCutColor = Color(rgb8: 30, 90, 50, alpha: 0.7)
    /// An edge a clipping ancestor cut: orange at alpha 0.8.
    package static let clippingCutColor = Color(red: 1, green: 0.5, blue: 0, alpha: 0.8)
    /// The thickness of an edge's band, in points (at most half the region's width or height).
    package static let bandWidth: CGFloat = 2

    /// The regions of the controls in `root`'s tree, in drawing order (a node before its subnodes,
    /// earlier subnodes first). `origin` is where the origin of the space `root`'s frame is in
    /// lands in the window (zero when the root's supernode space is the window's). Reads the tree
    /// under the nodes' locks; call it on the main thread, where the tree changes.
    package static func regions(in root: DisplayNode, origin: CGPoint) -> [HitTestSlopRegion] {
        var regions: [HitTestSlopRegion] = []
        let frameOrigin = root.frame.origin
        visit(
            root, at: CGPoint(x: origin.x + frameOrigin.x, y: origin.y + frameOrigin.y),
            tappable: Limits(), clipping: Limits(), into: &regions)
        return regions
    }

    /// The regions, with the root placed where its layer is drawn (through any scrolled layers
    /// above it); at the window's origin when the root is not loaded.
    @MainActor
    package static func regions(in root: DisplayNode) -> [HitTestSlopRegion] {
        regions(in: root, origin: root.layerIfLoaded?.superlayer?.convertToWindow(.zero) ?? .zero)
    }

    // MARK: The walk

    /// The tightest edges met so far (window points); infinite when nothing limits.
    struct Limits {
        var minX = -CGFloat.infinity, minY = -CGFloat.infinity
        var maxX = CGFloat.infinity, maxY = CGFloat.infinity

        mutating func tighten(to rect: CGRect) {
            // Not via CGRect's own minX/maxX, which standardise a negative size: an area shrunk
            // past nothing must stay empty.
            minX = max(minX, rect.origin.x)
            minY = max(minY, rect.origin.y)
            maxX = min(maxX, rect.origin.x + rect.size.width)
            maxY = min(maxY, rect.origin.y + rect.size.height)
        }
    }

    /// `origin` is where the node's frame origin lands in the window.
    private static func visit(
        _ node: DisplayNode, at origin: CGPoint, tappable: Limits, clipping: Limits,
        into regions: inout [HitTestSlopRegion]
    ) {
        let (visible, size, slop, clips, subnodes) = node.state.withLock { s in
            (
                !s.isHidden && s.alpha >= 0.01 && s.isUserInteractionEnabled && !s.isLayerBacked,
                s.frame.size, s.hitTestSlop, s.clipsToBounds, s.subnodes
            )
        }
        guard visible else { return }
        let bounds = CGRect(origin: origin, size: size)
        let area = bounds.inset(by: slop)
        if let control = node as? ControlNode {
            // A disabled control takes no pointer, nor does anything in it.
            guard control.isEnabled else { return }
            if let region = region(of: control, area: area, tappable: tappable, clipping: clipping) {
                regions.append(region)
            }
        }
        var tappable = tappable, clipping = clipping
        tappable.tighten(to: area)
        if clips { clipping.tighten(to: bounds) }
        for subnode in subnodes {
            let frameOrigin = subnode.frame.origin
            visit(
                subnode, at: CGPoint(x: origin.x + frameOrigin.x, y: origin.y + frameOrigin.y),
                tappable: tappable, clipping: clipping, into: &regions)
        }
    }

    /// The region of a control whose own area (window points) is `area`, under its ancestors'
    /// limits; nil when nothing of it is left.
    static func region(of control: ControlNode, area: CGRect, tappable: Limits, clipping: Limits) -> HitTestSlopRegion? {
        let a = (
            minX: area.origin.x, minY: area.origin.y,
            maxX: area.origin.x + area.size.width, maxY: area.origin.y + area.size.height
        )
        guard a.maxX > a.minX, a.maxY > a.minY else { return nil }
        var cuts: [HitTestSlopRegion.Edge: HitTestSlopRegion.Cut] = [:]

        // Each edge moves in to the tightest limit; the cut is orange only when the clipping limit
        // is strictly tighter than the tappable one.
        let top = max(tappable.minY, clipping.minY)
        if top > a.minY { cuts[.top] = clipping.minY > tappable.minY ? .clipping : .tappableArea }
        let left = max(tappable.minX, clipping.minX)
        if left > a.minX { cuts[.left] = clipping.minX > tappable.minX ? .clipping : .tappableArea }
        let bottom = min(tappable.maxY, clipping.maxY)
        if bottom < a.maxY { cuts[.bottom] = clipping.maxY < tappable.maxY ? .clipping : .tappableArea }
        let right = min(tappable.maxX, clipping.maxX)
        if right < a.maxX { cuts[.right] = clipping.maxX < tappable.maxX ? .clipping : .tappableArea }

        let minX = max(a.minX, left), minY = max(a.minY, top)
        let maxX = min(a.maxX, right), maxY = min(a.maxY, bottom)
        guard maxX > minX, maxY > minY else { return nil }
        let rect = CGRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
        let (fill, bands) = tiles(of: rect, cuts: cuts)
        return HitTestSlopRegion(
            control: control, rect: rect, fill: fill, fillColor: fillColor,
            cuts: cuts, bands: bands)
    }

    /// Splits `rect` into the fill and a band per cut edge, without overlaps.
    static func tiles(of rect: CGRect, cuts: [HitTestSlopRegion.Edge: HitTestSlopRegion.Cut])
        -> (fill: CGRect, bands: [HitTestSlopRegion.Band])
    {
        let th = min(bandWidth, rect.height / 2)  // top and bottom bands
        let tv = min(bandWidth, rect.width / 2)  // left and right bands
        let top = cuts[.top], left = cuts[.left], bottom = cuts[.bottom], right = cuts[.right]
        func rank(_ cut: HitTestSlopRegion.Cut?) -> Int {
            switch cut {
            case nil: 0
            case .tappableArea: 1
            case .clipping: 2
            }
        }
        // A corner goes to the vertical band only when it outranks the horizontal one.
        func verticalOwns(_ vertical: HitTestSlopRegion.Cut?, _ horizontal: HitTestSlopRegion.Cut?) -> Bool {
            vertical != nil && rank(vertical) > rank(horizontal)
        }
        let leftTop = verticalOwns(left, top), leftBottom = verticalOwns(left, bottom)
        let rightTop = verticalOwns(right, top), rightBottom = verticalOwns(right, bottom)

        var bands: [HitTestSlopRegion.Band] = []
        func add(_ edge: HitTestSlopRegion.Edge, _ cut: HitTestSlopRegion.Cut?, _ band: CGRect) {
            guard let cut, band.width > 0, band.height > 0 else { return }
            bands.append(
                .init(
                    edge: edge, cut: cut, rect: band,
                    color: cut == .clipping ? clippingCutColor : tappableAreaCutColor))
        }
        add(
            .top, top,
            CGRect(
                x: rect.minX + (leftTop ? tv : 0), y: rect.minY,
                width: rect.width - (leftTop ? tv : 0) - (rightTop ? tv : 0), height: th))
        let leftY0 = rect.minY + (top != nil && !leftTop ? th : 0)
        let leftY1 = rect.maxY - (bottom != nil && !leftBottom ? th : 0)
        add(.left, left, CGRect(x: rect.minX, y: leftY0, width: tv, height: leftY1 - leftY0))
        add(
            .bottom, bottom,
            CGRect(
                x: rect.minX + (leftBottom ? tv : 0), y: rect.maxY - th,
                width: rect.width - (leftBottom ? tv : 0) - (rightBottom ? tv : 0), height: th))
        let rightY0 = rect.minY + (top != nil && !rightTop ? th : 0)
        let rightY1 = rect.maxY - (bottom != nil && !rightBottom ? th : 0)
        add(.right, right, CGRect(x: rect.maxX - tv, y: rightY0, width: tv, height: rightY1 - rightY0))

        let fill = CGRect(
            x: rect.minX + (left != nil ? tv : 0), y: rect.minY + (top != nil ? th : 0),
            width: rect.width - (left != nil ? tv : 0) - (right != nil ? tv : 0),
            height: rect.height - (top != nil ? th : 0) - (bottom != nil ? th : 0))
        return (fill, bands)
    }
}
