import Foundation
import Logging
import Synchronization

// A collection's items: their ids and sizes, the data source's items loaded and batch updates
// applied to the list, the layout that places them, the cells made and measured on the workers,
// and a reloaded item's new cell swapped in for its old one.

/// The items of a `CollectionNode` and their cells (the role of Texture's `ASDataController`).
///
/// Each item has an id that follows it through updates, so a cell made on a worker for an item
/// finds it again however far insertions and deletions moved it meanwhile, and a generation that
/// a reload bumps, so a cell made before the reload is known to be stale.
///
/// Items change on the main thread only: loading, updates, cells handed back from the workers
/// through the run loop, and the range controller, which gives items their interface states and
/// drops their cells. A worker is given an item's node block and size range, never the model.
/// The model is behind a `Mutex` all the same, as the collection is `Sendable` and some of its
/// configuration may be set from any thread. The lock is held to read and write the model (the
/// layout's pure functions run under it, and so does cancelling a stale cell's work), never
/// while the data source, a cell, the node tree or the range controller runs, and never while
/// the collection's other locks are held.
///
/// Each call is given the collection (its data source's calls name it, and its geometry and
/// content node are where cells go) rather than keeping a reference to it: the collection makes
/// its controllers before `super.init`, when it cannot yet hand itself out, and they live exactly
/// as long as it does.
package final class CollectionDataController: Sendable {
    /// One item's bookkeeping.
    struct Item {
        let id: UInt64
        /// Measured, or estimated until then.
        var size: CGSize
        var isMeasured = false
        /// Bumped by a reload: cells made for an older generation are stale.
        var generation: UInt64 = 0
        var node: CellNode?
        var nodeGeneration: UInt64 = 0
        /// A cell being made and measured on a worker.
        var pending: DisplayQueue.Ticket?
        /// A reloaded item's new cell, displaying under the old one until it can take its place.
        var replacement: CellNode?
        /// The interface state last given to the cell (`[]` without one).
        var state: InterfaceState = []
        var isInTree = false
        var isSelected = false
    }

    struct Model {
        weak var dataSource: (any CollectionDataSource)?
        var layoutObject: any CollectionLayout
        var items: [Item] = []
        var nextID: UInt64 = 0
        var needsReloadData = true
        var layout = CollectionLayoutResult.empty
        var layoutWidth: CGFloat = -1
        var needsLayout = false
        /// The items that have a cell, a cell on its way or a state: the ones each turn looks at
        /// besides those in range.
        var live: Set<Int> = []
        var allocatesCellsAsynchronously = true
    }

    /// The items and where they are. The collection reads it to answer its questions; the range
    /// controller reads it and writes the items' `state` and `isInTree` and drops their cells.
    let model: Mutex<Model>

    init(layout: any CollectionLayout) {
        model = Mutex(Model(layoutObject: layout))
    }

    // MARK: Data and updates (main thread)

    /// Loads every item from the data source when asked to (the first turn, `reloadData`, a new
    /// data source): items that stay are reloaded in place, the rest added or removed at the end.
    @MainActor
    func loadDataIfNeeded(in collection: CollectionNode) {
        guard model.withLock({ $0.needsReloadData }) else { return }
        guard let dataSource = model.withLock({ $0.dataSource }) else { return }
        model.withLock { $0.needsReloadData = false }
        let anchor = currentAnchor(in: collection)
        let count = max(0, dataSource.numberOfItems(in: collection))
        let width = collection.bounds.width
        var removed: [Item] = []
        let oldCount = model.withLock { m -> Int in
            let oldCount = m.items.count
            for index in m.items.indices where index < count { Self.invalidate(&m.items[index]) }
            if oldCount > count {
                removed = Array(m.items[count...])
                m.items.removeSubrange(count...)
                m.live = m.live.filter { $0 < count }
            } else {
                m.items.reserveCapacity(count)
                for _ in oldCount..<count {
                    m.items.append(Item(id: m.nextID, size: .zero))
                    m.nextID += 1
                }
            }
            m.needsLayout = true
            return oldCount
        }
        for (offset, item) in removed.enumerated() {
            collection.rangeController.release(item, at: count + offset, in: collection)
        }
        // Estimates for every item: the new ones have none, and reloaded ones may change.
        for index in 0..<count where index >= oldCount || !model.withLock({ $0.items[index].isMeasured }) {
            estimateSize(of: index, dataSource: dataSource, width: width, in: collection)
        }
        relayout(keeping: anchor.flatMap { $0.index < count ? $0 : nil }, in: collection)
        collection.requestFrame()
        collection.rangeController.deliverAnnouncements(in: collection)
    }

    /// Applies a batch update to the items, after the data source has changed (see
    /// `CollectionNode.performBatchUpdates`): items move by id, deleted ones' cells go, inserted
    /// ones are estimated, and the item at the viewport's top edge keeps its place on screen. An
    /// update that does not match the data source reloads everything instead.
    @MainActor
    func apply(_ changes: CollectionUpdates, in collection: CollectionNode) {
        guard let dataSource = model.withLock({ $0.dataSource }) else { return }
        if model.withLock({ $0.needsReloadData }) { return loadDataIfNeeded(in: collection) }
        let oldCount = model.withLock { $0.items.count }
        let newCount = dataSource.numberOfItems(in: collection)
        let deletions = Set(changes.deletions), insertions = Set(changes.insertions)
        let reloads = Set(changes.reloads).subtracting(deletions)
        guard deletions.allSatisfy({ (0..<oldCount).contains($0) }), reloads.allSatisfy({ (0..<oldCount).contains($0) }),
            insertions.allSatisfy({ (0..<newCount).contains($0) }),
            oldCount - deletions.count + insertions.count == newCount
        else {
            Log.collection.warning(
                """
                invalid batch update (\(oldCount) items, -\(deletions.count) +\(insertions.count) \
                does not give \(newCount), or an index is out of range); reloading the data instead
                """)
            model.withLock { $0.needsReloadData = true }
            return loadDataIfNeeded(in: collection)
        }
        let anchor = currentAnchor(in: collection)
        let width = collection.bounds.width
        var removed: [(item: Item, index: Int)] = []
        let (newIndexOfOld, newAnchorIndex) = model.withLock { m -> ([Int?], Int?) in
            var newItems: [Item] = []
            newItems.reserveCapacity(newCount)
            var newIndexOfOld = [Int?](repeating: nil, count: oldCount)
            var old = 0
            for newIndex in 0..<newCount {
                if insertions.contains(newIndex) {
                    newItems.append(Item(id: m.nextID, size: .zero))
                    m.nextID += 1
                    continue
                }
                while deletions.contains(old) {
                    removed.append((m.items[old], old))
                    old += 1
                }
                var item = m.items[old]
                if reloads.contains(old) { Self.invalidate(&item) }
                newIndexOfOld[old] = newIndex
                newItems.append(item)
                old += 1
            }
            while old < oldCount {
                removed.append((m.items[old], old))
                old += 1
            }
            m.items = newItems
            m.live = Set(m.live.compactMap { newIndexOfOld[$0] })
            m.needsLayout = true
            // The anchor moves with its item; a deleted one hands over to the next that stayed.
            guard let anchor else { return (newIndexOfOld, nil) }
            var index = anchor.index
            while index < oldCount, newIndexOfOld[index] == nil { index += 1 }
            return (newIndexOfOld, index < oldCount ? newIndexOfOld[index] : nil)
        }
        // Before the deleted items' cells go, which queues calls naming them where they were.
        collection.rangeController.moveAnnouncements(newIndexOfOld: newIndexOfOld)
        for (item, index) in removed { collection.rangeController.release(item, at: index, in: collection) }
        for index in insertions.sorted() { estimateSize(of: index, dataSource: dataSource, width: width, in: collection) }
        relayout(
            keeping: anchor.map { a in newAnchorIndex.map { CollectionAnchor(index: $0, distance: a.distance) } } ?? nil,
            in: collection)
        collection.requestFrame()
        collection.rangeController.deliverAnnouncements(in: collection)
    }

    @MainActor
    private func estimateSize(
        of index: Int, dataSource: any CollectionDataSource, width: CGFloat,
        in collection: CollectionNode
    ) {
        let range = model.withLock { $0.layoutObject.sizeRange(forItemAt: index, collectionWidth: width) }
        let size = dataSource.collectionNode(collection, estimatedSizeForItemAt: index, in: range)
        model.withLock { m in
            m.items[index].size = size
            m.items[index].isMeasured = false
        }
    }

    /// Where the item with `id` is now: at `hint` unless updates moved it.
    @MainActor
    private func indexOfItem(id: UInt64, near hint: Int) -> Int? {
        model.withLock { m in
            guard !m.items.isEmpty else { return nil }
            // Deletions may leave the hint beyond the end: start from the last item then.
            let start = min(max(hint, 0), m.items.count - 1)
            if m.items[start].id == id { return start }
            // Updates shift items by the number inserted or deleted before them: look outwards
            // until both sides have run out of items.
            var step = 1
            while start - step >= 0 || start + step < m.items.count {
                if m.items[safe: start - step]?.id == id { return start - step }
                if m.items[safe: start + step]?.id == id { return start + step }
                step += 1
            }
            return nil
        }
    }

    private static func invalidate(_ item: inout Item) {
        item.generation += 1
        item.pending?.cancel()
        item.pending = nil
    }

    // MARK: Layout (main thread)

    /// Places the items again if an update, a measured size, a new layout or a new width asked
    /// for it.
    @MainActor
    func relayoutIfNeeded(in collection: CollectionNode) {
        let width = collection.bounds.width
        if model.withLock({ $0.needsLayout || $0.layoutWidth != width }) {
            relayout(keeping: currentAnchor(in: collection), in: collection)
        }
    }

    @MainActor
    private func currentAnchor(in collection: CollectionNode) -> CollectionAnchor? {
        let (layout, hasLayout) = model.withLock { ($0.layout, $0.layoutWidth >= 0) }
        guard hasLayout else { return nil }
        return layout.anchor(atOffset: collection.contentOffset, viewport: collection.bounds.size)
    }

    /// Places every item again; the anchor's item keeps its place on screen, without disturbing a
    /// scroll in progress.
    @MainActor
    private func relayout(keeping anchor: CollectionAnchor?, in collection: CollectionNode) {
        let width = collection.bounds.width
        let layout = model.withLock { m -> CollectionLayoutResult in
            m.layout = m.layoutObject.layout(sizes: m.items.map(\.size), width: width)
            m.layoutWidth = width
            m.needsLayout = false
            return m.layout
        }
        collection.contentHeight = layout.contentHeight
        if let anchor {
            let delta = layout.offset(keeping: anchor) - collection.contentOffset
            if delta != 0 { collection.shiftContentOffset(by: delta) }
        }
        // Cells in the tree move with their items.
        for index in model.withLock({ Array($0.live) }) {
            guard let frame = layout.frames[safe: index], let item = model.withLock({ $0.items[safe: index] }) else { continue }
            for node in [item.node, item.replacement].compactMap({ $0 }) where node.frame.origin != frame.origin {
                node.frame.origin = frame.origin
            }
        }
    }

    // MARK: Cells (main thread; made on the workers)

    /// Runs item `index`'s node block on a worker, measures the cell there, then hands it over
    /// here (or does it all now, on the main thread, when cells are not made asynchronously or no
    /// run loop is installed to hand them back on).
    @MainActor
    func allocate(_ index: Int, priority: DisplayPriority, in collection: CollectionNode) {
        guard let dataSource = model.withLock({ $0.dataSource }) else { return }
        let block = dataSource.collectionNode(collection, nodeBlockForItemAt: index)
        let width = collection.bounds.width
        let (id, generation, sizeRange) = model.withLock { m in
            (
                m.items[index].id, m.items[index].generation,
                m.layoutObject.sizeRange(forItemAt: index, collectionWidth: width)
            )
        }
        let make: @Sendable () -> CellNode = {
            let tracer = Tracer.shared
            return tracer.measure("make cell \(index)", category: "cell") {
                let node = block()
                tracer.measure("measure cell \(index)", category: "cell") {
                    let layout = node.layoutThatFits(sizeRange)
                    node.frame = CGRect(origin: .zero, size: layout.size)
                    node.applyLayout(layout)
                }
                return node
            }
        }
        guard let loop = DisplayScheduler.shared.runLoop, model.withLock({ $0.allocatesCellsAsynchronously }) else {
            cellDidArrive(make(), id: id, generation: generation, near: index, in: collection)
            return
        }
        let ticket = DisplayQueue.shared.enqueue(priority: priority) { [weak collection] in
            let node = make()
            loop.perform {
                guard let collection else { return }
                collection.dataController.cellDidArrive(node, id: id, generation: generation, near: index, in: collection)
            }
        }
        model.withLock { $0.items[index].pending = ticket }
    }

    /// A cell made on a worker: it becomes the item's cell, or the replacement of a displayed
    /// reloaded one; its measured size replaces the estimate (laid out at the next turn).
    @MainActor
    private func cellDidArrive(
        _ node: CellNode, id: UInt64, generation: UInt64, near hint: Int,
        in collection: CollectionNode
    ) {
        guard let index = indexOfItem(id: id, near: hint) else { return }  // deleted meanwhile
        let (stale, selected, old, oldInTree) = model.withLock { m in
            (m.items[index].generation != generation, m.items[index].isSelected, m.items[index].node, m.items[index].isInTree)
        }
        guard !stale else { return }
        node.isSelected = selected
        let size = node.frame.size
        if let old, oldInTree {
            node.frame = CGRect(origin: old.frame.origin, size: size)
            if let previous = model.withLock({ $0.items[index].replacement }) {
                collection.rangeController.release(Item(id: id, size: .zero, replacement: previous), at: index, in: collection)
            }
            // Under the old cell, which covers it until it has displayed.
            let position = collection.contentNode.subnodes.firstIndex { $0 === old } ?? 0
            collection.contentNode.insertSubnode(node, at: position)
            node.recursivelySetInterfaceState(model.withLock { $0.items[index].state })
            model.withLock { m in
                m.items[index].replacement = node
                m.items[index].pending = nil
                m.items[index].nodeGeneration = generation
            }
        } else {
            if let old { collection.rangeController.release(Item(id: id, size: .zero, node: old), at: index, in: collection) }
            model.withLock { m in
                m.items[index].node = node
                m.items[index].nodeGeneration = generation
                m.items[index].pending = nil
                m.items[index].state = []
                m.items[index].isInTree = false
                m.live.insert(index)
                if m.items[index].size != size || !m.items[index].isMeasured {
                    if m.items[index].size != size { m.needsLayout = true }
                    m.items[index].size = size
                    m.items[index].isMeasured = true
                }
            }
        }
        collection.requestFrame()
    }

    /// Replacements whose new cell is on screen whole take their old cell's place.
    @MainActor
    func swapReadyReplacements(in collection: CollectionNode) {
        let waiting = model.withLock { m in m.live.filter { m.items[safe: $0]?.replacement != nil } }
        for index in waiting {
            guard let replacement = model.withLock({ $0.items[index].replacement }),
                let layer = replacement.layerIfLoaded
            else { continue }
            let ready =
                replacement.isSubtreeDisplayed && !replacement.isShowingPlaceholder
                && LayerAnimator.isPresented(layer) && layer.fadeOpacity >= 1
            if ready { swapInReplacement(at: index, in: collection) }
        }
    }

    /// The replacement becomes the item's cell; the old one goes.
    @MainActor
    func swapInReplacement(at index: Int, in collection: CollectionNode) {
        guard
            let (old, replacement, wasInTree) = model.withLock({ m -> (CellNode?, CellNode, Bool)? in
                guard let replacement = m.items[index].replacement else { return nil }
                return (m.items[index].node, replacement, m.items[index].isInTree)
            })
        else { return }
        if let old {
            if old.interfaceState.contains(.visible) {
                collection.rangeController.announce(old, at: index, willDisplay: false)
            }
            old.recursivelySetInterfaceState([])
            if old.supernode === collection.contentNode { old.removeFromSupernode() }
        }
        let size = replacement.frame.size
        let isInTree = wasInTree && replacement.supernode === collection.contentNode
        model.withLock { m in
            m.items[index].node = replacement
            m.items[index].replacement = nil
            m.items[index].isInTree = isInTree
            if m.items[index].size != size {
                m.items[index].size = size
                m.needsLayout = true
            }
            m.items[index].isMeasured = true
        }
        if replacement.interfaceState.contains(.visible) {
            collection.rangeController.announce(replacement, at: index, willDisplay: true)
        }
        collection.requestFrame()
    }
}
