import Foundation

/// Where a node stands relative to the viewport of the collection that manages it (Texture's
/// `ASInterfaceState`): near enough to fetch its data (`preload`), to draw (`display`), or on
/// screen (`visible`). Each includes the ones before it: a visible node is also in the display
/// and preload ranges, a node in the display range also in the preload range. `[]` is far away.
public struct InterfaceState: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let preload = InterfaceState(rawValue: 1 << 0)
    public static let display = InterfaceState(rawValue: 1 << 1)
    public static let visible = InterfaceState(rawValue: 1 << 2)

    public var description: String {
        let names = [(Self.preload, "preload"), (.display, "display"), (.visible, "visible")]
            .filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "none" : names.joined(separator: "+")
    }
}

extension DisplayNode {
    /// The node's interface state: `[]` until a range controller manages it. Any thread.
    public var interfaceState: InterfaceState { state.withLock { $0.interfaceState } }

    /// Gives the node and its whole subtree `newState` (a range controller calls it each turn for
    /// every cell it manages), calling the override points of each change in Texture's order: the
    /// preload range's enter or exit first, then the display range's, then visibility, then
    /// `interfaceStateDidChange(_:from:)`; parents before their subnodes.
    ///
    /// Entering the display range resumes display (the node draws on the workers now, before it
    /// is seen); leaving it suspends display, which cancels a display in flight, and clears the
    /// contents, so only the display range holds bitmaps and textures. Main thread.
    @MainActor
    public func recursivelySetInterfaceState(_ newState: InterfaceState) {
        setInterfaceState(newState)
        for subnode in subnodes { subnode.recursivelySetInterfaceState(newState) }
    }

    @MainActor
    private func setInterfaceState(_ newState: InterfaceState) {
        let oldState = state.withLock { state -> InterfaceState in
            defer { state.interfaceState = newState }
            return state.interfaceState
        }
        guard oldState != newState else { return }
        let changed = oldState.symmetricDifference(newState)
        if changed.contains(.preload) {
            newState.contains(.preload) ? didEnterPreloadState() : didExitPreloadState()
        }
        if changed.contains(.display) {
            if newState.contains(.display) {
                displaySuspended = false
                didEnterDisplayState()
            } else {
                displaySuspended = true
                if hasOwnDrawing { clearContents() }
                didExitDisplayState()
            }
        }
        if changed.contains(.visible) {
            newState.contains(.visible) ? didEnterVisibleState() : didExitVisibleState()
        }
        interfaceStateDidChange(newState, from: oldState)
    }

    /// How urgent the node's displays (and those of the nodes in its transaction) are; a range
    /// controller sets it each turn by the node's distance to the viewport. Nil: the scheduler's
    /// `priorityProvider` decides, else `.visible`. Any thread.
    package var displayPriority: DisplayPriority? {
        get { state.withLock { $0.displayPriority } }
        set { state.withLock { $0.displayPriority = newValue } }
    }
}
