import Foundation
import Synchronization

/// Wraps the drawing of asynchronous displays, on their workers: a debug hook for the app (see
/// `DisplayScheduler.drawHook`), to slow displays down or serialise them and watch placeholders
/// and cancellation at work.
public protocol DisplayDrawHook: Sendable {
    /// Runs `draw` and returns what it returns, or returns nil without running it when the
    /// display is cancelled meanwhile (`isCancelled()`, which the hook should poll while it
    /// waits). Called on display workers, for many displays at once.
    func run<T>(isCancelled: @Sendable () -> Bool, _ draw: () -> T?) -> T?
}

/// Collects the nodes that asked for display (`setNeedsDisplay`, any thread) and displays the loaded
/// ones at the next turn's commit, on the main thread, before the transaction group commits.
///
/// One per process (`shared`), bound to the main run loop by `install(on:scale:)`; until then
/// requests wait. Thread-safe: a Mutex guards the waiting nodes (weakly held) and the scale.
public final class DisplayScheduler: Sendable {
    public static let shared = DisplayScheduler()

    private struct Weak { weak var node: DisplayNode? }
    private struct State {
        var waiting: [Weak] = []
        var runLoop: FrameLoop?
        var group: TransactionGroup?
        var scale: CGFloat = 1
        var token: FrameLoop.ObserverToken?
        /// Whether `group` was made by `install` (so `uninstall` ends it).
        var ownsGroup = false
        var priority: (@Sendable (DisplayNode) -> DisplayPriority)?
        var animator: LayerAnimator?
        var imageAnimations: ImageAnimations?
        var releases: RunLoopQueue<Layer>?
        var displayCount = 0
        var displaySeconds: TimeInterval = 0
        var rastersCompleted = 0
        var rastersCancelled = 0
        var drawHook: (any DisplayDrawHook)?
    }

    private let state = Mutex(State())

    /// Pixels per point of the display the contents are drawn for.
    public var scale: CGFloat {
        get { state.withLock { $0.scale } }
        set { state.withLock { $0.scale = max(0.1, newValue.isFinite ? newValue : 1) } }
    }

    /// How urgent a node's display is (the range controller answers by distance to the viewport);
    /// nil: every display is `.visible`.
    package var priorityProvider: (@Sendable (DisplayNode) -> DisplayPriority)? {
        get { state.withLock { $0.priority } }
        set { state.withLock { $0.priority = newValue } }
    }

    /// The transaction group displays commit with, once installed.
    @MainActor
    package var transactionGroup: TransactionGroup? { state.withLock { $0.group } }

    /// Displays started by the scheduler, and the main-thread seconds they took to start (the
    /// snapshot of draw parameters and the queueing): the main thread's share before commit.
    public var displayStatistics: (count: Int, seconds: TimeInterval) {
        state.withLock { ($0.displayCount, $0.displaySeconds) }
    }

    /// The group and scale displays use, once installed.
    var installation: (group: TransactionGroup, scale: CGFloat)? {
        state.withLock { state in state.group.map { ($0, state.scale) } }
    }

    /// The run loop the scheduler is installed on, if any (main-thread work posted from other
    /// threads goes there).
    public var runLoop: FrameLoop? { state.withLock { $0.runLoop } }

    /// The node's `displayPriority`, else its transaction container's, else the provider's answer,
    /// else `.visible`.
    func priority(of node: DisplayNode) -> DisplayPriority {
        if let own = node.displayPriority ?? node.transactionContainer.displayPriority { return own }
        return state.withLock { $0.priority }?(node) ?? .visible
    }

    /// Records how an asynchronous display ended: its contents landed, or it was cancelled or
    /// made stale (suspended, cleared, redisplayed) before landing.
    func recordRaster(landed: Bool) {
        state.withLock { state in
            if landed { state.rastersCompleted += 1 } else { state.rastersCancelled += 1 }
        }
    }

    /// A debug hook around each asynchronous display's drawing on its worker (nil: the drawing
    /// just runs). Rainforest's slow-draw mode sets one that delays the displays and runs them one
    /// at a time. Any thread; a display reads it once, when it starts drawing.
    public var drawHook: (any DisplayDrawHook)? {
        get { state.withLock { $0.drawHook } }
        set { state.withLock { $0.drawHook = newValue } }
    }

    /// Runs a display's drawing on a worker, through the draw hook if there is one.
    func runDisplay<T>(isCancelled: @Sendable () -> Bool, _ draw: () -> T?) -> T? {
        guard let hook = drawHook else { return draw() }
        return hook.run(isCancelled: isCancelled, draw)
    }

    /// Asynchronous displays so far: how many landed and how many were cancelled or went stale.
    public var rasterStatistics: (completed: Int, cancelled: Int) {
        state.withLock { ($0.rastersCompleted, $0.rastersCancelled) }
    }

    /// The animator of placeholder and contents fades on the installed run loop (nil until
    /// `install`: fades then end at once).
    @MainActor
    package var animator: LayerAnimator? { state.withLock { $0.animator } }

    /// The player of animated images on the installed run loop (nil until `install`: image
    /// nodes then show their first frame).
    @MainActor
    public var imageAnimations: ImageAnimations? { state.withLock { $0.imageAnimations } }

    /// The budget of main-thread layer releases per turn, in seconds.
    package static let releaseBudget: TimeInterval = 0.001

    /// Hands a layer whose node is gone to the main thread, which lets it go within a small
    /// budget per turn (Texture's main-thread deallocation). Any thread. Without an installed
    /// run loop, the layer goes when the caller drops it.
    nonisolated func releaseOnMainThread(_ layer: Layer) {
        guard let loop = state.withLock({ $0.runLoop }) else { return }
        if Thread.isMainThread {
            MainActor.assumeIsolated { enqueueRelease(layer) }
        } else {
            loop.perform { [self] in enqueueRelease(layer) }
        }
    }

    @MainActor
    private func enqueueRelease(_ layer: Layer) {
        guard let queue = state.withLock({ $0.releases }) else { return }
        queue.enqueue(layer)
    }

    /// Binds the scheduler to the app's main loop (main thread), for displays drawn at `scale`
    /// pixels per point: displays run in the loop's `beforeCommit` phase and their transactions
    /// commit together at the end of a turn. An app calls it once it has its window's loop.
    @MainActor
    public func install(on runLoop: FrameLoop, scale: CGFloat = 1) {
        install(on: runLoop, group: nil, scale: scale)
    }

    /// `install(on:scale:)` with the transaction group displays commit with (one made for the loop
    /// if nil): tests give their own.
    @MainActor
    package func install(on runLoop: FrameLoop, group: TransactionGroup?, scale: CGFloat = 1) {
        uninstall()
        let ownsGroup = group == nil
        let group = group ?? TransactionGroup(runLoop: runLoop)
        let token = runLoop.addObserver(.beforeCommit, order: .max) { [weak self] _ in self?.displayWaiting() }
        let animator = LayerAnimator(runLoop: runLoop)
        let imageAnimations = ImageAnimations(runLoop: runLoop)
        let releases = RunLoopQueue<Layer>(
            runLoop: runLoop, budget: Self.releaseBudget, phase: .afterCommit,
            order: .min
        ) { layer, _ in layer.removeFromSuperlayer() }
        releases.traceName = "release layers"
        let hasWaiting = state.withLock { state -> Bool in
            state.animator = animator
            state.imageAnimations = imageAnimations
            state.releases = releases
            state.runLoop = runLoop
            state.group = group
            state.ownsGroup = ownsGroup
            state.token = token
            return !state.waiting.isEmpty
        }
        self.scale = scale
        if hasWaiting { runLoop.setNeedsFrame() }
    }

    /// Unbinds it (main thread); waiting requests stay until the next install. The transactions of
    /// the group `install` made are cancelled: none of them can land any more, so their queued
    /// displays never run.
    @MainActor
    public func uninstall() {
        let (loop, token, ownedGroup, animator, releases, imageAnimations) = state.withLock { state in
            defer {
                state.runLoop = nil; state.group = nil; state.token = nil; state.ownsGroup = false
                state.animator = nil; state.releases = nil; state.imageAnimations = nil
            }
            return (
                state.runLoop, state.token, state.ownsGroup ? state.group : nil, state.animator, state.releases,
                state.imageAnimations
            )
        }
        if let loop, let token { loop.removeObserver(token) }
        // Nothing of the group's can land any more: its queued displays need not run (an app
        // closing with cards still drawing frees its workers at once).
        ownedGroup?.cancelPending()
        ownedGroup?.invalidate()
        animator?.invalidate()
        imageAnimations?.invalidate()
        releases?.drain()
        releases?.invalidate()
    }

    /// Any thread: `node` wants display.
    func schedule(_ node: DisplayNode) {
        let isNew = node.state.withLock { state -> Bool in
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        let loop = state.withLock { state -> FrameLoop? in
            if isNew { state.waiting.append(Weak(node: node)) }
            return state.runLoop
        }
        loop?.setNeedsFrame()
    }

    /// Displays the waiting nodes that are loaded (main thread; the observer calls it).
    @MainActor
    package func displayWaiting() {
        // Not installed: the requests wait for `install`.
        guard
            let (waiting, group, scale) = state.withLock({ state -> ([Weak], TransactionGroup, CGFloat)? in
                guard let group = state.group else { return nil }
                defer { state.waiting.removeAll(keepingCapacity: true) }
                return (state.waiting, group, state.scale)
            })
        else { return }
        let start = MonotonicClock.now()
        var displayed = 0
        let traced = waiting.isEmpty ? nil : Tracer.shared.begin("start displays", category: "display")
        for entry in waiting {
            guard let node = entry.node else { continue }
            node.state.withLock { $0.isScheduled = false }
            // An unloaded node displays when it loads.
            if node.isNodeLoaded {
                node.display(group: group, scale: scale)
                displayed += 1
            }
        }
        Tracer.shared.end(traced)
        let seconds = MonotonicClock.now() - start
        state.withLock { state in
            state.displayCount += displayed
            state.displaySeconds += seconds
        }
    }
}
