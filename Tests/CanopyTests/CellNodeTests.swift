import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// A cell that logs its override points.
private final class LoggingCell: CellNode, @unchecked Sendable {
    let log = Mutex<[String]>([])
    var entries: [String] { log.withLock { $0 } }

    override func selectedStateDidChange(_ isSelected: Bool) {
        super.selectedStateDidChange(isSelected)
        XCTAssertTrue(Thread.isMainThread)
        log.withLock { $0.append("selected \(isSelected)") }
    }
    override func highlightedStateDidChange(_ isHighlighted: Bool) {
        super.highlightedStateDidChange(isHighlighted)
        XCTAssertTrue(Thread.isMainThread)
        log.withLock { $0.append("highlighted \(isHighlighted)") }
    }
}

final class CellNodeTests: XCTestCase {
    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    func testACellIsATransactionContainerThatClipsAndShowsPlaceholdersByDefault() {
        let cell = CellNode()
        XCTAssertTrue(cell.isTransactionContainer)
        XCTAssertTrue(cell.clipsToBounds)
        XCTAssertFalse(cell.neverShowPlaceholders)
        XCTAssertFalse(cell.isSelected)
        XCTAssertFalse(cell.isHighlighted)
        // Its subtree's displays join the cell's transaction.
        let child = DisplayNode()
        let grandchild = DisplayNode()
        cell.addSubnode(child)
        child.addSubnode(grandchild)
        XCTAssertTrue(grandchild.transactionContainer === cell)
        cell.isTransactionContainer = false
        XCTAssertTrue(grandchild.transactionContainer === grandchild)
    }

    func testNeverShowPlaceholdersIsStoredFromAnyThreadAndSuppressesPlaceholders() {
        let cell = CellNode()
        let done = DispatchSemaphore(value: 0)
        Thread {
            cell.neverShowPlaceholders = true
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
        XCTAssertTrue(cell.neverShowPlaceholders)
        XCTAssertTrue(cell.suppressesPlaceholders)
        let child = DisplayNode()
        cell.addSubnode(child)
        XCTAssertTrue(child.placeholdersSuppressed, "the whole subtree")
        cell.neverShowPlaceholders = false
        XCTAssertFalse(cell.neverShowPlaceholders)
        XCTAssertFalse(cell.suppressesPlaceholders)
        XCTAssertFalse(child.placeholdersSuppressed)
    }

    func testChangesOnTheMainThreadAreReportedAtOnceAndOnlyWhenTheyChange() {
        MainActor.assumeIsolated {
            let cell = LoggingCell()
            cell.isSelected = true
            XCTAssertEqual(cell.entries, ["selected true"])
            cell.isSelected = true
            cell.isHighlighted = true
            cell.isHighlighted = false
            cell.isSelected = false
            XCTAssertEqual(cell.entries, ["selected true", "highlighted true", "highlighted false", "selected false"])
        }
    }

    func testChangesFromAnotherThreadAreReportedOnTheMainThreadAtTheNextTurn() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            DisplayScheduler.shared.install(on: loop)
            let cell = LoggingCell()
            let done = DispatchSemaphore(value: 0)
            Thread {
                cell.isSelected = true
                cell.isHighlighted = true
                cell.isHighlighted = false  // undone before the turn: not reported
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            XCTAssertTrue(cell.isSelected, "the value changes at once")
            XCTAssertEqual(cell.entries, [])
            loop.runTurn()
            XCTAssertEqual(cell.entries, ["selected true"])
            loop.runTurn()
            XCTAssertEqual(cell.entries, ["selected true"])
        }
    }
}
