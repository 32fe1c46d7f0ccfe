import Foundation
import Synchronization

/// A node that tracks the pointer and calls actions (Texture's `ASControlNode`): the base of
/// buttons and other controls.
///
/// State: `isEnabled`, `isHighlighted` and `isSelected` (together `controlState`) may be read and
/// set on any thread (the control's own lock guards them); `stateDidChange(from:)` reports changes
/// on the main thread.
///
/// Actions: `addAction(for:_:)` registers a handler for a set of events and returns a token for
/// `removeAction(_:)`. Handlers run on the main thread, in the order they were added, for each
/// event in `ControlEvent`'s order. As in Texture, a control takes no input until it has an
/// action: `isUserInteractionEnabled` starts false and adding an action turns it on (removing
/// actions leaves it on). A subclass that handles the pointer without actions sets it itself.
///
/// Tracking follows Texture's rules (a `NodeInputRouter` drives it with the `pointer…` entry
/// points, main thread, points in the control's own coordinates):
/// - down on an enabled control: `beginTracking(at:clickCount:)`; if it agrees the control tracks,
///   is highlighted and sends `touchDown` (`touchDownRepeat` for the second click of a double
///   click). A second down while tracking cancels instead.
/// - moves: `continueTracking(at:)`; if it refuses, tracking stops quietly (unhighlighted, no
///   more events for this press). Otherwise `touchDragInside` when the point is in the tappable
///   area (`point(inside:)`: bounds and slop), `touchDragOutside` when not; the control stays
///   highlighted (and `isTouchInside`) while the point is within the *expanded* area: the tappable
///   area grown by `expandedTrackingInset` on every side (UIKit lets a finger wander 25 to 70 pt
///   off a control; Texture uses 25 on iPad, 70 on phones; we default to 25).
/// - up: tracking ends, unhighlighted, `endTracking(at:)`, then `touchUpInside` when the point is in
///   the expanded area, else `touchUpOutside`.
/// - cancel: unhighlighted, `cancelTracking()`, `touchCancel`.
/// A disabled control takes no pointer: its `hitTest` answers nil for its whole subtree, and the
/// entry points ignore it. Disabling a control while it tracks cancels the press (`touchCancel`),
/// as it already had its `touchDown`.
open class ControlNode: DisplayNode, @unchecked Sendable {
    /// Identifies one `addAction` registration, to remove it.
    public struct ActionToken: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct Registration {
        var id: Int
        var events: ControlEvents
        var handler: @Sendable @MainActor (ControlNode, ControlEvent) -> Void
    }

    private struct Storage {
        var isEnabled = true
        var isHighlighted = false
        var isSelected = false
        /// The state `stateDidChange(from:)` last reported (main thread reads and writes it).
        var reported: ControlState = []
        var isTracking = false
        var isTouchInside = false
        var expandedTrackingInset: CGFloat = 25
        var registrations: [Registration] = []
        var nextID = 0

        var controlState: ControlState {
            var state: ControlState = []
            if !isEnabled { state.insert(.disabled) }
            if isHighlighted { state.insert(.highlighted) }
            if isSelected { state.insert(.selected) }
            return state
        }
    }

    private let storage = Mutex(Storage())
    private let stateReport = CoalescedMainThreadWork()

    public override init() {
        super.init()
        isUserInteractionEnabled = false
    }

    // MARK: State (any thread)

    /// A disabled control ignores the pointer (and shows it, in subclasses that draw states).
    public var isEnabled: Bool {
        get { storage.withLock { $0.isEnabled } }
        set { setState(\.isEnabled, newValue) }
    }

    /// Set while a press is down and within the expanded tracking area; subclasses and apps may set
    /// it too.
    public var isHighlighted: Bool {
        get { storage.withLock { $0.isHighlighted } }
        set { setState(\.isHighlighted, newValue) }
    }

    public var isSelected: Bool {
        get { storage.withLock { $0.isSelected } }
        set { setState(\.isSelected, newValue) }
    }

    /// The three flags as one set (`.normal` when enabled, unhighlighted and unselected).
    public var controlState: ControlState { storage.withLock { $0.controlState } }

    /// Whether a press is being tracked.
    public var isTracking: Bool { storage.withLock { $0.isTracking } }

    /// Whether the tracked press is within the expanded tracking area.
    public var isTouchInside: Bool { storage.withLock { $0.isTouchInside } }

    /// How far beyond its tappable area a press may wander and still count as inside (for
    /// highlighting and `touchUpInside`), in points on every side. Default 25.
    public var expandedTrackingInset: CGFloat {
        get { storage.withLock { $0.expandedTrackingInset } }
        set { storage.withLock { $0.expandedTrackingInset = newValue } }
    }

    /// The expanded tracking area, in the control's own coordinates.
    public var expandedTrackingArea: CGRect {
        let inset = expandedTrackingInset
        return tappableArea.insetBy(dx: -inset, dy: -inset)
    }

    /// Called on the main thread after `isEnabled`, `isHighlighted` or `isSelected` changed, with
    /// the state reported before (the new one is `controlState`). A change made on the main thread
    /// is reported at once; one made elsewhere at the main loop's next turn, together with any
    /// other changes made meanwhile (a change undone before then is not reported). Subclasses
    /// redraw here (Texture's ASButtonNode overrides setHighlighted and friends for that). Call
    /// super.
    @MainActor
    open func stateDidChange(from oldState: ControlState) {}

    private func setState(_ flag: WritableKeyPath<Storage, Bool>, _ value: Bool) {
        let changed = storage.withLock { s -> Bool in
            guard s[keyPath: flag] != value else { return false }
            s[keyPath: flag] = value
            return true
        }
        if changed { stateReport.run { [self] in reportState() } }
    }

    /// Reports the state if it differs from the last report; cancels a press a disabling ended.
    @MainActor
    private func reportState() {
        let (old, new, tracking) = storage.withLock { s in
            let old = s.reported
            s.reported = s.controlState
            return (old, s.reported, s.isTracking)
        }
        if old != new { stateDidChange(from: old) }
        // After the report, so the cancel's own change (unhighlighting) is reported after it.
        if new.contains(.disabled) && tracking { cancelTrackingNow() }
    }

    // MARK: Actions

    /// Registers `handler` for every event in `events` and turns input on. Any thread; the handler
    /// runs on the main thread, after the handlers added before it.
    @discardableResult
    public func addAction(
        for events: ControlEvents,
        _ handler: @escaping @Sendable @MainActor (ControlNode, ControlEvent) -> Void
    ) -> ActionToken {
        let id = storage.withLock { s -> Int in
            defer { s.nextID += 1 }
            s.registrations.append(Registration(id: s.nextID, events: events, handler: handler))
            return s.nextID
        }
        isUserInteractionEnabled = true
        return ActionToken(id: id)
    }

    /// Removes the registration `token` names (nothing if it is gone already). Any thread.
    public func removeAction(_ token: ActionToken) {
        storage.withLock { $0.registrations.removeAll { $0.id == token.id } }
    }

    /// Removes every registration. Any thread.
    public func removeAllActions() {
        storage.withLock { $0.registrations.removeAll() }
    }

    /// Whether any registration covers one of `events`. Any thread.
    public func hasActions(for events: ControlEvents) -> Bool {
        storage.withLock { s in s.registrations.contains { !$0.events.isDisjoint(with: events) } }
    }

    /// Calls the handlers registered for `events`: event by event in `ControlEvent`'s order, each
    /// event's handlers in the order they were added. Handlers added or removed by a handler take
    /// effect from the next send. Main thread (controls send `valueChanged` this way).
    @MainActor
    open func sendActions(for events: ControlEvents) {
        let registrations = storage.withLock { $0.registrations }
        for event in events.events {
            for registration in registrations where registration.events.contains(event) {
                registration.handler(self, event)
            }
        }
    }

    // MARK: Tracking override points (main thread)

    /// A press starts at `point` (the control's own coordinates); return false to ignore it (no
    /// tracking, no events). `clickCount` is 2 for the second click of a double click.
    @MainActor
    open func beginTracking(at point: CGPoint, clickCount: Int) -> Bool { true }

    /// The tracked press moved to `point`; return false to stop tracking it (quietly: the control
    /// is unhighlighted and gets no more events for this press).
    @MainActor
    open func continueTracking(at point: CGPoint) -> Bool { true }

    /// The tracked press ended at `point`, before `touchUpInside` or `touchUpOutside` is sent.
    @MainActor
    open func endTracking(at point: CGPoint) {}

    /// The tracked press was cancelled, before `touchCancel` is sent.
    @MainActor
    open func cancelTracking() {}

    // MARK: Entry points for a router (main thread, the control's own coordinates)

    /// A press begins on the control. Returns whether the control took it: false when disabled or
    /// when `beginTracking` refused it; true when it starts tracking, or when it was already
    /// tracking (the second press cancels the first).
    @MainActor
    @discardableResult
    public final func pointerDown(at point: CGPoint, clickCount: Int = 1) -> Bool {
        guard isEnabled else { return false }
        if isTracking {
            cancelTrackingNow()
            return true
        }
        guard beginTracking(at: point, clickCount: clickCount) else { return false }
        storage.withLock { s in
            s.isTracking = true
            s.isTouchInside = true
        }
        isHighlighted = true
        sendActions(for: clickCount > 1 ? .touchDownRepeat : .touchDown)
        return true
    }

    /// The tracked press moved.
    @MainActor
    public final func pointerDragged(to point: CGPoint) {
        guard isEnabled, isTracking else { return }
        guard continueTracking(at: point) else {
            endTrackingState()
            return
        }
        let isInside = self.point(inside: point)
        let inExpanded = expandedTrackingArea.contains(point)
        storage.withLock { $0.isTouchInside = inExpanded }
        isHighlighted = inExpanded
        sendActions(for: isInside ? .touchDragInside : .touchDragOutside)
    }

    /// The tracked press ended.
    @MainActor
    public final func pointerUp(at point: CGPoint) {
        guard isEnabled, isTracking else { return }
        endTrackingState()
        endTracking(at: point)
        sendActions(for: expandedTrackingArea.contains(point) ? .touchUpInside : .touchUpOutside)
    }

    /// The tracked press was taken away (the pointer left the window, the control left the tree).
    @MainActor
    public final func pointerCancelled() {
        cancelTrackingNow()
    }

    @MainActor
    private func cancelTrackingNow() {
        guard isTracking else { return }
        endTrackingState()
        cancelTracking()
        sendActions(for: .touchCancel)
    }

    @MainActor
    private func endTrackingState() {
        storage.withLock { s in
            s.isTracking = false
            s.isTouchInside = false
        }
        isHighlighted = false
    }

    // MARK: Hit testing

    /// A disabled control, and everything in it, takes no pointer (Texture's ASControlNode).
    @MainActor
    open override func hitTest(_ point: CGPoint) -> DisplayNode? {
        guard isEnabled else { return nil }
        return super.hitTest(point)
    }
}
