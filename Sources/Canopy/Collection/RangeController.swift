import Foundation
import Synchronization

// A collection's range controller: at each turn, the ranges around the viewport (by mode and
// direction, from `RangeTuning`), the interface state each item gets from them, the cells that
// are made, kept in the tree or dropped as a result, their priorities by distance, and the
// willDisplay / didEndDisplaying calls the visible state's changes give the delegate.

/// Moves a `CollectionNode`'s cells through the preload, display and visible states as the user
/// scrolls (the role of Texture's `ASRangeController`), so a cell is made and measured before it
/// is near, drawn before it is seen, and its contents released after it leaves.
///
/// Main thread, except the tuning and the forced mode, which may be set from any thread (behind
/// a `Mutex`, with the last ranges and the calls waiting for the delegate). The items themselves
/// are the data controller's: this reads them and writes their `state` and `isInTree` under the
/// data controller's lock, never taken while its own is held. Like the data controller, it is
/// given the collection at each call rather than keeping it.
package final class RangeController: Sendable {
    private struct State {
        var tuning = RangeTuning()
        var forcedMode: RangeMode?
        var lastRanges = CollectionNode.Ranges(viewport: .zero, display: .zero, preload: .zero, mode: .minimum)
        /// willDisplay / didEndDisplaying calls waiting for the change that made them to finish.
        var announcements: [Announcement] = []
        var isAnnouncing = false
    }
    private let state = Mutex(State())

    /// A cell that started (or ended) displaying, to tell the delegate.
    private struct Announcement {
        let node: CellNode
        var index: Int
        let isWillDisplay: Bool
    }

    init() {}

    /// The ranges' sizes and the velocity extension. Any thread.
    var tuning: RangeTuning {
        get { state.withLock { $0.tuning } }
        set { state.withLock { $0.tuning = newValue } }
    }

    /// A range mode that overrides Texture's rule, or nil. Any thread.
    var forcedMode: RangeMode? {
        get { state.withLock { $0.forcedMode } }
        set { state.withLock { $0.forcedMode = newValue } }
    }

    /// The ranges computed at the last turn.
    var ranges: CollectionNode.Ranges { state.withLock { $0.lastRanges } }

    // MARK: Each turn (main thread)

    /// Gives every item in and around the ranges its interface state; makes the cells that are
    /// needed and drops those no longer needed.
    @MainActor
    func updateRanges(in collection: CollectionNode) {
        let viewport = collection.visibleContentRect
        let direction = collection.scrollDirection, speed = collection.scrollSpeed
        let (tuning, forcedMode) = state.withLock { ($0.tuning, $0.forcedMode) }
        let mode = forcedMode ?? (collection.hasScrolled ? .full : .minimum)
        let display = tuning.rect(for: .display, mode: mode, viewport: viewport, direction: direction, speed: speed)
        let preload = tuning.rect(for: .preload, mode: mode, viewport: viewport, direction: direction, speed: speed)
        state.withLock {
            $0.lastRanges = CollectionNode.Ranges(viewport: viewport, display: display, preload: preload, mode: mode)
        }
        let (candidates, previouslyLive) = collection.dataController.model.withLock { m -> ([Int], Set<Int>) in
            (m.layout.indices(intersecting: preload.union(display).union(viewport)), m.live)
        }
        var states: [Int: InterfaceState] = [:]
        for index in candidates {
            guard let frame = collection.frameForItem(at: index) else { continue }
            if frame.overlaps(viewport) {
                states[index] = [.preload, .display, .visible]
            } else if frame.overlaps(display) {
                states[index] = [.preload, .display]
            } else if frame.overlaps(preload) {
                states[index] = .preload
            }
        }
        // Leaving: the far ones first, then the rest nearest first (visible work starts first).
        for index in previouslyLive.subtracting(states.keys).sorted() {
            setState([], ofItemAt: index, viewport: viewport, in: collection)
        }
        let ordered = states.keys.sorted {
            distance(of: $0, to: viewport, in: collection) < distance(of: $1, to: viewport, in: collection)
        }
        for index in ordered { setState(states[index]!, ofItemAt: index, viewport: viewport, in: collection) }
        collection.dataController.model.withLock { $0.live = Set(states.keys).union($0.live.filter { states[$0] != nil }) }
    }

    @MainActor
    private func distance(of index: Int, to viewport: CGRect, in collection: CollectionNode) -> CGFloat {
        guard let frame = collection.frameForItem(at: index) else { return .infinity }
        if frame.maxY < viewport.minY { return viewport.minY - frame.maxY }
        if frame.minY > viewport.maxY { return frame.minY - viewport.maxY }
        return 0
    }

    /// Moves one item to `newState`: its cell joins or leaves the tree, gets the state, and is
    /// made (or dropped) as needed; the cell's displays, and the making of a missing one, are
    /// prioritised by its distance to the viewport.
    @MainActor
    private func setState(_ newState: InterfaceState, ofItemAt index: Int, viewport: CGRect, in collection: CollectionNode) {
        let data = collection.dataController
        guard var item = data.model.withLock({ $0.items[safe: index] }), let frame = collection.frameForItem(at: index) else {
            return
        }
        if newState.isEmpty {
            release(item, at: index, in: collection)
            data.model.withLock { m in
                m.items[index].node = nil
                m.items[index].replacement = nil
                m.items[index].pending = nil
                m.items[index].state = []
                m.items[index].isInTree = false
            }
            return
        }
        let d = distance(of: index, to: viewport, in: collection)
        let priority = DisplayPriority(isVisible: newState.contains(.visible), distance: d)
        let isStale = item.node != nil && item.nodeGeneration != item.generation
        if (item.node == nil || isStale) && item.pending == nil {
            data.allocate(index, priority: priority, in: collection)
            item = data.model.withLock { $0.items[index] }
        }
        guard let node = item.node else { return }
        if node.frame.origin != frame.origin { node.frame.origin = frame.origin }
        node.displayPriority = priority
        if let replacement = item.replacement {
            replacement.displayPriority = priority
            if replacement.frame.origin != frame.origin { replacement.frame.origin = frame.origin }
            // Off screen there is nothing to flash: the new cell takes over now.
            if !newState.contains(.display) {
                data.swapInReplacement(at: index, in: collection)
                return setState(newState, ofItemAt: index, viewport: viewport, in: collection)
            }
        }
        let oldState = item.state
        var isInTree = item.isInTree
        if newState.contains(.display) && !isInTree {
            collection.contentNode.addSubnode(node)
            isInTree = true
        }
        if oldState != newState {
            node.recursivelySetInterfaceState(newState)
            item.replacement?.recursivelySetInterfaceState(newState)
        }
        if !newState.contains(.display) && isInTree {
            node.removeFromSupernode()
            isInTree = false
        }
        data.model.withLock { m in
            m.items[index].state = newState
            m.items[index].isInTree = isInTree
        }
        if newState.contains(.visible) && !oldState.contains(.visible) {
            announce(node, at: index, willDisplay: true)
        } else if !newState.contains(.visible) && oldState.contains(.visible) {
            announce(node, at: index, willDisplay: false)
        }
    }

    /// Takes an item's cell (and its replacement) out: state `[]`, out of the tree, work in flight
    /// cancelled. The caller forgets them. Only the cell ends displaying: a replacement shares
    /// the item's state but was never announced by willDisplay (that happens when it swaps in).
    @MainActor
    func release(_ item: CollectionDataController.Item, at index: Int, in collection: CollectionNode) {
        item.pending?.cancel()
        if let node = item.node, node.interfaceState.contains(.visible) {
            announce(node, at: index, willDisplay: false)
        }
        for node in [item.node, item.replacement].compactMap({ $0 }) {
            node.recursivelySetInterfaceState([])
            if node.supernode === collection.contentNode { node.removeFromSupernode() }
        }
    }

    // MARK: Telling the delegate (main thread)

    /// Queues a willDisplay (or didEndDisplaying) for `deliverAnnouncements`.
    @MainActor
    func announce(_ node: CellNode, at index: Int, willDisplay: Bool) {
        state.withLock { $0.announcements.append(Announcement(node: node, index: index, isWillDisplay: willDisplay)) }
    }

    /// After a batch update, calls still waiting name items where they are now (a deleted one
    /// where it was): `newIndexOfOld[i]` is the new index of the item that was at `i`, nil for a
    /// deleted one.
    @MainActor
    func moveAnnouncements(newIndexOfOld: [Int?]) {
        state.withLock { s in
            for i in s.announcements.indices {
                if let index = newIndexOfOld[safe: s.announcements[i].index] ?? nil { s.announcements[i].index = index }
            }
        }
    }

    /// Tells the delegate which cells started and ended displaying, once the change that did it
    /// (a turn's range update, a batch update, a reload) is complete: the delegate may update
    /// the collection from these calls, which in the middle of the change would move the items
    /// it is working on by index. Calls queued by such an update wait for the delivery in
    /// progress, so they keep their order.
    @MainActor
    func deliverAnnouncements(in collection: CollectionNode) {
        let begins = state.withLock { s -> Bool in
            guard !s.isAnnouncing, !s.announcements.isEmpty else { return false }
            s.isAnnouncing = true
            return true
        }
        guard begins else { return }
        while true {
            let next = state.withLock { s -> Announcement? in
                guard !s.announcements.isEmpty else {
                    s.isAnnouncing = false
                    return nil
                }
                return s.announcements.removeFirst()
            }
            guard let next else { return }
            let delegate = collection.delegate
            if next.isWillDisplay {
                delegate?.collectionNode(collection, willDisplayItemWith: next.node, at: next.index)
            } else {
                delegate?.collectionNode(collection, didEndDisplayingItemWith: next.node, at: next.index)
            }
        }
    }
}
