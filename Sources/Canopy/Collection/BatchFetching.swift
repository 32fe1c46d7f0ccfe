import Foundation
import Synchronization

/// A batch fetch's state, shared between the collection (main thread) and the app's fetch
/// (any thread) (Texture's ASBatchContext).
///
/// Thread-safe: a `Mutex` guards the state and `onStateChange`, so any method may be called
/// from any thread. `onStateChange` runs after the lock is released, so it may read the
/// context or call it again.
public final class BatchContext: Sendable {
    public enum State: Sendable, Equatable {
        /// No fetch in flight: the last one completed, or none began.
        case completed
        case fetching
        /// The last fetch was cancelled (by the collection or by the app).
        case cancelled
    }

    private struct Storage {
        var state: State = .completed
        var onStateChange: (@Sendable (State) -> Void)?
    }

    private let storage = Mutex(Storage())

    public init() {}

    public var state: State {
        storage.withLock { $0.state }
    }

    public var isFetching: Bool {
        state == .fetching
    }

    public var batchFetchingWasCancelled: Bool {
        state == .cancelled
    }

    /// Marks a fetch begun (the collection calls it before willBeginBatchFetch).
    public func beginBatchFetching() {
        storage.withLock { $0.state = .fetching }
    }

    /// The app calls this when its fetch ended; didComplete false means it was cancelled
    /// (cancelled state), then `onStateChange` is called with the new state.
    ///
    /// Texture ignores `completeBatchFetching:NO`, leaving the context fetching, so that no
    /// batch is fetched again until a later completion; here it ends the fetch as cancelled,
    /// so a failed fetch can be retried by the next check.
    public func completeBatchFetching(_ didComplete: Bool) {
        let newState: State = didComplete ? .completed : .cancelled
        let callback = storage.withLock { storage in
            storage.state = newState
            return storage.onStateChange
        }
        callback?(newState)
    }

    /// Cancels a fetch in flight (the collection calls it on reloadData); the app sees
    /// batchFetchingWasCancelled. It does not call `onStateChange`: the collection cancels,
    /// so it knows.
    public func cancelBatchFetching() {
        storage.withLock { $0.state = .cancelled }
    }

    /// Called after completeBatchFetching with the new state, on whatever thread called it
    /// (the collection uses it to re-check whether to fetch again). When completions race on
    /// several threads, each call gets the state its own completion set.
    public var onStateChange: (@Sendable (State) -> Void)? {
        get { storage.withLock { $0.onStateChange } }
        set { storage.withLock { $0.onStateChange = newValue } }
    }
}

/// Texture's batch-fetching rule (ASBatchFetching's ASDisplayShouldFetchBatchForContext),
/// vertical only.
package enum BatchFetching {
    /// How many viewport heights from the end of the content a fetch begins (Texture's
    /// leadingScreensForBatching default).
    package static let defaultLeadingScreens: CGFloat = 2

    /// Whether a new batch should be fetched. The checks, in Texture's order:
    /// never while one is in flight; never for leadingScreens <= 0 (or NaN) or an empty
    /// viewport; always when the content is shorter than the viewport; otherwise never when
    /// not visible; never when scrolling towards the head (.up; .none does not block); else
    /// when the distance left below the viewport (contentHeight - viewport height - offset) is
    /// at most leadingScreens viewport heights.
    ///
    /// `viewport.origin.y` is the scroll offset. Texture's horizontal and right-to-left cases
    /// are left out (Canopy scrolls vertically only), and so is its batchFetchingDelegate,
    /// which may overrule the answer given the time left at the current velocity.
    package static func shouldFetch(
        context: BatchContext, direction: ScrollDirection, viewport: CGRect,
        contentHeight: CGFloat, leadingScreens: CGFloat, isVisible: Bool
    ) -> Bool {
        if context.isFetching { return false }
        // `!(x > 0)` also turns a NaN away.
        if !(leadingScreens > 0) || viewport.isEmpty { return false }

        let viewLength = viewport.height
        if contentHeight < viewLength { return true }
        if !isVisible { return false }
        if direction == .up { return false }

        let triggerDistance = viewLength * leadingScreens
        let remainingDistance = contentHeight - viewLength - viewport.origin.y
        return remainingDistance <= triggerDistance
    }
}

// MARK: The collection's check (main thread)

extension CollectionNode {
    /// Texture's check after each turn (ASCollectionView's `_checkForBatchFetching`): when the
    /// rule above says the end is near and the delegate wants more, the context is marked
    /// fetching here, on the main thread, and the delegate's willBeginBatchFetch runs on a
    /// background queue. Not while a reload is pending: the content's height is still the old
    /// data's.
    @MainActor
    func checkBatchFetch() {
        let delegate = self.delegate, leading = leadingScreensForBatching
        let height = dataController.model.withLock { $0.layout.contentHeight }
        guard let delegate, !dataController.model.withLock({ $0.needsReloadData }) else { return }
        guard
            BatchFetching.shouldFetch(
                context: batchContext, direction: scrollDirection, viewport: visibleContentRect,
                contentHeight: height, leadingScreens: leading, isVisible: isNodeLoaded),
            delegate.shouldBatchFetch(for: self)
        else { return }
        batchContext.beginBatchFetching()
        let context = batchContext
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            delegate.collectionNode(self, willBeginBatchFetchWith: context)
        }
    }
}
