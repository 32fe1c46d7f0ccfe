import Foundation

/// Routes pointer input to the controls of a node tree (what UIKit's event delivery does for
/// UIControls). Main thread.
///
/// Each pointer event is hit-tested against `rootNode` (`DisplayNode.hitTest(_:)`), and the nearest
/// enabled `ControlNode` among the hit node and its ancestors is the control under the pointer.
///
/// - Hover: `hoveredControl` is the control under the pointer after every pointer event (nil after
///   `pointerExited`); `wantsHandCursor` is true while it is an enabled control, for the app to set
///   a hand cursor. Call `revalidate()` when the tree moved under a still pointer (scrolling,
///   layout) to update it.
/// - Presses: only the left button tracks. A left down on a control starts tracking it
///   (`ControlNode.pointerDown`); moves drag it, the left up ends it, wherever the pointer is then.
///   Any second button down while tracking, `pointerExited`, and the tracked control leaving the
///   tree (noticed at the next event or `revalidate()`) cancel the press (`touchCancel`).
/// - `handle(_:)` returns whether the router used the event: a down a control took, and every
///   move, up, down and exit during its press. The app gives the events the router did not use to
///   its other handlers (a press on no control scrolls). Hover alone does not use an event.
@MainActor
public final class NodeInputRouter {
    /// The tree to route into. Changing it cancels a press in progress and clears the hover.
    public var rootNode: DisplayNode? {
        didSet {
            guard rootNode !== oldValue else { return }
            cancelTracking()
            hoveredControl = nil
        }
    }

    /// Maps a point in window points to the coordinate space `rootNode`'s frame is in (its
    /// supernode's, or its layer's superlayer's). Nil (the default): found from the root's layer
    /// when it is loaded (`Layer.convertFromWindow` on its superlayer, which honours scrolled
    /// layers' `boundsOrigin`), else the window's coordinates.
    public var convertFromWindow: (@MainActor (CGPoint) -> CGPoint)?

    /// The enabled control under the pointer, if any (held weakly).
    public private(set) weak var hoveredControl: ControlNode?

    /// The control whose press is being tracked, if any.
    public private(set) var trackedControl: ControlNode?

    /// Whether the pointer is over an enabled control (for a hand cursor).
    public var wantsHandCursor: Bool {
        guard let hoveredControl else { return false }
        return hoveredControl.isEnabled
    }

    /// The last pointer position in window points (nil when outside the window).
    public private(set) var pointerLocation: CGPoint?

    public init(rootNode: DisplayNode? = nil, convertFromWindow: (@MainActor (CGPoint) -> CGPoint)? = nil) {
        self.rootNode = rootNode
        self.convertFromWindow = convertFromWindow
    }

    // MARK: Events

    /// Routes one event; returns whether the router used it (see the type's notes).
    @discardableResult
    public func handle(_ event: InputEvent) -> Bool {
        switch event {
        case .pointerMoved(let point):
            pointerLocation = point
            let cancelled = validateTracking()
            hoveredControl = control(at: point)
            guard let tracked = trackedControl else { return cancelled }
            if let local = localPoint(point, in: tracked) { tracked.pointerDragged(to: local) }
            if !tracked.isTracking { trackedControl = nil }
            return true

        case .pointerDown(let button, let point, let clickCount):
            pointerLocation = point
            // A press whose control left the tree is cancelled; this down may then start a new one.
            validateTracking()
            hoveredControl = control(at: point)
            if let tracked = trackedControl {
                // A second press while one is tracked (another button, or a lost up) cancels it.
                trackedControl = nil
                tracked.pointerCancelled()
                return true
            }
            guard button == .left, let control = hoveredControl,
                let local = localPoint(point, in: control)
            else { return false }
            let took = control.pointerDown(at: local, clickCount: max(1, clickCount))
            if control.isTracking { trackedControl = control }
            return took

        case .pointerUp(let button, let point):
            pointerLocation = point
            let cancelled = validateTracking()
            hoveredControl = control(at: point)
            guard let tracked = trackedControl else { return cancelled }
            guard button == .left else { return true }
            trackedControl = nil
            if let local = localPoint(point, in: tracked) { tracked.pointerUp(at: local) }
            return true

        case .pointerExited:
            pointerLocation = nil
            hoveredControl = nil
            guard let tracked = trackedControl else { return false }
            trackedControl = nil
            tracked.pointerCancelled()
            return true

        default:
            return false
        }
    }

    /// Cancels the press being tracked, if any (`touchCancel`).
    public func cancelTracking() {
        guard let tracked = trackedControl else { return }
        trackedControl = nil
        tracked.pointerCancelled()
    }

    /// Brings the router up to date with a tree that changed under a still pointer: cancels the
    /// press if its control left the tree (or stopped tracking), and hit-tests the last pointer
    /// position again for the hover. Call it after layout or scrolling; it sends no drag events.
    public func revalidate() {
        validateTracking()
        hoveredControl = pointerLocation.flatMap { control(at: $0) }
    }

    // MARK: Hit testing

    /// The enabled control under a window point: the nearest `ControlNode` among the hit node and
    /// its ancestors (up to the root).
    public func control(at windowPoint: CGPoint) -> ControlNode? {
        guard let root = rootNode, let hit = root.hitTest(rootPoint(windowPoint, root: root)) else { return nil }
        var node: DisplayNode? = hit
        while let current = node {
            if let control = current as? ControlNode, control.isEnabled { return control }
            if current === root { break }
            node = current.supernode
        }
        return nil
    }

    /// The frontmost node under a window point.
    public func node(at windowPoint: CGPoint) -> DisplayNode? {
        guard let root = rootNode else { return nil }
        return root.hitTest(rootPoint(windowPoint, root: root))
    }

    /// A window point in the root node's own coordinates.
    private func rootPoint(_ windowPoint: CGPoint, root: DisplayNode) -> CGPoint {
        let p: CGPoint
        if let convertFromWindow {
            p = convertFromWindow(windowPoint)
        } else if let superlayer = root.layerIfLoaded?.superlayer {
            p = superlayer.convertFromWindow(windowPoint)
        } else {
            p = windowPoint
        }
        let origin = root.frame.origin
        return CGPoint(x: p.x - origin.x, y: p.y - origin.y)
    }

    /// A window point in `node`'s own coordinates; nil when the node is not in the root's tree.
    private func localPoint(_ windowPoint: CGPoint, in node: DisplayNode) -> CGPoint? {
        guard let root = rootNode else { return nil }
        return node.convert(rootPoint(windowPoint, root: root), fromAncestor: root)
    }

    /// Cancels the press when its control left the root's tree (returning true); forgets it when
    /// it stopped tracking by itself (its `continueTracking` refused, or it was disabled).
    @discardableResult
    private func validateTracking() -> Bool {
        guard let tracked = trackedControl else { return false }
        guard tracked.isTracking else {
            trackedControl = nil
            return false
        }
        if let root = rootNode, tracked.isDescendant(of: root) { return false }
        trackedControl = nil
        tracked.pointerCancelled()
        return true
    }
}
