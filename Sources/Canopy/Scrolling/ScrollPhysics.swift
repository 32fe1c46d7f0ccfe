import Foundation

/// One axis of scrolling, as UIScrollView moves: direct tracking of precise deltas and drags
/// with a rubber band past the edges, smooth animations for wheel clicks and keys, flings
/// that decelerate by 0.998 per millisecond, and a spring back to the edge.
///
/// A value type driven by explicit times (monotonic seconds), so it is tested without a
/// window: feed it input, then `step(to:)` each frame.
package struct ScrollPhysics: Sendable {
    /// Velocity kept per millisecond of a fling (UIScrollView's normal deceleration rate).
    package static let decelerationRate: CGFloat = 0.998
    /// The exponential decay constant of a fling, per second: -ln(0.998) * 1000.
    package static let flingDecay: CGFloat = -log(decelerationRate) * 1000
    /// Flings slower than this (points per second) don't start.
    package static let minimumFlingVelocity: CGFloat = 50
    /// How long an animated scroll from a wheel click takes.
    package static let clickAnimationDuration: TimeInterval = 0.18
    /// Deltas that stop for this long end a trackpad gesture (there is no finger-lift signal).
    package static let gestureEndGap: TimeInterval = 0.06
    /// The angular frequency of the critically damped spring back, per second.
    package static let springStiffness: CGFloat = 14

    package enum Motion: Sendable, Equatable {
        case idle
        /// Following precise deltas (a trackpad) or a drag; rubber-banded past the edges.
        case tracking(isDrag: Bool)
        /// An eased animation to `to`, started at `start`.
        case animating(from: CGFloat, to: CGFloat, start: TimeInterval, duration: TimeInterval)
        /// A deceleration from `origin` at `velocity` (points per second) that began at `start`.
        case fling(origin: CGFloat, velocity: CGFloat, start: TimeInterval)
        /// A critically damped spring toward `edge`: displacement `displacement` and
        /// `velocity` at `start`.
        case springBack(edge: CGFloat, displacement: CGFloat, velocity: CGFloat, start: TimeInterval)
    }

    /// The displayed offset: how far the content is scrolled, in points. Outside
    /// `0...maxOffset` only while rubber-banding.
    package private(set) var offset: CGFloat = 0
    package private(set) var motion: Motion = .idle
    package private(set) var contentLength: CGFloat
    package private(set) var viewportLength: CGFloat
    /// The time of the last change of `offset`, for a scroll indicator that fades.
    package private(set) var lastMovementTime: TimeInterval = -.infinity

    private var tracker = VelocityTracker()
    /// While tracking: the offset the input asked for, before the rubber band.
    private var rawOffset: CGFloat = 0
    private var lastInputTime: TimeInterval = 0

    package init(contentLength: CGFloat = 0, viewportLength: CGFloat = 0) {
        self.contentLength = max(0, contentLength)
        self.viewportLength = max(0, viewportLength)
    }

    package var maxOffset: CGFloat { max(0, contentLength - viewportLength) }
    /// Whether the offset changes by itself from frame to frame.
    package var isAnimating: Bool {
        switch motion {
        case .idle: return false
        case .tracking(let isDrag): return !isDrag  // a trackpad gesture ends by a timeout
        default: return true
        }
    }
    /// How far past an edge the content is pulled (negative above the top).
    package var overscroll: CGFloat {
        if offset < 0 { return offset }
        if offset > maxOffset { return offset - maxOffset }
        return 0
    }
    /// Where an animation or fling will come to rest.
    package var restingOffset: CGFloat {
        switch motion {
        case .animating(_, let to, _, _): return to
        case .fling(let origin, let v, _): return clamp(origin + v / Self.flingDecay)
        case .springBack(let edge, _, _, _): return edge
        case .idle, .tracking: return clamp(offset)
        }
    }

    /// Changes the lengths; the offset is kept where it is, within the new bounds.
    package mutating func setLengths(content: CGFloat, viewport: CGFloat) {
        contentLength = max(0, content)
        viewportLength = max(0, viewport)
        if case .tracking = motion { return }
        if case .animating(let from, let to, let start, let duration) = motion {
            motion = .animating(from: from, to: clamp(to), start: start, duration: duration)
        }
        if overscroll != 0, motion == .idle { offset = clamp(offset) }
    }

    /// Jumps to `offset` (clamped) and stops any motion.
    package mutating func setOffset(_ newOffset: CGFloat, at time: TimeInterval) {
        motion = .idle
        move(to: clamp(newOffset), at: time)
    }

    /// Moves the content by `delta` without disturbing what it is doing: an animation's ends, a
    /// fling's origin and a drag's raw offset move with it (content above the viewport changed
    /// size, and the reader's place must not jump or stop). No clamping: the motion settles as usual.
    package mutating func shift(by delta: CGFloat) {
        guard delta != 0, delta.isFinite else { return }
        offset += delta
        rawOffset += delta
        switch motion {
        case .idle:
            offset = clamp(offset)
        case .tracking:
            break
        case .animating(let from, let to, let start, let duration):
            motion = .animating(from: from + delta, to: to + delta, start: start, duration: duration)
        case .fling(let origin, let velocity, let start):
            motion = .fling(origin: origin + delta, velocity: velocity, start: start)
        case .springBack:
            break
        }
    }

    // MARK: Precise deltas (trackpads, smooth wheels)

    /// Applies a precise delta directly; past an edge the rubber band resists. When the
    /// deltas stop, the gesture ends with a fling or a spring back.
    package mutating func scroll(byPrecise delta: CGFloat, at time: TimeInterval) {
        beginTracking(isDrag: false, at: time)
        track(delta, at: time)
    }

    // MARK: Drag

    package mutating func beginDrag(at time: TimeInterval) {
        beginTracking(isDrag: true, at: time)
    }

    /// Moves the content by `delta` points of scrolling (dragging the pointer up by 10 is a
    /// delta of +10).
    package mutating func drag(by delta: CGFloat, at time: TimeInterval) {
        if case .tracking(true) = motion {} else { beginDrag(at: time) }
        track(delta, at: time)
    }

    /// Lets go: a fling with the pointer's recent velocity, or a spring back if pulled past
    /// an edge. A pointer that rested before release doesn't fling.
    package mutating func endDrag(at time: TimeInterval) {
        guard case .tracking = motion else { return }
        let recent = tracker.lastTime.map { time - $0 < 0.05 } ?? false
        release(velocity: recent ? tracker.velocity : 0, at: time)
    }

    // MARK: Animated scrolling (wheel clicks, keys)

    /// Scrolls by `delta` with an eased animation, adding to the target of one already running,
    /// so quick wheel clicks accumulate into one smooth movement. Stays within the edges.
    package mutating func scrollAnimated(
        by delta: CGFloat, at time: TimeInterval,
        duration: TimeInterval = ScrollPhysics.clickAnimationDuration
    ) {
        let base: CGFloat
        if case .animating(_, let to, _, _) = motion { base = to } else { base = clamp(offset) }
        scrollAnimated(to: base + delta, at: time, duration: duration)
    }

    /// Scrolls to `target` (clamped) with an eased animation.
    package mutating func scrollAnimated(
        to target: CGFloat, at time: TimeInterval,
        duration: TimeInterval = ScrollPhysics.clickAnimationDuration
    ) {
        let destination = clamp(target)
        if destination == offset { motion = .idle; return }
        motion = .animating(from: offset, to: destination, start: time, duration: max(0.001, duration))
    }

    /// Starts a fling at `velocity` points per second (positive toward the end).
    package mutating func fling(velocity: CGFloat, at time: TimeInterval) {
        if overscroll != 0 {
            startSpringBack(velocity: velocity, at: time)
        } else if abs(velocity) >= Self.minimumFlingVelocity {
            motion = .fling(origin: offset, velocity: velocity, start: time)
        } else {
            motion = .idle
        }
    }

    /// Stops where it is (an overscroll springs back).
    package mutating func stop(at time: TimeInterval) {
        if overscroll != 0 { startSpringBack(velocity: 0, at: time) } else { motion = .idle }
    }

    // MARK: Frames

    /// Advances every motion to `time`. Returns whether the offset will go on changing.
    @discardableResult
    package mutating func step(to time: TimeInterval) -> Bool {
        switch motion {
        case .idle:
            return false
        case .tracking(let isDrag):
            if !isDrag, time - lastInputTime >= Self.gestureEndGap {
                release(velocity: tracker.velocity, at: lastInputTime + Self.gestureEndGap)
                return step(to: time)
            }
            return !isDrag
        case .animating(let from, let to, let start, let duration):
            let u = min(1, max(0, (time - start) / duration))
            if u >= 1 {
                motion = .idle
                move(to: to, at: time)
                return false
            }
            let eased = 1 - pow(1 - CGFloat(u), 3)
            move(to: from + (to - from) * eased, at: time)
            return true
        case .fling(let origin, let v0, let start):
            let t = CGFloat(max(0, time - start))
            let decay = exp(-Self.flingDecay * t)
            let position = origin + v0 / Self.flingDecay * (1 - decay)
            let velocity = v0 * decay
            if position < 0 || position > maxOffset {
                // The fling reached the edge between frames: hand over to the spring at the
                // instant it crossed, with the velocity it had then, and run the spring from there.
                let edge: CGFloat = position < 0 ? 0 : maxOffset
                let remaining = 1 - (edge - origin) * Self.flingDecay / v0
                let crossing = remaining > 0 ? -log(remaining) / Self.flingDecay : 0
                offset = edge
                startSpringBack(edge: edge, velocity: v0 * exp(-Self.flingDecay * crossing), at: start + Double(crossing))
                return step(to: time)
            }
            // Rest when what is left to travel is under a quarter point, exactly where the
            // formula says it ends.
            if abs(velocity / Self.flingDecay) < 0.25 {
                motion = .idle
                move(to: origin + v0 / Self.flingDecay, at: time)
                return false
            }
            move(to: position, at: time)
            return true
        case .springBack(let edge, let x0, let v0, let start):
            let t = CGFloat(max(0, time - start))
            let w = Self.springStiffness
            let e = exp(-w * t)
            let x = (x0 + (v0 + w * x0) * t) * e
            let v = (v0 - w * (v0 + w * x0) * t) * e
            if abs(x) < 0.25, abs(v) < 20 {
                motion = .idle
                move(to: edge, at: time)
                return false
            }
            move(to: edge + x, at: time)
            return true
        }
    }

    // MARK: Private

    private func clamp(_ value: CGFloat) -> CGFloat { min(maxOffset, max(0, value)) }

    private mutating func move(to newOffset: CGFloat, at time: TimeInterval) {
        if newOffset != offset { lastMovementTime = time }
        offset = newOffset
    }

    private mutating func beginTracking(isDrag: Bool, at time: TimeInterval) {
        if case .tracking(let wasDrag) = motion, wasDrag == isDrag { return }
        tracker.reset()
        // Pick up a band that is already stretched where it is.
        rawOffset = clamp(offset) + RubberBand.overscroll(forOffset: overscroll, dimension: viewportLength)
        motion = .tracking(isDrag: isDrag)
        lastInputTime = time
    }

    private mutating func track(_ delta: CGFloat, at time: TimeInterval) {
        rawOffset += delta
        lastInputTime = time
        tracker.add(delta: delta, at: time)
        let clamped = clamp(rawOffset)
        move(to: clamped + RubberBand.offset(forOverscroll: rawOffset - clamped, dimension: viewportLength), at: time)
    }

    private mutating func release(velocity: CGFloat, at time: TimeInterval) {
        tracker.reset()
        fling(velocity: velocity, at: time)
    }

    private mutating func startSpringBack(velocity: CGFloat, at time: TimeInterval) {
        startSpringBack(edge: offset < 0 ? 0 : maxOffset, velocity: velocity, at: time)
    }

    /// Springs back to `edge`. The velocity is capped so that the content overshoots the edge
    /// by at most a quarter of the viewport (the peak of a critically damped spring thrown
    /// from rest at its edge is v / (w * e)).
    private mutating func startSpringBack(edge: CGFloat, velocity: CGFloat, at time: TimeInterval) {
        let w = Self.springStiffness
        let maxOvershoot = max(1, min(viewportLength * 0.25, 240))
        let cap = maxOvershoot * w * CGFloat(M_E)
        let v = min(cap, max(-cap, velocity))
        motion = .springBack(edge: edge, displacement: offset - edge, velocity: v, start: time)
    }
}
