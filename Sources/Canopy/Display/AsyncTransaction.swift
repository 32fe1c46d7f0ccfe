import Foundation
import Synchronization

/// A set of display operations whose results appear together (Texture's `_ASAsyncTransaction`).
///
/// Each operation starts at once on the display queue. The transaction stays open (more operations
/// may join) until its group commits it at the end of the turn; once it is committed and every
/// operation has finished, the group runs all the completions together on the main thread, in the
/// order the operations were added, then `completionBlock`. A container layer (a cell, or a node
/// that rasterizes its subtree) owns one, so a whole card lands in one frame.
///
/// `cancel()` makes `isCancelled` true for the running work (which should stop early) and for the
/// completions (which should then not set contents). Main thread, except `isCancelled`.
package final class AsyncTransaction: Sendable {
    package enum State: Sendable, Equatable {
        /// Accepting operations.
        case open
        /// Closed by the group; waiting for its operations.
        case committed
        /// Completions have run.
        case completed
    }

    private let queue: DisplayQueue
    private let group: TransactionGroup
    private let unfinished = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    private let mainState: Mutex<MainState>
    /// Threads blocked in `waitUntilOperationsFinish`, woken when the last operation returns.
    private let waiters = Mutex<[DispatchSemaphore]>([])

    private struct MainState {
        var state: State = .open
        var completions: [@MainActor (_ cancelled: Bool) -> Void] = []
        var completionBlock: (@MainActor (_ transaction: AsyncTransaction, _ cancelled: Bool) -> Void)?
    }

    /// A new open transaction in `group`, running its work on `queue`.
    @MainActor
    package init(group: TransactionGroup, queue: DisplayQueue = .shared) {
        self.queue = queue
        self.group = group
        mainState = Mutex(MainState())
        group.add(self)
    }

    /// Whether `cancel()` was called (any thread).
    package var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    @MainActor package var state: State { mainState.withLock { $0.state } }

    /// Runs after every operation's completion, with the transaction's cancelled flag.
    @MainActor package var completionBlock: (@MainActor (_ transaction: AsyncTransaction, _ cancelled: Bool) -> Void)? {
        get { mainState.withLock { $0.completionBlock } }
        set { mainState.withLock { $0.completionBlock = newValue } }
    }

    /// Adds an operation: `work` runs on the display queue now (most urgent first by `priority`)
    /// and may poll the `isCancelled` it is given; `completion` runs on the main thread with its
    /// result when the whole transaction completes.
    /// - Precondition: the transaction is open.
    /// `queue` runs this operation instead of the transaction's queue (the long lane, say).
    @MainActor
    package func addOperation<Value: Sendable>(
        priority: DisplayPriority = .background, queue laneQueue: DisplayQueue? = nil,
        _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) -> Value?,
        completion: @escaping @MainActor (_ value: Value?, _ cancelled: Bool) -> Void
    ) {
        let box = ResultBox<Value>()
        mainState.withLock { state in
            precondition(state.state == .open, "AsyncTransaction: operation added after commit")
            state.completions.append { cancelled in completion(box.take(), cancelled) }
        }
        unfinished.add(1, ordering: .acquiringAndReleasing)
        // A dropped operation (queue shut down, ticket cancelled) finishes with no value, so the
        // transaction still completes.
        (laneQueue ?? queue).enqueue(priority: priority, onDrop: { [self] in operationFinished() }) { [self] in
            box.store(isCancelled ? nil : work({ [self] in isCancelled }))
            operationFinished()
        }
    }

    /// Any thread: one operation returned (or was dropped).
    private func operationFinished() {
        if unfinished.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            let blocked = waiters.withLock { waiting in
                defer { waiting = [] }; return waiting
            }
            for semaphore in blocked { semaphore.signal() }
            group.operationsFinished()
        }
    }

    /// Blocks the main thread until every operation added so far has returned (they keep running
    /// on the workers meanwhile, concurrently). Used where a container must not show a placeholder
    /// (`recursivelyEnsureDisplaySynchronously`).
    @MainActor
    package func waitUntilOperationsFinish() {
        let semaphore = DispatchSemaphore(value: 0)
        let mustWait = waiters.withLock { waiting -> Bool in
            guard unfinished.load(ordering: .acquiring) > 0 else { return false }
            waiting.append(semaphore)
            return true
        }
        if mustWait { semaphore.wait() }
    }

    /// Cancels the running work and marks the completions cancelled. The completions still run (so
    /// callers can release what they hold), with `cancelled` true.
    package func cancel() {
        cancelled.store(true, ordering: .releasing)
        group.operationsFinished()
    }

    /// Closes the transaction to new operations (the group does this at the end of the turn).
    @MainActor
    package func commit() {
        mainState.withLock { if $0.state == .open { $0.state = .committed } }
    }

    /// True when committed and every operation has returned.
    @MainActor
    var isReadyToComplete: Bool {
        state == .committed && unfinished.load(ordering: .acquiring) == 0
    }

    /// Runs the completions in order, then the completion block.
    @MainActor
    func complete() {
        let (completions, block) = mainState.withLock { state in
            state.state = .completed
            let taken = (state.completions, state.completionBlock)
            state.completions = []
            state.completionBlock = nil
            return taken
        }
        let wasCancelled = isCancelled
        for completion in completions { completion(wasCancelled) }
        block?(self, wasCancelled)
    }
}

/// One operation's result, written by its worker and read once on the main thread.
private final class ResultBox<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func store(_ newValue: Value?) { value.withLock { $0 = newValue } }
    func take() -> Value? {
        value.withLock { taken in
            defer { taken = nil }; return taken
        }
    }
}
