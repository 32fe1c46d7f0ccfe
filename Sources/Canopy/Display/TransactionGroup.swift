import Foundation

/// The open and committed transactions of one run loop (Texture's `_ASAsyncTransactionGroup`).
///
/// Its observer runs after everything else in the turn's commit phase (`afterCommit`, last): it
/// closes the transactions opened during the turn and completes, in the order they were opened,
/// every committed transaction whose operations have all finished, so their contents are set
/// before the turn's uploads (`beforePresent`) and appear in the same frame. A worker finishing a
/// transaction's last operation asks the loop for a frame. Main thread, except
/// `operationsFinished()`.
@MainActor
package final class TransactionGroup {
    nonisolated private let runLoop: FrameLoop
    private var transactions: [AsyncTransaction] = []
    private var token: FrameLoop.ObserverToken?

    package init(runLoop: FrameLoop) {
        self.runLoop = runLoop
        token = runLoop.addObserver(.afterCommit, order: .max) { [weak self] _ in self?.commit() }
    }

    deinit {
        if let token { runLoop.removeObserverFromAnyThread(token) }
    }

    /// Transactions completed since the group was made, and the main-thread seconds their
    /// completions took (setting contents, the hooks): what committing costs.
    package private(set) var completedCount = 0
    package private(set) var completionSeconds: TimeInterval = 0

    /// Transactions not completed yet.
    package var pendingCount: Int { transactions.count }

    /// Stops observing the run loop (pending transactions are left as they are).
    package func invalidate() {
        if let token { runLoop.removeObserver(token) }
        token = nil
    }

    /// Cancels every transaction not completed yet: their operations still queued never run and
    /// those running see `isCancelled`; their completions run (with `cancelled` true) only if the
    /// group still observes the loop. For a group about to end (`DisplayScheduler.uninstall`).
    package func cancelPending() {
        for transaction in transactions { transaction.cancel() }
    }

    func add(_ transaction: AsyncTransaction) {
        transactions.append(transaction)
        runLoop.setNeedsFrame()
    }

    /// Any thread: a transaction's last operation finished (or it was cancelled); commit next turn.
    nonisolated func operationsFinished() {
        runLoop.setNeedsFrame()
    }

    /// Commits `transaction` now and, if its operations have all returned, completes it at once
    /// instead of at the end of the turn. Returns whether it completed.
    @discardableResult
    package func completeNow(_ transaction: AsyncTransaction) -> Bool {
        transaction.commit()
        guard transaction.isReadyToComplete else { return false }
        transactions.removeAll { $0 === transaction }
        complete(transaction)
        return true
    }

    /// Commits open transactions and completes the finished ones, in order.
    package func commit() {
        guard !transactions.isEmpty else { return }
        let traceStart = Tracer.shared.isRecording ? Tracer.now() : nil
        var completed = false
        var remaining: [AsyncTransaction] = []
        let current = transactions
        transactions = []
        for transaction in current {
            transaction.commit()
            if transaction.isReadyToComplete {
                complete(transaction)
                completed = true
            } else {
                remaining.append(transaction)
            }
        }
        if let traceStart, completed {
            Tracer.shared.record("land displays", category: "display", start: traceStart, end: Tracer.now())
        }
        // Completions may have opened new transactions; keep them after the waiting ones.
        transactions = remaining + transactions
    }

    private func complete(_ transaction: AsyncTransaction) {
        let start = MonotonicClock.now()
        transaction.complete()
        completionSeconds += MonotonicClock.now() - start
        completedCount += 1
    }
}
