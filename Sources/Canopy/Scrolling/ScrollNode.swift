import Foundation
import Synchronization

/// A node that scrolls its `contentNode` vertically inside its bounds (Texture's `ASScrollNode`),
/// with the input of `ScrollController` (wheel clicks animated, precise deltas with a fling, drags,
/// keys, the scrollbar) and an overlay scrollbar (`indicatorNode`) that fades when scrolling stops.
///
/// Its layer clips; the content node's frame origin is minus the offset. Each turn of the run loop
/// it is installed on (the `DisplayScheduler`'s, found when the node loads) runs `update(at:)` in
/// the layout phase: the physics step, the content's position, the scrollbar, then
/// `scrollNodeDidUpdate(at:)` for subclasses. Configure it on any thread; its scrolling state is
/// main-thread state (a Mutex guards it, so reading it elsewhere is safe but racy).
open class ScrollNode: DisplayNode, @unchecked Sendable {
    /// The node the scrolled content goes in; its height is `contentHeight`.
    public let contentNode = DisplayNode()
    /// The overlay scrollbar's thumb.
    public let indicatorNode = DisplayNode()

    private struct Scrolling {
        var controller = ScrollController()
        var contentHeight: CGFloat = 0
        /// The offset of the last update, and when, for the direction and speed.
        var lastOffset: CGFloat = 0
        var lastTime: TimeInterval?
        var direction: ScrollDirection = .none
        var speed: CGFloat = 0
        var hasScrolled = false
        var observer: (FrameLoop, FrameLoop.ObserverToken)?
    }
    private let scrolling = Mutex(Scrolling())

    /// How quickly the measured speed follows the offset's changes: the weight of the newest
    /// sample per 1/60 s (an exponential average with a time constant of about 50 ms).
    static let speedSmoothing: CGFloat = 0.3

    public override init() {
        super.init()
        clipsToBounds = true
        contentNode.name = "content"
        indicatorNode.name = "scrollbar"
        indicatorNode.isUserInteractionEnabled = false
        indicatorNode.isHidden = true
        addSubnode(contentNode)
        addSubnode(indicatorNode)
    }

    deinit {
        if let (loop, token) = scrolling.withLock({ $0.observer }) { loop.removeObserverFromAnyThread(token) }
    }

    open override func didLoad() {
        super.didLoad()
        guard let loop = DisplayScheduler.shared.runLoop else { return }
        let token = loop.addObserver(.layout) { [weak self] turn in self?.update(at: turn.time) }
        scrolling.withLock { $0.observer = (loop, token) }
        loop.setNeedsFrame()
    }

    // MARK: Geometry and offset (main thread)

    /// The scrolled content's height; the content node takes it (and the scroll node's width).
    @MainActor
    public var contentHeight: CGFloat {
        get { scrolling.withLock { $0.contentHeight } }
        set {
            scrolling.withLock { $0.contentHeight = max(0, newValue.isFinite ? newValue : 0) }
            applyGeometry()
        }
    }

    /// How far the content is scrolled: the content's y at the viewport's top edge.
    public var contentOffset: CGFloat { scrolling.withLock { $0.controller.offset } }

    /// The largest resting offset (the content's height less the viewport's).
    public var maximumContentOffset: CGFloat { scrolling.withLock { $0.controller.physics.maxOffset } }

    /// The part of the content in view, in the content's coordinates.
    public var visibleContentRect: CGRect {
        CGRect(x: 0, y: contentOffset, width: bounds.width, height: bounds.height)
    }

    /// The direction the content last moved in (kept while it rests), and its speed now in points
    /// per second (0 at rest).
    public var scrollDirection: ScrollDirection { scrolling.withLock { $0.direction } }
    public var scrollSpeed: CGFloat { scrolling.withLock { $0.speed } }

    /// Whether the offset has moved since the node was made (a range controller leaves its
    /// minimum ranges then).
    public var hasScrolled: Bool { scrolling.withLock { $0.hasScrolled } }

    /// Moves to `offset` (clamped to the content), animated over a short ease or at once.
    @MainActor
    public func setContentOffset(_ offset: CGFloat, animated: Bool = false) {
        let now = MonotonicClock.now()
        scrolling.withLock { s in
            if animated {
                s.controller.physics.scrollAnimated(to: offset, at: now, duration: ScrollController.pageAnimationDuration)
            } else {
                s.controller.physics.setOffset(offset, at: now)
            }
        }
        applyOffset()
        requestFrame()
    }

    /// Moves the content by `delta` keeping any scroll animation or fling going (content above the
    /// viewport changed size: the reader's place stays put on screen).
    @MainActor
    public func shiftContentOffset(by delta: CGFloat) {
        scrolling.withLock { s in
            let before = s.controller.offset
            s.controller.physics.shift(by: delta)
            s.lastOffset += s.controller.offset - before  // not a scroll: no speed or direction from it (clamped or not)
        }
        applyOffset()
        requestFrame()
    }

    /// Handles a scrolling event (wheel, keys, drags, the scrollbar; `time` is the event's);
    /// returns whether it was used. Main thread.
    @MainActor
    @discardableResult
    public func handleScrollEvent(_ event: InputEvent, at time: TimeInterval) -> Bool {
        let (used, needsFrames) = scrolling.withLock { s -> (Bool, Bool) in
            let used = s.controller.handle(event, at: time)
            return (used, s.controller.needsFrames(at: time))
        }
        if used || needsFrames { requestFrame() }
        if case .pointerMoved = event { requestFrame() }  // the scrollbar may widen under the pointer
        return used
    }

    /// Whether a pointer press is being used to drag the content or the scrollbar (so it is not
    /// a click).
    public var isDragging: Bool { scrolling.withLock { $0.controller.isDragging } }

    // MARK: Each turn (main thread)

    /// Advances the scrolling to `time` and places the content and the scrollbar, then lets the
    /// subclass update (the run loop calls it in its layout phase once the node is loaded; tests
    /// may call it directly).
    @MainActor
    open func update(at time: TimeInterval) {
        applyGeometry()
        let needsFrames = scrolling.withLock { s -> Bool in
            s.controller.step(to: time)
            let offset = s.controller.offset
            if let last = s.lastTime, time > last {
                let dt = CGFloat(time - last)
                let delta = offset - s.lastOffset
                if delta != 0 {
                    s.direction = delta > 0 ? .down : .up
                    s.hasScrolled = true
                }
                let sample = abs(delta) / dt
                let weight = min(1, Self.speedSmoothing * dt * 60)
                s.speed += (sample - s.speed) * weight
                if s.speed < 1 { s.speed = 0 }
            }
            s.lastOffset = offset
            s.lastTime = time
            return s.controller.needsFrames(at: time)
        }
        applyOffset()
        updateIndicator(at: time)
        if needsFrames { requestFrame() }
        scrollNodeDidUpdate(at: time)
    }

    /// Called at the end of each `update(at:)`; subclasses place what scrolled in. Main thread.
    @MainActor
    open func scrollNodeDidUpdate(at time: TimeInterval) {}

    @MainActor
    private func applyGeometry() {
        let size = bounds.size
        let height = scrolling.withLock { $0.contentHeight }
        let origin = isNodeLoaded ? layer.convertToWindow(.zero) : .zero
        scrolling.withLock { s in
            let before = s.controller.offset
            s.controller.setGeometry(viewport: CGRect(origin: origin, size: size), contentHeight: height)
            // Content or viewport resized under the offset pulls it back into range: not a scroll
            // either, so no direction or speed from it.
            s.lastOffset += s.controller.offset - before
        }
        let frame = CGRect(x: 0, y: contentNode.frame.minY, width: size.width, height: height)
        if contentNode.frame != frame { contentNode.frame = frame }
    }

    @MainActor
    private func applyOffset() {
        let y = -contentOffset
        if contentNode.frame.minY != y { contentNode.frame.origin.y = y }
    }

    @MainActor
    private func updateIndicator(at time: TimeInterval) {
        let (thumb, opacity, dragging) = scrolling.withLock { s -> (CGRect?, CGFloat, Bool) in
            let local = CGRect(origin: .zero, size: s.controller.viewport.size)
            return (
                s.controller.indicator.thumbRect(viewport: local, physics: s.controller.physics),
                s.controller.indicator.opacity(at: time, physics: s.controller.physics),
                s.controller.indicator.isDragging
            )
        }
        guard let thumb, opacity > 0 else {
            if !indicatorNode.isHidden { indicatorNode.isHidden = true }
            return
        }
        indicatorNode.isHidden = false
        if indicatorNode.frame != thumb { indicatorNode.frame = thumb }
        indicatorNode.cornerRadius = thumb.width / 2
        indicatorNode.alpha = opacity * 0.85
        indicatorNode.backgroundColor = dragging ? Color(white: 0.75) : Color(white: 0.55)
    }

    private func requestFrame() {
        DisplayScheduler.shared.runLoop?.setNeedsFrame()
    }
}
