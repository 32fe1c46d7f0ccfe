import Foundation

/// Time-based changes of layer opacity (the placeholder's fade-out, the contents' fade-in), and
/// work that must wait until a layer tree's contents are on screen. Main thread only.
///
/// The animator observes its run loop just before the backend's uploads and compositing
/// (`beforePresent`, early), so each frame draws the values of its own turn's time. An animation
/// starts at the first turn after it is added (its first frame shows `from`), runs linearly (a
/// cross-fade of two opaque images then keeps the sum of their weights at 1), and asks for frames
/// until it ends; then the property holds `to` and the completion runs.
@MainActor
package final class LayerAnimator {
    /// The animatable properties.
    package enum Property: Sendable {
        case alpha, fadeOpacity
    }

    private struct Animation {
        weak var layer: Layer?
        var property: Property
        var from: CGFloat
        var to: CGFloat
        var duration: TimeInterval
        var begin: TimeInterval?
        var completion: (@MainActor (_ finished: Bool) -> Void)?
    }

    private struct Waiter {
        weak var layer: Layer?
        var body: @MainActor () -> Void
    }

    package let runLoop: FrameLoop
    private var animations: [Animation] = []
    private var waiters: [Waiter] = []
    private var token: FrameLoop.ObserverToken?

    package init(runLoop: FrameLoop, order: Int = Int.min) {
        self.runLoop = runLoop
        token = runLoop.addObserver(.beforePresent, order: order) { [weak self] turn in self?.tick(at: turn.time) }
    }

    deinit {
        if let token { runLoop.removeObserverFromAnyThread(token) }
    }

    /// Removes the observer; animations stop where they are (their completions run, unfinished).
    package func invalidate() {
        if let token { runLoop.removeObserver(token) }
        token = nil
        let stopped = animations
        animations.removeAll()
        waiters.removeAll()
        for animation in stopped { animation.completion?(false) }
    }

    /// Whether anything is animating or waiting.
    package var isActive: Bool { !animations.isEmpty || !waiters.isEmpty }

    /// Animates `property` of `layer` from `from` to `to` over `duration` seconds. An animation
    /// of the same property of the same layer is replaced (its completion runs, unfinished). A
    /// duration of 0 or less sets `to` at once and completes.
    package func animate(
        _ layer: Layer, _ property: Property, from: CGFloat, to: CGFloat, duration: TimeInterval,
        completion: (@MainActor (_ finished: Bool) -> Void)? = nil
    ) {
        removeAnimation(of: layer, property)
        guard duration > 0, duration.isFinite else {
            Self.set(property, of: layer, to)
            completion?(true)
            return
        }
        Self.set(property, of: layer, from)
        animations.append(
            Animation(
                layer: layer, property: property, from: from, to: to, duration: duration,
                begin: nil, completion: completion))
        runLoop.setNeedsFrame()
    }

    /// Stops an animation of `layer`'s `property` where it is (its completion runs, unfinished).
    package func removeAnimation(of layer: Layer, _ property: Property) {
        guard let index = animations.firstIndex(where: { $0.layer === layer && $0.property == property }) else { return }
        let removed = animations.remove(at: index)
        removed.completion?(false)
    }

    /// Whether `layer`'s `property` is animating.
    package func isAnimating(_ layer: Layer, _ property: Property) -> Bool {
        animations.contains { $0.layer === layer && $0.property == property }
    }

    /// Runs `body` at the first turn in which every layer of `layer`'s tree shows its current
    /// contents (the backend uploaded them); at once when no backend observes the tree (its root
    /// has no `contentsChangeHandler`) or nothing is waiting. Dropped if the layer goes away.
    package func whenPresented(_ layer: Layer, _ body: @escaping @MainActor () -> Void) {
        if Self.isPresented(layer) {
            body()
            return
        }
        waiters.append(Waiter(layer: layer, body: body))
        runLoop.setNeedsFrame()
    }

    /// Whether `layer`'s tree shows its current contents (or no backend is uploading for it).
    package static func isPresented(_ layer: Layer) -> Bool {
        layer.root.contentsChangeHandler == nil || showsCurrentContents(layer)
    }

    /// Whether every layer of the tree shows its current contents; stops at the first that does not.
    private static func showsCurrentContents(_ layer: Layer) -> Bool {
        layer.isContentsPresented && layer.sublayers.allSatisfy(showsCurrentContents)
    }

    // MARK: The turn

    private func tick(at time: TimeInterval) {
        if !waiters.isEmpty {
            // Bodies may add waiters: they run after the ready ones (and those whose layer went)
            // have left the list.
            var ready: [Waiter] = []
            waiters.removeAll { waiter in
                guard let layer = waiter.layer else { return true }
                guard Self.isPresented(layer) else { return false }
                ready.append(waiter)
                return true
            }
            for waiter in ready { waiter.body() }
        }
        guard !animations.isEmpty else {
            if !waiters.isEmpty { runLoop.setNeedsFrame() }
            return
        }
        var finished: [Animation] = []
        var running: [Animation] = []
        for var animation in animations {
            guard let layer = animation.layer else { continue }
            let begin = animation.begin ?? time
            animation.begin = begin
            let progress = min(1, max(0, (time - begin) / animation.duration))
            Self.set(animation.property, of: layer, animation.from + (animation.to - animation.from) * progress)
            if progress >= 1 { finished.append(animation) } else { running.append(animation) }
        }
        // Completions may add animations: keep the running ones and append what they add.
        animations = running
        for animation in finished { animation.completion?(true) }
        if !animations.isEmpty || !waiters.isEmpty { runLoop.setNeedsFrame() }
    }

    private static func set(_ property: Property, of layer: Layer, _ value: CGFloat) {
        switch property {
        case .alpha: layer.alpha = value
        case .fadeOpacity: layer.fadeOpacity = value
        }
    }
}
