import Foundation

/// An overlay scrollbar along the right edge of a viewport: it shows while the content
/// moves or the pointer is near, fades out after, and its thumb can be dragged.
package struct ScrollIndicator: Sendable, Equatable {
    /// Seconds the bar stays fully visible after the last movement.
    package static let holdDuration: TimeInterval = 0.8
    /// Seconds it takes to fade out after that.
    package static let fadeDuration: TimeInterval = 0.3
    package static let thinWidth: CGFloat = 6
    package static let wideWidth: CGFloat = 10
    package static let edgeInset: CGFloat = 3
    package static let minimumThumbLength: CGFloat = 36
    /// Width of the strip at the right edge where the pointer finds the bar.
    package static let hitWidth: CGFloat = 16

    /// Whether the pointer is over the bar's strip (the bar widens).
    package var isHovered = false
    /// Whether the thumb is being dragged.
    package var isDragging = false

    package init() {}

    /// The track in the viewport's coordinate space.
    package func trackRect(viewport: CGRect) -> CGRect {
        let width = (isHovered || isDragging) ? Self.wideWidth : Self.thinWidth
        return CGRect(
            x: viewport.maxX - Self.edgeInset - width, y: viewport.minY + Self.edgeInset,
            width: width, height: max(0, viewport.height - 2 * Self.edgeInset))
    }

    /// The thumb for a scroll state; nil when everything fits.
    package func thumbRect(viewport: CGRect, physics: ScrollPhysics) -> CGRect? {
        guard physics.maxOffset > 0, physics.contentLength > 0 else { return nil }
        let track = trackRect(viewport: viewport)
        var length = max(Self.minimumThumbLength, track.height * physics.viewportLength / physics.contentLength)
        length = min(length, track.height)
        // Past an edge the thumb shrinks against that end, as overlay scrollers do.
        let squeezed = max(Self.thinWidth * 2, length - abs(physics.overscroll))
        let travel = track.height - length
        let fraction = min(1, max(0, physics.offset / physics.maxOffset))
        var y = track.minY + travel * fraction
        if physics.overscroll > 0 { y = track.maxY - squeezed }
        return CGRect(x: track.minX, y: y, width: track.width, height: physics.overscroll != 0 ? squeezed : length)
    }

    /// How far the content scrolls per point of thumb movement.
    package func contentPointsPerThumbPoint(viewport: CGRect, physics: ScrollPhysics) -> CGFloat {
        guard let thumb = thumbRect(viewport: viewport, physics: physics) else { return 0 }
        let travel = trackRect(viewport: viewport).height - thumb.height
        return travel > 0 ? physics.maxOffset / travel : 0
    }

    /// The bar's opacity at `time`.
    package func opacity(at time: TimeInterval, physics: ScrollPhysics) -> CGFloat {
        guard physics.maxOffset > 0 else { return 0 }
        if isHovered || isDragging { return 1 }
        let since = time - physics.lastMovementTime
        if since <= Self.holdDuration { return 1 }
        let fade = (since - Self.holdDuration) / Self.fadeDuration
        return fade >= 1 ? 0 : CGFloat(1 - fade)
    }

    /// Whether the bar will still change by itself after `time` (it is fading).
    package func isFading(at time: TimeInterval, physics: ScrollPhysics) -> Bool {
        let o = opacity(at: time, physics: physics)
        return o > 0 && !(isHovered || isDragging)
    }

    /// Whether a point is in the strip where the bar takes the pointer.
    package func hitStripContains(_ point: CGPoint, viewport: CGRect, physics: ScrollPhysics) -> Bool {
        guard physics.maxOffset > 0 else { return false }
        return point.x >= viewport.maxX - Self.hitWidth && point.x <= viewport.maxX
            && point.y >= viewport.minY && point.y <= viewport.maxY
    }
}
