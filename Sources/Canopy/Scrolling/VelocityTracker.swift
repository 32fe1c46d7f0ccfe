import Foundation

/// Estimates scrolling velocity from recent movements: the least-squares slope of position
/// over time, across the movements of the last `window` seconds.
package struct VelocityTracker: Sendable {
    /// How far back movements count, in seconds (100 to 200 ms, as touch systems use).
    package var window: TimeInterval
    private var samples: [(time: TimeInterval, position: CGFloat)] = []
    private var position: CGFloat = 0

    package init(window: TimeInterval = 0.15) {
        self.window = window
    }

    /// Forgets every movement.
    package mutating func reset() {
        samples.removeAll(keepingCapacity: true)
        position = 0
    }

    /// Records a movement of `delta` points at `time`. The first movement of a gesture
    /// happened over an unknown time before it, so it only sets the starting point: velocity
    /// comes from the movements after it.
    package mutating func add(delta: CGFloat, at time: TimeInterval) {
        position += delta
        samples.append((time, position))
        samples.removeAll { time - $0.time > window }
    }

    /// The time of the latest movement, if any.
    package var lastTime: TimeInterval? { samples.last?.time }

    /// The velocity in points per second at the latest movement; zero with fewer than two
    /// distinct instants.
    package var velocity: CGFloat {
        guard samples.count >= 2, let first = samples.first, let last = samples.last,
            last.time - first.time > 1e-4
        else { return 0 }
        let n = CGFloat(samples.count)
        var st: CGFloat = 0, sp: CGFloat = 0, stt: CGFloat = 0, stp: CGFloat = 0
        for s in samples {
            let t = CGFloat(s.time - first.time)
            st += t; sp += s.position; stt += t * t; stp += t * s.position
        }
        let denominator = n * stt - st * st
        guard abs(denominator) > 1e-12 else { return 0 }
        return (n * stp - st * sp) / denominator
    }
}
