import CanopyGraphics
import DequeModule
import Foundation
import Synchronization

/// How an image node's animated file is drawn, frame after frame: what its display found (the
/// placement, the decode size, the bitmap's size) and its options at the time. Any thread.
struct AnimationPlan: Sendable {
    let path: String
    let boundsSize: CGSize
    let scale: CGFloat
    let geometry: ImageGeometry
    let sourcePixels: CGSize
    /// The pixels each frame is decoded to cover (the display's target for the whole file).
    let decodeTarget: CGSize
    let backingWidth: Int
    let backingHeight: Int
    let modification: (@Sendable (Bitmap, _ isCancelled: @Sendable () -> Bool) -> Bitmap?)?
    let fill: Color?
    let label: String

    /// A frame decoded at `decodeTarget`, placed in the node's bounds as its display places the
    /// file, modified and flattened as its display is; nil when cancelled. Worker thread (or the
    /// main thread for a node that displays there).
    func draw(_ frame: Bitmap, isCancelled: @Sendable () -> Bool) -> Bitmap? {
        let prepared = ImageNode.PreparedImage(
            bitmap: frame, sourcePixels: sourcePixels, geometry: geometry, scale: scale)
        let drawn = ImageNode.drawPlaced(
            prepared, backing: (backingWidth, backingHeight), size: boundsSize, modification: modification,
            label: label, isCancelled: isCancelled)
        return fill.flatMap { fill in drawn?.flattened(over: fill) } ?? drawn
    }
}

/// One node's animation in play: its decoder, and the frames decoded ahead of the one on
/// screen, at most `framesAhead`. Frames are made on the display workers (one job at a time,
/// which decodes until that many wait), or on the calling thread with `decodeNow`; the main
/// thread takes them as their time comes. Stopping releases the decoder and the frames (a job
/// running then finishes its frame and drops it). Thread-safe.
final class AnimationPlayer: Sendable {
    /// A frame ready to show.
    struct Frame: Sendable {
        let bitmap: Bitmap
        let index: Int
        let duration: TimeInterval
        /// Whether it is the animation's last frame (a play ends with it).
        let isLast: Bool
        /// How many plays the file asks for (0: forever).
        let loopCount: Int
    }

    /// Frames decoded ahead of the one on screen: the next, and one more to cover a worker busy
    /// with other displays when its time comes.
    static let framesAhead = 2

    let plan: AnimationPlan

    private struct State {
        var decoder: AnimationDecoder?
        var ready: Deque<Frame> = []
        var isDecoding = false
        /// Why the animation cannot go on (it then holds its last frame).
        var failure: ImageError?
        /// Set when the file holds a single frame after all (a GIF cut inside its second image,
        /// a WebP animation of one frame): nothing to play.
        var isStill = false
        /// Set when the main thread found no frame ready at its time: the next frame made wakes
        /// the frame loop (frames made ahead otherwise wait for their time, no turn of their own).
        var isAwaited = true
    }

    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    /// Frames decoded so far (tests: never more than shown plus `framesAhead`).
    private let decoded = Atomic<Int>(0)

    init(plan: AnimationPlan) {
        self.plan = plan
    }

    /// Frames decoded since the player started.
    var framesDecoded: Int { decoded.load(ordering: .relaxed) }

    /// Frames made and waiting for their time.
    var readyCount: Int { state.withLock { $0.ready.count } }

    /// Why the animation stopped on its own, if it did.
    var failure: ImageError? { state.withLock { $0.failure } }

    /// Whether there is nothing more to play: a failure, or a file of one frame.
    var hasEnded: Bool { state.withLock { $0.failure != nil || $0.isStill } }

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// The next frame, if it is ready; if not, the next frame made calls the `wake` it was
    /// requested with.
    func takeFrame() -> Frame? {
        state.withLock { state in
            let frame = state.ready.popFirst()
            if frame == nil { state.isAwaited = true }
            return frame
        }
    }

    /// Starts a worker job that decodes frames until `framesAhead` wait, unless one runs or
    /// enough wait. `wake` runs on the worker when a frame is made while the main thread awaits
    /// one (see `takeFrame`), and when the player fails.
    func requestFrames(priority: DisplayPriority, wake: @escaping @Sendable () -> Void) {
        guard claimDecoding() else { return }
        DisplayQueue.shared.enqueue(
            priority: priority,
            onDrop: { [self] in state.withLock { $0.isDecoding = false } }
        ) { [self] in
            var more = true
            while more {
                let step = decodeOne()
                more = step.more
                if step.wake { wake() }
            }
        }
    }

    /// Decodes one frame on the calling thread when fewer than `framesAhead` wait (a node that
    /// displays on the main thread, in the main-thread mode).
    func decodeNow() {
        guard claimDecoding() else { return }
        _ = decodeOne()
        state.withLock { $0.isDecoding = false }  // one frame only
    }

    /// Stops for good: no more frames are made, and the decoder and the frames waiting go.
    func stop() {
        stopped.store(true, ordering: .releasing)
        let released = state.withLock { state -> (AnimationDecoder?, Deque<Frame>) in
            defer {
                state.decoder = nil
                state.ready.removeAll()
            }
            return (state.decoder, state.ready)
        }
        _ = released  // dropped outside the lock: closing a decoder frees its canvas
    }

    /// Marks a decode as running when one may start.
    private func claimDecoding() -> Bool {
        guard !isStopped else { return false }
        return state.withLock { state in
            guard !state.isDecoding, state.failure == nil, !state.isStill, state.ready.count < Self.framesAhead
            else { return false }
            state.isDecoding = true
            return true
        }
    }

    /// Makes the next frame and queues it; returns whether another is wanted now, and whether
    /// to wake the frame loop (a frame it awaits is ready, or the player failed). Clears the
    /// decoding mark when it wants no more.
    private func decodeOne() -> (more: Bool, wake: Bool) {
        let isCancelled: @Sendable () -> Bool = { [self] in isStopped }
        func finish(_ failure: ImageError? = nil) -> (more: Bool, wake: Bool) {
            state.withLock { state in
                state.isDecoding = false
                guard let failure, !isCancelled() else { return (false, false) }
                state.failure = failure
                return (false, true)
            }
        }
        guard !isCancelled() else { return finish() }
        var decoder = state.withLock { $0.decoder }
        if decoder == nil {
            do throws(ImageError) {
                let opened = try AnimationDecoder(contentsOf: plan.path)
                guard opened.frameCount > 1 else {
                    return state.withLock { state in
                        state.isDecoding = false
                        state.isStill = true
                        return (false, true)
                    }
                }
                decoder = opened
                // Kept only while the player plays: one stopped meanwhile lets it go with this job.
                state.withLock { if !isCancelled() { $0.decoder = opened } }
            } catch {
                return finish(error)
            }
        }
        guard let decoder else { return finish() }
        let frame: AnimationDecoder.Frame
        do throws(ImageError) {
            frame = try Tracer.shared.measure("frame \(plan.label)", category: "image") { () throws(ImageError) in
                try decoder.nextFrame(fitting: plan.decodeTarget, isCancelled: isCancelled)
            }
        } catch .cancelled {
            return finish()
        } catch {
            return finish(error)
        }
        guard let bitmap = plan.draw(frame.bitmap, isCancelled: isCancelled) else {
            // Not cancelled: the modification block gave nothing, and would for every frame.
            return finish(isCancelled() ? nil : .unsupported(path: plan.path, reason: "the image modification gave no frame"))
        }
        decoded.add(1, ordering: .relaxed)
        let ready = Frame(
            bitmap: bitmap, index: frame.index, duration: frame.duration,
            isLast: frame.index == decoder.frameCount - 1, loopCount: decoder.loopCount)
        return state.withLock { state in
            guard !isCancelled() else {
                state.isDecoding = false
                return (false, false)
            }
            state.ready.append(ready)
            let wake = state.isAwaited
            state.isAwaited = false
            let more = state.ready.count < Self.framesAhead
            if !more { state.isDecoding = false }
            return (more, wake)
        }
    }
}

/// Plays the animated images of visible image nodes (Texture plays animated images and videos
/// only in the visible range): each frame is set as its node's layer contents at the turn its
/// time comes, by the frame loop's clock, and the loop is asked for a turn when the next one is
/// due, so an animation runs while nothing else moves. A frame that is not decoded by its time
/// shows when it is (the animation slows rather than skips), and its successor's time counts
/// from then. An animation ends after the plays its file asks for, on its last frame.
///
/// One per installed display scheduler (`DisplayScheduler.imageAnimations`); nodes start and
/// stop their animations as they enter and leave the visible range. Main thread only.
@MainActor
public final class ImageAnimations {
    /// Holds every animation on its current frame; false resumes them with their next frame.
    public var isPaused = false {
        didSet {
            guard isPaused != oldValue else { return }
            runLoop.setNeedsFrame()
        }
    }

    /// Animations playing now (a paused one counts).
    public var playingCount: Int { entries.count }

    /// Frames set on layers so far.
    public private(set) var framesShown = 0

    /// Main-thread seconds spent in the turns' animation work (taking frames, setting contents,
    /// asking for decodes), and the turns that had any animation to look after.
    public private(set) var tickSeconds: TimeInterval = 0
    public private(set) var ticks = 0

    /// The animation of `node`, if it plays (tests).
    func player(of node: ImageNode) -> AnimationPlayer? { entries[ObjectIdentifier(node)]?.player }

    /// Tests: the time a turn's animation work runs at, instead of the turn's own (a clock the
    /// test moves, so frames are checked against their times exactly).
    var clock: (() -> TimeInterval)?

    private struct Entry {
        weak var node: ImageNode?
        let player: AnimationPlayer
        /// When the frame on screen is over (nil: show the next frame as soon as it is ready).
        var due: TimeInterval?
        /// When the animation started: the display's first frame is on screen from then.
        var startedAt: TimeInterval
        /// Whether the player's own first frame has been taken: the display showed it already,
        /// so it only starts the clock for the second.
        var hasTakenFirst = false
        /// Plays completed.
        var plays = 0
        /// Whether the node's or everyone's pause held it at the last turn.
        var wasPaused = false
    }

    let runLoop: FrameLoop
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var token: FrameLoop.ObserverToken?

    init(runLoop: FrameLoop) {
        self.runLoop = runLoop
        // Before the uploads of the same turn (at the end of `beforePresent`), after the fades.
        token = runLoop.addObserver(.beforePresent, order: Int.min + 1) { [weak self] turn in
            guard let self else { return }
            tick(at: clock?() ?? turn.time)
        }
    }

    /// Stops every animation and the observer.
    func invalidate() {
        if let token { runLoop.removeObserver(token) }
        token = nil
        for entry in entries.values { entry.player.stop() }
        entries.removeAll()
    }

    /// Plays `node`'s animation from its first frame, which its display shows (replacing one it
    /// had): the second frame comes after the first's duration.
    func play(_ node: ImageNode, plan: AnimationPlan) {
        stop(node)
        let player = AnimationPlayer(plan: plan)
        entries[ObjectIdentifier(node)] = Entry(node: node, player: player, startedAt: clock?() ?? MonotonicClock.now())
        // Paused, it makes no frame until it plays.
        if !isPaused && !node.animatedImagePaused { request(player, for: node) }
        runLoop.setNeedsFrame()
    }

    /// Stops `node`'s animation, if it plays; its current frame stays on its layer.
    func stop(_ node: ImageNode) {
        entries.removeValue(forKey: ObjectIdentifier(node))?.player.stop()
    }

    private func request(_ player: AnimationPlayer, for node: ImageNode) {
        if node.displaysAsynchronously {
            let loop = runLoop
            // After the visible cells' displays, before the work for cells off screen.
            player.requestFrames(priority: DisplayPriority(isVisible: false, distance: 0)) { loop.setNeedsFrame() }
        } else {
            player.decodeNow()
        }
    }

    private func tick(at time: TimeInterval) {
        guard !entries.isEmpty else { return }
        let start = MonotonicClock.now()
        var nextDue: TimeInterval?
        for (key, var entry) in entries {
            guard let node = entry.node, let layer = node.layerIfLoaded, !entry.player.isStopped else {
                entries.removeValue(forKey: key)?.player.stop()
                continue
            }
            if isPaused || node.animatedImagePaused {
                entry.wasPaused = true
                entries[key] = entry
                continue
            }
            if entry.wasPaused {
                // Resumed: the frame on screen has had its time; the next shows when ready.
                entry.wasPaused = false
                entry.due = nil
            }
            switch advance(&entry, node: node, layer: layer, at: time) {
            case .remove:
                entries.removeValue(forKey: key)?.player.stop()
            case .keep(let due):
                if let due { nextDue = min(nextDue ?? due, due) }
                entries[key] = entry
            }
        }
        if let nextDue { runLoop.setNeedsFrame(at: nextDue) }
        ticks += 1
        tickSeconds += MonotonicClock.now() - start
    }

    /// What a turn did with an animation: keep it (its next frame's time, if known), or end it.
    private enum Step {
        case keep(due: TimeInterval?)
        case remove
    }

    /// Shows `entry`'s next frame if its time has come at `time` and it is ready.
    private func advance(_ entry: inout Entry, node: ImageNode, layer: Layer, at time: TimeInterval) -> Step {
        // At most two rounds: the player's first frame, which the display showed already, only
        // sets the time of the second, which may then be due in the same turn.
        while true {
            if let due = entry.due, time < due {
                request(entry.player, for: node)
                return .keep(due: due)
            }
            guard let frame = entry.player.takeFrame() else {
                // Ended: it holds the frame on screen; the node's next display starts it over.
                if entry.player.hasEnded { return .remove }
                // A worker asks for a turn when the frame is ready; a frame made here now shows
                // at the next turn.
                request(entry.player, for: node)
                if !node.displaysAsynchronously { runLoop.setNeedsFrame() }
                return .keep(due: nil)
            }
            let shownFirst = !entry.hasTakenFirst && frame.index == 0
            let shownAt: TimeInterval
            if shownFirst {
                // The display put this frame on screen when the animation started.
                entry.hasTakenFirst = true
                shownAt = entry.startedAt
            } else {
                layer.contents = frame.bitmap
                framesShown += 1
                // On time (or under a frame late), the next frame's time counts from this one's,
                // so the cadence holds; later than that, from now.
                shownAt = entry.due.map { time - $0 < frame.duration ? $0 : time } ?? time
            }
            entry.due = shownAt + frame.duration
            if frame.isLast {
                entry.plays += 1
                if frame.loopCount > 0 && entry.plays >= frame.loopCount { return .remove }
            }
            request(entry.player, for: node)
            if !shownFirst { return .keep(due: entry.due) }
        }
    }
}
