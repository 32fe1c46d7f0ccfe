import DequeModule
import Foundation

/// Work spread over run-loop turns: items wait in FIFO order and each turn hands the handler as
/// many as fit in a time budget. Texture's `ASRunLoopQueue`, bounded by time instead of by count.
/// Main thread only: every member is called on the main thread (the type is `@MainActor`), and
/// so is the handler; only the deinit may run elsewhere, if the last reference goes there.
///
/// The queue installs one observer at `phase` of `runLoop`. Each turn it takes items from the
/// front and calls the handler with each, until the time spent in this turn (read from `clock`)
/// reaches `budget` or the queue is empty. It always handles at least one item per turn, so a
/// slow item or a zero budget still makes progress. While items remain after a turn it asks the
/// loop for another frame, as it does when an item is enqueued, so a sleeping loop keeps turning
/// until the queue is drained.
///
/// Membership is exclusive, by object identity: enqueueing an item that is already waiting does
/// nothing (it keeps its place). An item leaves the queue just before its handler call, so it
/// may be enqueued again from then on, by the handler too (it then goes to the back).
///
/// The queue holds its waiting items strongly and lets them go once handled or removed. The
/// observer holds the queue weakly; `invalidate()` or the queue's deinit removes it.
@MainActor
package final class RunLoopQueue<Item: AnyObject> {
    /// What a queue is handed to do with each item: the item, and whether it was the last one
    /// waiting (the call that empties the queue). Called on the main thread.
    package typealias Handler = @MainActor (_ item: Item, _ isQueueDrained: Bool) -> Void

    /// The loop whose turns drain the queue.
    package let runLoop: FrameLoop
    /// The point of the turn where the queue's observer runs.
    package let phase: FrameLoop.Phase
    /// The observer's order within `phase` (lower runs first).
    package let order: Int

    /// The most time one turn spends on items, in seconds; at least one item is handled per
    /// turn whatever it is (so 0 means one item per turn). Takes effect at the next turn.
    package var budget: TimeInterval

    /// When false the queue's observer does nothing: items wait, and no frames are asked for.
    /// Setting it back to true asks for a frame if items are waiting.
    package var isEnabled = true {
        didSet {
            if isEnabled && !oldValue { requestFrameIfNeeded() }
        }
    }

    /// When set, each turn that handles items is one event of this name on the trace's main
    /// track (`Tracer`): the compositor's queue is "upload".
    package var traceName: String?

    /// False once `invalidate()` was called: the observer is gone and enqueues are ignored.
    package private(set) var isValid = true

    /// The most recent turn in which the (enabled) observer ran: how many items it handled and
    /// the seconds they took by `clock`. (0, 0) for a turn that found the queue empty.
    package private(set) var lastTurn: (handled: Int, seconds: TimeInterval) = (0, 0)

    /// Items handled since the queue was made.
    package private(set) var handledCount = 0

    private let clock: () -> TimeInterval
    private let handler: Handler
    private var token: FrameLoop.ObserverToken?

    /// The waiting items, front first (swift-collections' ring buffer: a handled item is
    /// released at once, and removing one from the middle moves the nearer end).
    private var items = Deque<Item>()
    /// The number of waiting items.
    package var count: Int { items.count }
    private var members = Set<ObjectIdentifier>()

    /// Makes a queue and installs its observer at `phase`, `order` of `runLoop`.
    ///
    /// - Parameters:
    ///   - budget: the most time a turn spends on items, in seconds (4 ms by default).
    ///   - clock: the time source for the budget, in seconds; tests inject a fake one.
    ///   - handler: called with each item in turn, on the main thread.
    package init(
        runLoop: FrameLoop, budget: TimeInterval = 0.004, phase: FrameLoop.Phase = .beforePresent,
        order: Int = 0, clock: @escaping () -> TimeInterval = MonotonicClock.now,
        handler: @escaping Handler
    ) {
        self.runLoop = runLoop
        self.budget = budget
        self.phase = phase
        self.order = order
        self.clock = clock
        self.handler = handler
        token = runLoop.addObserver(phase, order: order) { [weak self] _ in
            self?.handleTurn()
        }
    }

    /// Removes the observer. On the main thread (the usual last release) it goes at once; a
    /// queue released on another thread posts the removal to the loop's next turn with
    /// `perform`, which does not depend on anything draining the main actor's executor. Until
    /// then the observer finds its queue gone and does nothing.
    deinit {
        if let token { runLoop.removeObserverFromAnyThread(token) }
    }

    /// Whether no items are waiting.
    package var isEmpty: Bool { count == 0 }

    /// Whether `item` (the object itself) is waiting.
    package func contains(_ item: Item) -> Bool {
        members.contains(ObjectIdentifier(item))
    }

    /// Puts `item` at the back of the queue unless it is already waiting, and asks for a frame.
    /// Returns whether it was added (false if it was waiting already or the queue is invalid).
    @discardableResult
    package func enqueue(_ item: Item) -> Bool {
        guard append(item) else { return false }
        requestFrameIfNeeded()
        return true
    }

    /// Enqueues each of `items` in order, skipping those already waiting (including repeats
    /// within `items`), and asks for one frame if any was added. Returns how many were added.
    @discardableResult
    package func enqueue(contentsOf newItems: some Sequence<Item>) -> Int {
        var added = 0
        for item in newItems where append(item) { added += 1 }
        if added > 0 { requestFrameIfNeeded() }
        return added
    }

    /// Takes `item` out of the queue if it is waiting, keeping the order of the rest. O(n).
    /// Returns whether it was waiting.
    @discardableResult
    package func remove(_ item: Item) -> Bool {
        guard members.remove(ObjectIdentifier(item)) != nil else { return false }
        guard let position = items.firstIndex(where: { $0 === item }) else {
            preconditionFailure("RunLoopQueue: a member is missing from the queue")
        }
        items.remove(at: position)
        return true
    }

    /// Drops every waiting item (they are not handled) and frees the storage.
    package func removeAll() {
        items = Deque()
        members.removeAll()
    }

    /// Removes the observer and drops the waiting items; later enqueues are ignored. Idempotent.
    /// The queue's deinit removes the observer too, so this is only needed to stop a queue that
    /// is still referenced.
    package func invalidate() {
        isValid = false
        if let token {
            runLoop.removeObserver(token)
            self.token = nil
        }
        removeAll()
    }

    /// Handles every waiting item now, whatever the budget (including items the handler adds),
    /// e.g. before a screenshot. Does nothing while disabled or invalid.
    package func drain() {
        while count > 0 && isEnabled && isValid {
            let item = dequeue()
            handledCount += 1
            handler(item, count == 0)
        }
    }

    // MARK: - The turn

    /// The observer: handles items from the front until the budget is spent or none are left.
    private func handleTurn() {
        guard isEnabled && isValid else { return }
        guard count > 0 else {
            lastTurn = (0, 0)
            return
        }
        let traced = traceName.flatMap { Tracer.shared.begin($0, category: "frame") }
        let start = clock()
        var elapsed: TimeInterval = 0
        var handled = 0
        // The handler may enqueue, remove, disable or invalidate: check again before each item.
        repeat {
            let item = dequeue()
            handled += 1
            handledCount += 1
            handler(item, count == 0)
            elapsed = clock() - start
        } while elapsed < budget && count > 0 && isEnabled && isValid
        Tracer.shared.end(traced)
        lastTurn = (handled, elapsed)
        requestFrameIfNeeded()
    }

    /// Asks the loop for a frame if the queue would handle items in it.
    private func requestFrameIfNeeded() {
        if count > 0 && isEnabled && isValid { runLoop.setNeedsFrame() }
    }

    // MARK: - The items

    /// Adds `item` at the back unless it is waiting or the queue is invalid; returns whether it did.
    private func append(_ item: Item) -> Bool {
        guard isValid, members.insert(ObjectIdentifier(item)).inserted else { return false }
        items.append(item)
        return true
    }

    /// Takes the front item; the queue must not be empty.
    private func dequeue() -> Item {
        let item = items.removeFirst()
        members.remove(ObjectIdentifier(item))
        return item
    }
}
