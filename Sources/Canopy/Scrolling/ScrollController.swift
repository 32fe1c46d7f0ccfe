import Foundation

/// Turns input into scrolling for one vertical viewport: wheel clicks (animated), precise
/// deltas (direct, with a fling when they stop), drags with the left button (with a fling on
/// release), keys, and the overlay scrollbar (drag its thumb, click its track to page).
package struct ScrollController: Sendable {
    /// Points scrolled per wheel click.
    package static let pointsPerClick: CGFloat = 100
    /// Points scrolled by an arrow key.
    package static let pointsPerArrow: CGFloat = 60
    /// How far the pointer must move with the button down before a click becomes a drag.
    package static let dragSlop: CGFloat = 4
    /// How long a keyboard page scroll animates.
    package static let pageAnimationDuration: TimeInterval = 0.25

    package var physics = ScrollPhysics()
    package var indicator = ScrollIndicator()
    /// The viewport in window coordinates.
    package private(set) var viewport: CGRect = .zero

    private enum PointerState: Sendable {
        case none
        /// The left button is down, not yet moved far enough to drag.
        case pressed(at: CGPoint)
        case dragging(lastY: CGFloat)
        case thumbDragging(startY: CGFloat, startOffset: CGFloat)
    }
    private var pointer: PointerState = .none

    package init() {}

    package var offset: CGFloat { physics.offset }

    /// Sets the viewport (window coordinates) and the content's height.
    package mutating func setGeometry(viewport: CGRect, contentHeight: CGFloat) {
        self.viewport = viewport
        physics.setLengths(content: contentHeight, viewport: viewport.height)
    }

    /// Whether the controller needs frames to go on (an animation, a fling, a fade).
    package func needsFrames(at time: TimeInterval) -> Bool {
        physics.isAnimating || indicator.isFading(at: time, physics: physics)
    }

    /// Whether a pointer press is taking part in a drag (so it is not a click).
    package var isDragging: Bool {
        switch pointer {
        case .dragging, .thumbDragging: return true
        default: return false
        }
    }

    /// Advances animations to `time`.
    package mutating func step(to time: TimeInterval) {
        physics.step(to: time)
    }

    /// Handles an event if it is about scrolling; returns whether it did.
    @discardableResult
    package mutating func handle(_ event: InputEvent, at time: TimeInterval) -> Bool {
        switch event {
        case .wheel(let wheel):
            guard wheel.deltaY != 0 else { return false }
            switch wheel.kind {
            case .clicks: physics.scrollAnimated(by: wheel.deltaY * Self.pointsPerClick, at: time)
            case .precise: physics.scroll(byPrecise: wheel.deltaY, at: wheel.time)
            }
            return true
        case .key(let key) where key.isDown:
            return handleKey(key, at: time)
        case .pointerDown(.left, let point, _):
            if indicator.hitStripContains(point, viewport: viewport, physics: physics),
                let thumb = indicator.thumbRect(viewport: viewport, physics: physics)
            {
                if point.y >= thumb.minY - 4 && point.y <= thumb.maxY + 4 {
                    indicator.isDragging = true
                    physics.setOffset(physics.offset, at: time)
                    pointer = .thumbDragging(startY: point.y, startOffset: physics.offset)
                } else {
                    let page = pageLength
                    physics.scrollAnimated(
                        by: point.y < thumb.minY ? -page : page, at: time,
                        duration: Self.pageAnimationDuration)
                }
                return true
            }
            guard viewport.contains(point) else { return false }
            // Touching moving content stops it, as a finger on a scroll view does.
            if physics.isAnimating { physics.stop(at: time) }
            pointer = .pressed(at: point)
            return false  // a press may still become a click for the content
        case .pointerMoved(let point):
            indicator.isHovered = indicator.hitStripContains(point, viewport: viewport, physics: physics)
            switch pointer {
            case .pressed(let start):
                guard abs(point.y - start.y) >= Self.dragSlop || abs(point.x - start.x) >= Self.dragSlop else { return false }
                physics.beginDrag(at: time)
                physics.drag(by: start.y - point.y, at: time)
                pointer = .dragging(lastY: point.y)
                return true
            case .dragging(let lastY):
                physics.drag(by: lastY - point.y, at: time)
                pointer = .dragging(lastY: point.y)
                return true
            case .thumbDragging(let startY, let startOffset):
                let ratio = indicator.contentPointsPerThumbPoint(viewport: viewport, physics: physics)
                physics.setOffset(startOffset + (point.y - startY) * ratio, at: time)
                return true
            case .none:
                return false
            }
        case .pointerUp(.left, _):
            defer { pointer = .none; indicator.isDragging = false }
            switch pointer {
            case .dragging:
                physics.endDrag(at: time)
                return true
            case .thumbDragging:
                return true
            default:
                return false
            }
        case .pointerExited:
            indicator.isHovered = false
            return false
        default:
            return false
        }
    }

    /// A keyboard page: the viewport less a little overlap, so the reader keeps context.
    package var pageLength: CGFloat { max(viewport.height * 0.5, viewport.height - 40) }

    private mutating func handleKey(_ key: KeyEvent, at time: TimeInterval) -> Bool {
        let page = pageLength
        switch key.key {
        case .down: physics.scrollAnimated(by: Self.pointsPerArrow, at: time)
        case .up: physics.scrollAnimated(by: -Self.pointsPerArrow, at: time)
        case .pageDown: physics.scrollAnimated(by: page, at: time, duration: Self.pageAnimationDuration)
        case .pageUp: physics.scrollAnimated(by: -page, at: time, duration: Self.pageAnimationDuration)
        case .space:
            physics.scrollAnimated(
                by: key.modifiers.contains(.shift) ? -page : page, at: time,
                duration: Self.pageAnimationDuration)
        case .home: physics.scrollAnimated(to: 0, at: time, duration: Self.pageAnimationDuration)
        case .end: physics.scrollAnimated(to: physics.maxOffset, at: time, duration: Self.pageAnimationDuration)
        default: return false
        }
        return true
    }
}
