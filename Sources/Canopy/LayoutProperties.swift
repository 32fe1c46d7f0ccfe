import Synchronization

/// The mutable layout-affecting properties of a style or spec, behind one lock.
///
/// Writes are free until a layout has read the properties (`valuesForLayout()`); from then on a
/// write that changes them moves the layout generation on (`LayoutCache.invalidateAll()`), so no
/// cached layout built from the old values is ever returned. Setting a property to its current
/// value changes nothing.
final class LayoutProperties<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var observed = false
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The current value, without marking it read by a layout.
    var value: Value { state.withLock { $0.value } }

    /// The current value for a layout: from now on a change invalidates cached layouts.
    func valueForLayout() -> Value {
        state.withLock { state in
            state.observed = true
            return state.value
        }
    }

    func update(_ change: (inout Value) -> Void) {
        let invalidates = state.withLock { state -> Bool in
            let old = state.value
            change(&state.value)
            return state.observed && state.value != old
        }
        if invalidates { LayoutCache.invalidateAll() }
    }
}
