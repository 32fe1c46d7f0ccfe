import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// The numbers are worked by hand: a viewport 800 pt tall over 5000 pt of content, with the
/// default 2 leading screens, fetches when at most 2 * 800 = 1600 pt are left below it, that is
/// from offset 5000 - 800 - 1600 = 2600 on.
final class BatchFetchingTests: XCTestCase {
    private func viewport(offset: CGFloat, height: CGFloat = 800) -> CGRect {
        CGRect(x: 0, y: offset, width: 400, height: height)
    }

    private func shouldFetch(
        _ context: BatchContext = BatchContext(), direction: ScrollDirection = .down, offset: CGFloat,
        height: CGFloat = 800, content: CGFloat = 5000, leadingScreens: CGFloat = BatchFetching.defaultLeadingScreens,
        isVisible: Bool = true
    ) -> Bool {
        BatchFetching.shouldFetch(
            context: context, direction: direction, viewport: viewport(offset: offset, height: height),
            contentHeight: content, leadingScreens: leadingScreens, isVisible: isVisible
        )
    }

    func testDefaultLeadingScreens() {
        XCTAssertEqual(BatchFetching.defaultLeadingScreens, 2)
    }

    func testFetchesWithinTheLeadingScreens() {
        // Remaining 5000 - 800 - 2600 = 1600 = 2 screens: fetch.
        XCTAssertTrue(shouldFetch(offset: 2600))
        // Remaining 1601 > 1600: no.
        XCTAssertFalse(shouldFetch(offset: 2599))
        // At the top: remaining 4200: no.
        XCTAssertFalse(shouldFetch(offset: 0))
        // At the very end: remaining 0: fetch.
        XCTAssertTrue(shouldFetch(offset: 4200))
        // Overscrolled past the end: remaining -100: fetch.
        XCTAssertTrue(shouldFetch(offset: 4300))
    }

    func testLeadingScreensScaleTheTrigger() {
        // One screen: trigger 800; remaining at 3400 is 5000 - 800 - 3400 = 800: fetch.
        XCTAssertTrue(shouldFetch(offset: 3400, leadingScreens: 1))
        // At 3399, 801 left: no.
        XCTAssertFalse(shouldFetch(offset: 3399, leadingScreens: 1))
        // Half a screen: trigger 400; at 3800, 400 left: fetch; at 3799, 401: no.
        XCTAssertTrue(shouldFetch(offset: 3800, leadingScreens: 0.5))
        XCTAssertFalse(shouldFetch(offset: 3799, leadingScreens: 0.5))
    }

    func testAFetchInFlightBlocks() {
        let context = BatchContext()
        context.beginBatchFetching()
        // At the very end and with small content, still no.
        XCTAssertFalse(shouldFetch(context, offset: 4200))
        XCTAssertFalse(shouldFetch(context, offset: 0, content: 500))
        context.completeBatchFetching(true)
        XCTAssertTrue(shouldFetch(context, offset: 4200))
        // A cancelled fetch is not in flight.
        context.beginBatchFetching()
        context.cancelBatchFetching()
        XCTAssertTrue(shouldFetch(context, offset: 4200))
    }

    func testSmallContentFetchesEvenInvisibleOrScrollingUp() {
        // 500 < 800: the viewport is not full, whatever else holds.
        XCTAssertTrue(shouldFetch(offset: 0, content: 500))
        XCTAssertTrue(shouldFetch(offset: 0, content: 500, isVisible: false))
        XCTAssertTrue(shouldFetch(direction: .up, offset: 0, content: 500))
        XCTAssertTrue(shouldFetch(direction: .up, offset: 0, content: 500, isVisible: false))
        XCTAssertTrue(shouldFetch(direction: .none, offset: 0, content: 0, isVisible: false))
        // Content exactly as tall as the viewport is not small: invisible, no.
        XCTAssertFalse(shouldFetch(offset: 0, content: 800, isVisible: false))
        // Visible, remaining 800 - 800 - 0 = 0: fetch.
        XCTAssertTrue(shouldFetch(offset: 0, content: 800))
    }

    func testInvisibleWithEnoughContentNeverFetches() {
        XCTAssertFalse(shouldFetch(offset: 4200, isVisible: false))
        XCTAssertFalse(shouldFetch(offset: 2600, isVisible: false))
    }

    func testScrollingUpNeverFetches() {
        XCTAssertFalse(shouldFetch(direction: .up, offset: 4200))
        XCTAssertFalse(shouldFetch(direction: .up, offset: 2600))
    }

    func testNoDirectionDoesNotBlock() {
        // As in Texture, only scrolling towards the head blocks.
        XCTAssertTrue(shouldFetch(direction: .none, offset: 2600))
        XCTAssertFalse(shouldFetch(direction: .none, offset: 2599))
    }

    func testNullStatesNeverFetch() {
        // Zero or negative leading screens: never, even with small content at the very end.
        XCTAssertFalse(shouldFetch(offset: 4200, leadingScreens: 0))
        XCTAssertFalse(shouldFetch(offset: 0, content: 500, leadingScreens: 0))
        XCTAssertFalse(shouldFetch(offset: 4200, leadingScreens: -1))
        XCTAssertFalse(shouldFetch(offset: 4200, leadingScreens: .nan))
        // An empty viewport: never. No height, at the very end (remaining 5000 - 0 - 5000 = 0):
        XCTAssertFalse(shouldFetch(offset: 5000, height: 0))
        // No width, with content 500 shorter than its 800 pt height:
        XCTAssertFalse(
            BatchFetching.shouldFetch(
                context: BatchContext(), direction: .down, viewport: CGRect(x: 0, y: 0, width: 0, height: 800),
                contentHeight: 500, leadingScreens: 2, isVisible: true
            ))
    }

    // MARK: - BatchContext

    func testContextStartsCompleted() {
        let context = BatchContext()
        XCTAssertEqual(context.state, .completed)
        XCTAssertFalse(context.isFetching)
        XCTAssertFalse(context.batchFetchingWasCancelled)
    }

    func testContextStateMachine() {
        let context = BatchContext()
        context.beginBatchFetching()
        XCTAssertEqual(context.state, .fetching)
        XCTAssertTrue(context.isFetching)
        XCTAssertFalse(context.batchFetchingWasCancelled)

        context.completeBatchFetching(true)
        XCTAssertEqual(context.state, .completed)
        XCTAssertFalse(context.isFetching)
        XCTAssertFalse(context.batchFetchingWasCancelled)

        context.beginBatchFetching()
        context.completeBatchFetching(false)
        XCTAssertEqual(context.state, .cancelled)
        XCTAssertFalse(context.isFetching)
        XCTAssertTrue(context.batchFetchingWasCancelled)

        context.beginBatchFetching()
        XCTAssertEqual(context.state, .fetching)
        context.cancelBatchFetching()
        XCTAssertEqual(context.state, .cancelled)
        XCTAssertFalse(context.isFetching)
        XCTAssertTrue(context.batchFetchingWasCancelled)
    }

    func testOnStateChangeGetsTheNewStateAfterCompletion() {
        let context = BatchContext()
        let seen = Mutex<[BatchContext.State]>([])
        XCTAssertNil(context.onStateChange)
        context.onStateChange = { state in
            // Called outside the lock: reading the context does not deadlock.
            XCTAssertEqual(context.state, state)
            seen.withLock { $0.append(state) }
        }
        XCTAssertNotNil(context.onStateChange)

        context.beginBatchFetching()
        XCTAssertEqual(seen.withLock { $0 }, [])
        context.completeBatchFetching(true)
        XCTAssertEqual(seen.withLock { $0 }, [.completed])
        context.beginBatchFetching()
        context.completeBatchFetching(false)
        XCTAssertEqual(seen.withLock { $0 }, [.completed, .cancelled])
        // Cancelling is the collection's own doing: no call.
        context.beginBatchFetching()
        context.cancelBatchFetching()
        XCTAssertEqual(seen.withLock { $0 }, [.completed, .cancelled])

        context.onStateChange = nil
        context.completeBatchFetching(true)
        XCTAssertEqual(seen.withLock { $0 }, [.completed, .cancelled])
        XCTAssertEqual(context.state, .completed)
    }

    func testConcurrentCompletionsEndConsistent() {
        let context = BatchContext()
        let seen = Mutex<[BatchContext.State]>([])
        context.onStateChange = { state in seen.withLock { $0.append(state) } }
        context.beginBatchFetching()
        let iterations = 200
        DispatchQueue.concurrentPerform(iterations: iterations) { i in
            context.completeBatchFetching(i.isMultiple(of: 2))
        }
        let states = seen.withLock { $0 }
        XCTAssertEqual(states.count, iterations)
        XCTAssertEqual(states.filter { $0 == .completed }.count, iterations / 2)
        XCTAssertEqual(states.filter { $0 == .cancelled }.count, iterations / 2)
        let final = context.state
        XCTAssertTrue(final == .completed || final == .cancelled)
        XCTAssertFalse(context.isFetching)
        XCTAssertEqual(context.batchFetchingWasCancelled, final == .cancelled)

        // All completing: completed, whatever the order.
        let other = BatchContext()
        other.beginBatchFetching()
        DispatchQueue.concurrentPerform(iterations: iterations) { _ in
            other.completeBatchFetching(true)
        }
        XCTAssertEqual(other.state, .completed)
    }
}
