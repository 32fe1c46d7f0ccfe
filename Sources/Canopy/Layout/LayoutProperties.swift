import Synchronization

/// The mutable layout-affecting properties of a style or spec, behind one lock.
///
/// Writes are free until a layout has read the properties (`valuesForLayout()`); from then on a
/// write that changes them moves the layout generation on (`LayoutCache.invalidateAll()`), so no
/// cached layout built from the old values is ever returned. Setting a property to its current
/// value changes nothing.
///
/// A non-copyable struct kept inline in its owner (a generic class here would cost an allocation
/// and unspecialised metadata per element).
struct LayoutProperties<Value: Sendable & Equatable>: ~Copyable, Sendable {
    // Internal rather than private: Swift 6.3.1 aborts a debug build ("Global is external, but
    // doesn't have external or weak linkage") on a private type nested in this non-copyable generic.
    struct State {
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
        state.withLock { state in
            let old = state.value
            change(&state.value)
            // Under the lock, so no layout can read the new value and still match an old entry.
            if state.observed && state.value != old { LayoutCache.invalidateAll() }
        }
    }
}
