import Foundation
import Synchronization

/// Collects the nodes that asked for display (`setNeedsDisplay`, any thread) and displays the loaded
/// ones at the next turn's commit, on the main thread, before the transaction group commits.
///
/// One per process (`shared`), bound to the main run loop by `install(on:scale:)`; until then
/// requests wait. Thread-safe: a Mutex guards the waiting nodes (weakly held) and the scale.
public final class DisplayScheduler: Sendable {
    public static let shared = DisplayScheduler()

    private struct Weak { weak var node: DisplayNode? }
    private struct State {
        var waiting: [Weak] = []
        var runLoop: RunLoop?
        var group: TransactionGroup?
        var scale: CGFloat = 1
        var token: RunLoop.ObserverToken?
        var priority: (@Sendable (DisplayNode) -> DisplayPriority)?
    }

    private let state = Mutex(State())

    /// Pixels per point of the display the contents are drawn for.
    public var scale: CGFloat {
        get { state.withLock { $0.scale } }
        set { state.withLock { $0.scale = max(0.1, newValue.isFinite ? newValue : 1) } }
    }

    /// How urgent a node's display is (the range controller answers by distance to the viewport);
    /// nil: every display is `.visible`.
    public var priorityProvider: (@Sendable (DisplayNode) -> DisplayPriority)? {
        get { state.withLock { $0.priority } }
        set { state.withLock { $0.priority = newValue } }
    }

    func priority(of node: DisplayNode) -> DisplayPriority {
        state.withLock { $0.priority }?(node) ?? .visible
    }

    /// Binds the scheduler to `runLoop` (main thread): displays run in its `beforeCommit` phase, and
    /// their transactions commit with `group` (one made for the loop if not given).
    @MainActor
    public func install(on runLoop: RunLoop, group: TransactionGroup? = nil, scale: CGFloat = 1) {
        uninstall()
        let group = group ?? TransactionGroup(runLoop: runLoop)
        let token = runLoop.addObserver(.beforeCommit, order: .max) { [weak self] _ in self?.displayWaiting() }
        let hasWaiting = state.withLock { state -> Bool in
            state.runLoop = runLoop
            state.group = group
            state.token = token
            state.scale = scale
            return !state.waiting.isEmpty
        }
        if hasWaiting { runLoop.setNeedsFrame() }
    }

    /// Unbinds it (main thread); waiting requests stay until the next install.
    @MainActor
    public func uninstall() {
        let (loop, token) = state.withLock { state in
            defer { state.runLoop = nil; state.group = nil; state.token = nil }
            return (state.runLoop, state.token)
        }
        if let loop, let token { loop.removeObserver(token) }
    }

    /// Any thread: `node` wants display.
    func schedule(_ node: DisplayNode) {
        let loop = state.withLock { state -> RunLoop? in
            state.waiting.append(Weak(node: node))
            return state.runLoop
        }
        loop?.setNeedsFrame()
    }

    /// Displays the waiting nodes that are loaded (main thread; the observer calls it).
    @MainActor
    public func displayWaiting() {
        let (waiting, group, scale) = state.withLock { state in
            defer { state.waiting.removeAll(keepingCapacity: true) }
            return (state.waiting, state.group, state.scale)
        }
        guard let group else { return }
        var seen = Set<ObjectIdentifier>()
        for entry in waiting {
            guard let node = entry.node, seen.insert(ObjectIdentifier(node)).inserted, node.isNodeLoaded else { continue }
            node.display(group: group, scale: scale)
        }
    }
}
