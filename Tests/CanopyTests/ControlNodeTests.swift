import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// What happened to a control, in order: its actions' events and its override points.
final class ControlLog: Sendable {
    enum Entry: Equatable, Sendable {
        case event(ControlEvent)
        case begin(CGPoint, Int), `continue`(CGPoint), end(CGPoint), cancel
        case state(from: ControlState, to: ControlState)
    }
    private let storage = Mutex<[Entry]>([])
    func add(_ entry: Entry) { storage.withLock { $0.append(entry) } }
    var entries: [Entry] { storage.withLock { $0 } }
    var events: [ControlEvent] {
        entries.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }
    func clear() { storage.withLock { $0.removeAll() } }
}

/// A control that logs its override points and can refuse tracking.
final class LoggingControl: ControlNode, @unchecked Sendable {
    let log = ControlLog()
    let refuseBegin = Mutex(false)
    let refuseContinue = Mutex(false)

    /// A 100 x 40 control at (0, 0) whose every event is logged.
    override init() {
        super.init()
        frame = CGRect(x: 0, y: 0, width: 100, height: 40)
        let log = self.log
        addAction(for: .allEvents) { _, event in log.add(.event(event)) }
    }

    override func beginTracking(at point: CGPoint, clickCount: Int) -> Bool {
        log.add(.begin(point, clickCount))
        return !refuseBegin.withLock { $0 }
    }
    override func continueTracking(at point: CGPoint) -> Bool {
        log.add(.continue(point))
        return !refuseContinue.withLock { $0 }
    }
    override func endTracking(at point: CGPoint) { log.add(.end(point)) }
    override func cancelTracking() { log.add(.cancel) }
    override func stateDidChange(from oldState: ControlState) {
        super.stateDidChange(from: oldState)
        log.add(.state(from: oldState, to: controlState))
    }
}

final class ControlNodeTests: XCTestCase {
    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    // MARK: Tracking

    func testDownAndUpInsideSendTouchDownThenTouchUpInsideAndHighlightWhileDown() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            XCTAssertTrue(control.pointerDown(at: CGPoint(x: 10, y: 10)))
            XCTAssertTrue(control.isTracking)
            XCTAssertTrue(control.isHighlighted)
            XCTAssertTrue(control.isTouchInside)
            XCTAssertEqual(control.controlState, .highlighted)
            control.pointerUp(at: CGPoint(x: 20, y: 20))
            XCTAssertFalse(control.isTracking)
            XCTAssertFalse(control.isHighlighted)
            XCTAssertFalse(control.isTouchInside)
            XCTAssertEqual(
                control.log.entries,
                [
                    .begin(CGPoint(x: 10, y: 10), 1),
                    .state(from: .normal, to: .highlighted),
                    .event(.touchDown),
                    .state(from: .highlighted, to: .normal),
                    .end(CGPoint(x: 20, y: 20)),
                    .event(.touchUpInside),
                ])
        }
    }

    func testDraggingOutAndBackSendsDragOutsideAndInsideAndHighlightFollowsTheExpandedArea() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.hitTestSlop = EdgeInsets(all: -5)  // tappable: x [-5, 105), y [-5, 45)
            XCTAssertEqual(control.expandedTrackingArea, CGRect(x: -30, y: -30, width: 160, height: 100))
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            control.log.clear()

            control.pointerDragged(to: CGPoint(x: 50, y: -4))  // in the slop: inside
            XCTAssertEqual(control.log.events, [.touchDragInside])
            XCTAssertTrue(control.isHighlighted)

            control.pointerDragged(to: CGPoint(x: 50, y: -20))  // outside, within the expansion
            XCTAssertEqual(control.log.events, [.touchDragInside, .touchDragOutside])
            XCTAssertTrue(control.isHighlighted, "still within the expanded area")
            XCTAssertTrue(control.isTouchInside)

            control.pointerDragged(to: CGPoint(x: 50, y: -31))  // beyond the expansion
            XCTAssertEqual(control.log.events.last, .touchDragOutside)
            XCTAssertFalse(control.isHighlighted)
            XCTAssertFalse(control.isTouchInside)

            control.pointerDragged(to: CGPoint(x: 50, y: 20))  // back
            XCTAssertEqual(control.log.events.last, .touchDragInside)
            XCTAssertTrue(control.isHighlighted)
            XCTAssertEqual(control.log.entries.filter { if case .continue = $0 { true } else { false } }.count, 4)
            XCTAssertTrue(control.log.entries.contains(.state(from: .highlighted, to: .normal)))
            XCTAssertEqual(control.log.entries.last, .event(.touchDragInside))
        }
    }

    func testUpBeyondTheExpandedAreaIsTouchUpOutsideAndWithinItIsTouchUpInside() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            control.pointerDragged(to: CGPoint(x: 50, y: 100))
            control.pointerUp(at: CGPoint(x: 50, y: 100))  // expanded area ends at y 65
            XCTAssertEqual(control.log.events, [.touchDown, .touchDragOutside, .touchUpOutside])
            XCTAssertFalse(control.isHighlighted)

            control.log.clear()
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            control.pointerUp(at: CGPoint(x: 50, y: 60))  // outside the bounds, inside the expansion
            XCTAssertEqual(control.log.events, [.touchDown, .touchUpInside])

            control.log.clear()
            control.expandedTrackingInset = 0
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            control.pointerUp(at: CGPoint(x: 50, y: 40))  // the bounds' maximum edge is out
            XCTAssertEqual(control.log.events, [.touchDown, .touchUpOutside])
        }
    }

    func testCancellingUnhighlightsCallsCancelTrackingAndSendsTouchCancel() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            control.log.clear()
            control.pointerCancelled()
            XCTAssertEqual(control.log.entries, [.state(from: .highlighted, to: .normal), .cancel, .event(.touchCancel)])
            XCTAssertFalse(control.isTracking)
            // Nothing is tracked now: a later up or cancel does nothing.
            control.log.clear()
            control.pointerUp(at: CGPoint(x: 50, y: 20))
            control.pointerCancelled()
            control.pointerDragged(to: CGPoint(x: 50, y: 20))
            XCTAssertEqual(control.log.entries, [])
        }
    }

    func testASecondDownWhileTrackingCancelsInsteadOfStartingAgain() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            XCTAssertTrue(control.pointerDown(at: CGPoint(x: 60, y: 20)))
            XCTAssertEqual(control.log.events, [.touchDown, .touchCancel])
            XCTAssertFalse(control.isTracking)
            XCTAssertEqual(control.log.entries.filter { if case .begin = $0 { true } else { false } }.count, 1)
        }
    }

    func testTheSecondClickOfADoubleClickIsTouchDownRepeat() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.pointerDown(at: CGPoint(x: 50, y: 20), clickCount: 1)
            control.pointerUp(at: CGPoint(x: 50, y: 20))
            control.pointerDown(at: CGPoint(x: 50, y: 20), clickCount: 2)
            control.pointerUp(at: CGPoint(x: 50, y: 20))
            XCTAssertEqual(control.log.events, [.touchDown, .touchUpInside, .touchDownRepeat, .touchUpInside])
            XCTAssertTrue(control.log.entries.contains(.begin(CGPoint(x: 50, y: 20), 2)))
        }
    }

    func testADisabledControlReceivesNothing() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.isEnabled = false
            control.log.clear()
            XCTAssertFalse(control.pointerDown(at: CGPoint(x: 50, y: 20)))
            control.pointerDragged(to: CGPoint(x: 50, y: 20))
            control.pointerUp(at: CGPoint(x: 50, y: 20))
            control.pointerCancelled()
            XCTAssertEqual(control.log.entries, [])
            XCTAssertFalse(control.isTracking)
            XCTAssertFalse(control.isHighlighted)
            XCTAssertEqual(control.controlState, .disabled)
        }
    }

    func testDisablingWhileTrackingCancelsThePress() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.pointerDown(at: CGPoint(x: 50, y: 20))
            control.log.clear()
            control.isEnabled = false
            XCTAssertEqual(
                control.log.entries,
                [
                    .state(from: .highlighted, to: [.highlighted, .disabled]),
                    .state(from: [.highlighted, .disabled], to: .disabled),
                    .cancel,
                    .event(.touchCancel),
                ])
            XCTAssertFalse(control.isTracking)
        }
    }

    func testRefusingToBeginOrContinueTracking() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.refuseBegin.withLock { $0 = true }
            XCTAssertFalse(control.pointerDown(at: CGPoint(x: 50, y: 20)))
            XCTAssertFalse(control.isTracking)
            XCTAssertEqual(control.log.events, [])

            control.refuseBegin.withLock { $0 = false }
            control.refuseContinue.withLock { $0 = true }
            XCTAssertTrue(control.pointerDown(at: CGPoint(x: 50, y: 20)))
            control.pointerDragged(to: CGPoint(x: 55, y: 20))
            XCTAssertFalse(control.isTracking, "tracking stops quietly")
            XCTAssertFalse(control.isHighlighted)
            control.pointerUp(at: CGPoint(x: 55, y: 20))
            XCTAssertEqual(control.log.events, [.touchDown])
        }
    }

    // MARK: Actions

    func testSendActionsCallsHandlersEventByEventInTheOrderTheyWereAdded() {
        MainActor.assumeIsolated {
            let control = ControlNode()
            let log = Mutex<[String]>([])
            control.addAction(for: .valueChanged) { _, event in log.withLock { $0.append("a \(event)") } }
            let b = control.addAction(for: [.valueChanged, .touchDown]) { sender, event in
                XCTAssertTrue(sender === control)
                log.withLock { $0.append("b \(event)") }
            }
            control.addAction(for: .touchUpInside) { _, event in log.withLock { $0.append("c \(event)") } }
            control.sendActions(for: .valueChanged)
            XCTAssertEqual(log.withLock { $0 }, ["a valueChanged", "b valueChanged"])

            log.withLock { $0.removeAll() }
            control.sendActions(for: [.valueChanged, .touchDown, .touchCancel])
            XCTAssertEqual(log.withLock { $0 }, ["b touchDown", "a valueChanged", "b valueChanged"])

            log.withLock { $0.removeAll() }
            control.removeAction(b)
            control.removeAction(b)  // a second removal is harmless
            control.sendActions(for: .allEvents)
            XCTAssertEqual(log.withLock { $0 }, ["c touchUpInside", "a valueChanged"])
            XCTAssertTrue(control.hasActions(for: [.touchDown, .valueChanged]))
            XCTAssertFalse(control.hasActions(for: .touchDown))

            control.removeAllActions()
            log.withLock { $0.removeAll() }
            control.sendActions(for: .allEvents)
            XCTAssertEqual(log.withLock { $0 }, [])
            XCTAssertFalse(control.hasActions(for: .allEvents))
            XCTAssertTrue(control.isUserInteractionEnabled, "removing actions leaves input on")
        }
    }

    func testAddingAnActionFromAnotherThreadTurnsInputOn() {
        let control = ControlNode()
        XCTAssertFalse(control.isUserInteractionEnabled)
        let done = DispatchSemaphore(value: 0)
        Thread {
            control.addAction(for: .touchUpInside) { _, _ in }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
        XCTAssertTrue(control.isUserInteractionEnabled)
        XCTAssertTrue(control.hasActions(for: .touchUpInside))
    }

    func testControlEventsListTheirEventsInOrder() {
        let events: ControlEvents = [.touchCancel, .touchDown, .valueChanged]
        XCTAssertEqual(events.events, [.touchDown, .touchCancel, .valueChanged])
        XCTAssertTrue(events.contains(ControlEvent.touchDown))
        XCTAssertFalse(events.contains(ControlEvent.touchUpInside))
        XCTAssertEqual(ControlEvents.allEvents.events, ControlEvent.allCases)
        XCTAssertEqual(ControlEvents.allTouchEvents.events.count, 7)
        XCTAssertFalse(ControlEvents.allTouchEvents.contains(ControlEvent.valueChanged))
    }

    // MARK: State

    func testStateChangesOnTheMainThreadAreReportedAtOnceAndOnlyWhenTheyChange() {
        MainActor.assumeIsolated {
            let control = LoggingControl()
            control.isSelected = true
            XCTAssertEqual(control.log.entries, [.state(from: .normal, to: .selected)])
            control.isSelected = true
            XCTAssertEqual(control.log.entries.count, 1)
            control.isHighlighted = true
            control.isEnabled = false
            control.isSelected = false
            XCTAssertEqual(
                control.log.entries,
                [
                    .state(from: .normal, to: .selected),
                    .state(from: .selected, to: [.selected, .highlighted]),
                    .state(from: [.selected, .highlighted], to: [.selected, .highlighted, .disabled]),
                    .state(from: [.selected, .highlighted, .disabled], to: [.highlighted, .disabled]),
                ])
            XCTAssertFalse(control.isEnabled)
            XCTAssertTrue(control.isHighlighted)
            XCTAssertFalse(control.isSelected)
        }
    }

    func testStateChangesFromAnotherThreadAreReportedTogetherAtTheNextTurn() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            DisplayScheduler.shared.install(on: loop)
            let control = LoggingControl()
            let done = DispatchSemaphore(value: 0)
            Thread {
                control.isSelected = true
                control.isEnabled = false
                // Undone before the main thread looks: not reported.
                control.isHighlighted = true
                control.isHighlighted = false
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            XCTAssertEqual(control.log.entries, [], "nothing runs before the turn")
            XCTAssertEqual(control.controlState, [.selected, .disabled], "the values themselves change at once")
            loop.runTurn()
            XCTAssertEqual(control.log.entries, [.state(from: .normal, to: [.selected, .disabled])])
            loop.runTurn()
            XCTAssertEqual(control.log.entries.count, 1)
        }
    }
}
