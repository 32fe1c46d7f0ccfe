import Foundation
import Synchronization

/// What a run loop does when it has nothing to draw: sleep until woken. The default sleeps on a
/// semaphore; a window backend replaces it with one that also wakes on input events.
public protocol FrameLoopWaiter: Sendable {
    /// Sleeps the main thread until `wake()` or, if given, the deadline (monotonic seconds).
    /// Called on the main thread only.
    func wait(until deadline: TimeInterval?)
    /// Wakes a sleeping `wait`, or makes the next one return at once. Called from any thread.
    func wake()
    /// Forgets wake-ups that arrived while nobody slept. The run loop calls it on the main
    /// thread just before it checks for work and sleeps, so a wake-up after the check still
    /// counts and earlier ones don't cause empty turns.
    func discardPendingWakeups()
}

/// The default waiter: a semaphore.
public final class SemaphoreWaiter: FrameLoopWaiter {
    private let semaphore = DispatchSemaphore(value: 0)
    public init() {}
    public func wait(until deadline: TimeInterval?) {
        if let deadline {
            let remaining = max(0, deadline - MonotonicClock.now())
            _ = semaphore.wait(timeout: .now() + remaining)
        } else {
            semaphore.wait()
        }
    }
    public func wake() { semaphore.signal() }
    public func discardPendingWakeups() {
        while semaphore.wait(timeout: .now()) == .success {}
    }
}

/// The main thread's loop: one turn per frame, with observers at fixed points of the turn.
///
/// A turn runs, in order: input (the backend's events), `afterInput` observers, the work other
/// threads posted with `perform`, `layout`, `beforeCommit`, `afterCommit` and `beforePresent`
/// observers, then the backend presents. Within a phase, observers run by ascending `order`,
/// then in the order they were added. The loop sleeps when no one asked for another frame,
/// and `perform` or `setNeedsFrame` from any thread wakes it.
@MainActor
public final class FrameLoop {
    /// The points of a turn where observers run, in the order they run.
    public enum Phase: Int, CaseIterable, Comparable, Sendable {
        case afterInput, layout, beforeCommit, afterCommit, beforePresent
        public static func < (a: Phase, b: Phase) -> Bool { a.rawValue < b.rawValue }
    }

    /// Identifies an observer, to remove it.
    public struct ObserverToken: Hashable, Sendable { fileprivate let id: Int }

    /// What the observers of one turn are told.
    public struct Turn: Sendable {
        /// The turn's number, from 1.
        public var number: Int
        /// When the turn started (monotonic seconds).
        public var time: TimeInterval
        /// Seconds since the previous turn started (0 for the first).
        public var delta: TimeInterval
    }

    private struct Observer {
        var id: Int
        var phase: Phase
        var order: Int
        var body: @MainActor (Turn) -> Void
    }

    /// How the loop keeps time between frames.
    public enum Pacing: Sendable, Equatable {
        /// The backend's present call blocks until the display's vertical blank.
        case vsync(refreshRate: Double)
        /// No vsync: the loop sleeps to the next tick of a clock at this rate.
        case clock(rate: Double)

        public var refreshRate: Double {
            switch self {
            case .vsync(let rate), .clock(let rate): return rate
            }
        }
    }

    public let waiter: any FrameLoopWaiter
    public var pacing: Pacing {
        didSet { statistics.budgetMs = 1000.0 / pacing.refreshRate }
    }
    public private(set) var statistics: FrameStatistics
    /// Whether the loop was asleep (idle) before the current turn.
    public private(set) var wasIdle = true

    private var observers: [Observer] = []
    private var nextObserverID = 0
    private let posted = Mutex<[@Sendable @MainActor () -> Void]>([])
    private let frameRequested = Atomic<Bool>(true)
    /// The earliest time someone asked for a frame at, if any.
    private let frameDeadline = Mutex<TimeInterval?>(nil)
    private var turnNumber = 0
    private var lastTurnStart: TimeInterval?
    /// When the last turn's present returned: what the next frame's interval is measured from.
    private var lastPresent: TimeInterval?
    private var nextTick: TimeInterval?
    private var stopRequested = false

    public init(pacing: Pacing = .clock(rate: 60), waiter: any FrameLoopWaiter = SemaphoreWaiter()) {
        self.pacing = pacing
        self.waiter = waiter
        self.statistics = FrameStatistics(budgetMs: 1000.0 / pacing.refreshRate)
    }

    /// Adds an observer that runs at `phase` of every turn. Lower `order` runs first.
    @discardableResult
    public func addObserver(_ phase: Phase, order: Int = 0, _ body: @escaping @MainActor (Turn) -> Void) -> ObserverToken {
        nextObserverID += 1
        let observer = Observer(id: nextObserverID, phase: phase, order: order, body: body)
        // Keep the list sorted by (phase, order, insertion), so a turn just walks it.
        let index = observers.firstIndex { ($0.phase, $0.order) > (phase, order) } ?? observers.endIndex
        observers.insert(observer, at: index)
        return ObserverToken(id: observer.id)
    }

    public func removeObserver(_ token: ObserverToken) {
        observers.removeAll { $0.id == token.id }
    }

    /// Removes an observer from any thread (an owner's deinit): at once on the main thread, else
    /// at the start of the next turn's posted work.
    nonisolated public func removeObserverFromAnyThread(_ token: ObserverToken) {
        if Thread.isMainThread {
            MainActor.assumeIsolated { removeObserver(token) }
        } else {
            perform { [self] in removeObserver(token) }
        }
    }

    /// Runs `block` on the main thread at the next turn. Any thread may call it; it always wakes
    /// the waiter (posted work is rare, and a sleeping loop must see it).
    nonisolated public func perform(_ block: @escaping @Sendable @MainActor () -> Void) {
        posted.withLock { $0.append(block) }
        frameRequested.store(true, ordering: .releasing)
        waiter.wake()
    }

    /// Asks for another turn (an animation is running, something changed). Any thread. Only the
    /// first request of a turn wakes the waiter (an SDL event for the SDL backend): later ones
    /// find the flag set, which the loop checks before it sleeps.
    nonisolated public func setNeedsFrame() {
        if !frameRequested.exchange(true, ordering: .acquiringAndReleasing) {
            waiter.wake()
        }
    }

    /// Asks for a turn no later than `deadline` (monotonic seconds), even if the loop is idle
    /// then: a timer for work that must happen later, such as settling figures on screen.
    nonisolated public func setNeedsFrame(at deadline: TimeInterval) {
        frameDeadline.withLock { current in current = min(current ?? deadline, deadline) }
        waiter.wake()
    }

    /// Whether someone asked for a frame since the last turn began.
    nonisolated public var needsFrame: Bool { frameRequested.load(ordering: .acquiring) }

    /// Ends `run` after the current turn.
    public func stop() {
        stopRequested = true
        waiter.wake()
    }

    /// Runs one turn: `input` (the backend polls and dispatches its events), the observers and
    /// posted work in order, then `present`. Records the frame's statistics.
    public func runTurn(input: () -> Void = {}, present: () -> Void = {}) {
        let start = MonotonicClock.now()
        frameRequested.store(false, ordering: .releasing)
        frameDeadline.withLock { deadline in if let d = deadline, d <= start { deadline = nil } }
        turnNumber += 1
        let delta = lastTurnStart.map { start - $0 } ?? 0
        let turn = Turn(number: turnNumber, time: start, delta: delta)

        // The trace: the turn and its phases on the main thread's track. Uploads and compositing
        // (in `beforePresent`) are measured where they run: the upload queue, the backend.
        let tracer = Tracer.shared
        let traced = tracer.begin("turn", category: "frame")
        tracer.measure("input", category: "frame") {
            input()
            runObservers(.afterInput, turn)
        }
        let work = posted.withLock { queue -> [@Sendable @MainActor () -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        if !work.isEmpty {
            tracer.measure("posted work", category: "frame") { for block in work { block() } }
        }
        tracer.measure("layout", category: "frame") { runObservers(.layout, turn) }
        tracer.measure("commit", category: "frame") {
            runObservers(.beforeCommit, turn)
            runObservers(.afterCommit, turn)
        }
        runObservers(.beforePresent, turn)
        let workMs = (MonotonicClock.now() - start) * 1000
        present()
        let presented = MonotonicClock.now()
        tracer.end(traced)

        // The interval the user saw: present to present (with vsync the present waits for the
        // display; paced, the loop waited for its tick before the turn).
        let interval = wasIdle ? nil : lastPresent.map { (presented - $0) * 1000 }
        statistics.record(start: start, workMs: workMs, presentMs: (presented - start) * 1000 - workMs, intervalMs: interval)
        lastTurnStart = start
        lastPresent = presented
        wasIdle = false
    }

    /// Waits for the next frame: to the next clock tick when a frame is wanted (with vsync the
    /// present call already waited), or, when nothing is, until woken or the earliest deadline
    /// given to `setNeedsFrame(at:)`.
    public func waitForNextFrame() {
        waiter.discardPendingWakeups()
        if needsFrame {
            if case .clock(let rate) = pacing {
                let period = 1.0 / rate
                let now = MonotonicClock.now()
                var tick = (nextTick ?? now) + period
                if tick < now { tick = now }  // fell behind: don't try to catch up with a burst
                nextTick = tick
                MonotonicClock.sleep(until: tick)
            }
        } else {
            let deadline = frameDeadline.withLock { $0 }
            if let deadline, deadline <= MonotonicClock.now() { return }
            waiter.wait(until: deadline)
            wasIdle = true
            nextTick = nil
        }
    }

    /// Turns until `stop()`: each turn, then the wait for the next frame.
    public func run(input: () -> Void, present: () -> Void) {
        stopRequested = false
        while !stopRequested {
            runTurn(input: input, present: present)
            if stopRequested { break }
            waitForNextFrame()
        }
    }

    private func runObservers(_ phase: Phase, _ turn: Turn) {
        // Observers may add or remove observers; walk a snapshot.
        for observer in observers where observer.phase == phase {
            observer.body(turn)
        }
    }
}
