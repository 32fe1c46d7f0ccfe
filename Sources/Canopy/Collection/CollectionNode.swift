import Foundation
import Logging
import Synchronization

/// The changes of one `performBatchUpdates`: deletions and reloads name items by their index
/// before the update, insertions by their index after it (UIKit's and Texture's convention).
public struct CollectionUpdates: Sendable, Equatable {
    public private(set) var insertions: [Int] = []
    public private(set) var deletions: [Int] = []
    public private(set) var reloads: [Int] = []

    public init() {}

    public mutating func insertItems(at indices: [Int]) { insertions += indices }
    public mutating func deleteItems(at indices: [Int]) { deletions += indices }
    public mutating func reloadItems(at indices: [Int]) { reloads += indices }
}

/// A scrolling collection of cells (Texture's `ASCollectionNode`): the data source gives the
/// number of items and a block per item that makes its cell on a worker; the `collectionLayout`
/// places them; the range controller built in here moves every cell through the preload, display
/// and visible states as the user scrolls, so a cell is made and measured before it is near,
/// drawn before it is seen, and its contents released after it leaves.
///
/// Each turn (`scrollNodeDidUpdate(at:)`, main thread):
/// - the ranges are computed from `rangeTuning` (minimum mode until the user first scrolls, then
///   full; the leading side in the direction of travel, grown with the speed);
/// - each item in the preload range without a cell has its block run on a worker, the cell measured
///   there against the layout's size range, then placed here; an item placed by its estimated size
///   moves to its measured size, and the viewport's top item keeps its place on screen;
/// - each cell gets its interface state (DisplayNode+InterfaceState): a cell is in the node tree
///   while it is in the display range, and is dropped (its node released) once it leaves the
///   preload range, so memory and textures are bounded by the ranges, not the collection's size;
/// - each cell's displays and the item allocations are prioritised by distance to the viewport;
/// - Texture's batch-fetching rule is checked.
///
/// Updates (`performBatchUpdates` and the rest) keep the reader's place; a reloaded item keeps
/// showing its old cell until the new one has displayed and is on screen, so reloads never flash.
/// Main thread, except configuration that says otherwise.
open class CollectionNode: ScrollNode, @unchecked Sendable {
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

    private struct Model {
        weak var dataSource: (any CollectionDataSource)?
        weak var delegate: (any CollectionDelegate)?
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
        var rangeTuning = RangeTuning()
        var rangeMode: RangeMode?
        var leadingScreensForBatching = BatchFetching.defaultLeadingScreens
        var estimatedItemHeight: CGFloat = 200
        var allocatesCellsAsynchronously = true
        var lastRanges = Ranges(viewport: .zero, display: .zero, preload: .zero, mode: .minimum)
        /// willDisplay / didEndDisplaying calls waiting for the change that made them to finish.
        var announcements: [Announcement] = []
        var isAnnouncing = false
    }
    private let model: Mutex<Model>

    /// A cell that started (or ended) displaying, to tell the delegate.
    private struct Announcement {
        let node: CellNode
        var index: Int
        let isWillDisplay: Bool
    }

    /// The batch-fetch context: the app's fetch completes it; reloadData cancels it.
    public let batchContext = BatchContext()

    /// The rectangles of the last turn, in content coordinates.
    public struct Ranges: Sendable, Equatable {
        public var viewport: CGRect
        public var display: CGRect
        public var preload: CGRect
        public var mode: RangeMode
    }

    /// A collection whose items `layout` places (Texture's `initWithCollectionViewLayout:`).
    public init(layout: any CollectionLayout) {
        model = Mutex(Model(layoutObject: layout))
        super.init()
        name = "collection"
        batchContext.onStateChange = { _ in DisplayScheduler.shared.runLoop?.setNeedsFrame() }
    }

    // MARK: Configuration

    @MainActor
    public var dataSource: (any CollectionDataSource)? {
        get { model.withLock { $0.dataSource } }
        set {
            model.withLock { $0.dataSource = newValue; $0.needsReloadData = true }
            requestFrame()
        }
    }

    /// Any thread.
    public var delegate: (any CollectionDelegate)? {
        get { model.withLock { $0.delegate } }
        set { model.withLock { $0.delegate = newValue } }
    }

    /// How items are placed (given at init). Setting it lays out again.
    public var collectionLayout: any CollectionLayout {
        get { model.withLock { $0.layoutObject } }
        set {
            model.withLock { $0.layoutObject = newValue; $0.needsLayout = true }
            requestFrame()
        }
    }

    /// The ranges' sizes (Texture's defaults) and the velocity extension. Any thread.
    public var rangeTuning: RangeTuning {
        get { model.withLock { $0.rangeTuning } }
        set { model.withLock { $0.rangeTuning = newValue }; requestFrame() }
    }

    /// Forces a range mode; nil (the default) is Texture's rule: minimum until the user scrolls,
    /// then full.
    public var rangeMode: RangeMode? {
        get { model.withLock { $0.rangeMode } }
        set { model.withLock { $0.rangeMode = newValue }; requestFrame() }
    }

    /// How many screenfuls before the end a batch fetch starts (default 2; 0 turns it off).
    public var leadingScreensForBatching: CGFloat {
        get { model.withLock { $0.leadingScreensForBatching } }
        set { model.withLock { $0.leadingScreensForBatching = newValue } }
    }

    /// Whether cells are made and measured on the display workers (true, the default) or on the
    /// main thread when their item comes in range (the main-thread baseline). Any thread.
    public var allocatesCellsAsynchronously: Bool {
        get { model.withLock { $0.allocatesCellsAsynchronously } }
        set { model.withLock { $0.allocatesCellsAsynchronously = newValue } }
    }

    /// The height the default estimate gives items not measured yet (default 200 pt).
    public var estimatedItemHeight: CGFloat {
        get { model.withLock { $0.estimatedItemHeight } }
        set { model.withLock { $0.estimatedItemHeight = max(0, newValue.isFinite ? newValue : 0) } }
    }

    // MARK: Reading the collection (main thread)

    /// The number of items, as of the last data load or update.
    @MainActor
    public var numberOfItems: Int {
        loadDataIfNeeded()
        return model.withLock { $0.items.count }
    }

    /// Item `index`'s cell, if it has one now (it is in or near the preload range).
    @MainActor
    public func nodeForItem(at index: Int) -> CellNode? {
        model.withLock { $0.items[safe: index]?.node }
    }

    /// The interface state item `index`'s cell was given last (`[]` if it has none).
    @MainActor
    public func interfaceStateForItem(at index: Int) -> InterfaceState {
        model.withLock { $0.items[safe: index]?.state ?? [] }
    }

    /// Where item `index` is placed, in content coordinates.
    @MainActor
    public func frameForItem(at index: Int) -> CGRect? {
        model.withLock { $0.layout.frames[safe: index] }
    }

    /// Whether item `index` has been measured (else it is placed by its estimate).
    @MainActor
    public func isItemMeasured(at index: Int) -> Bool {
        model.withLock { $0.items[safe: index]?.isMeasured ?? false }
    }

    /// The items whose frames meet `rect` (content coordinates), in index order.
    @MainActor
    public func indicesOfItems(in rect: CGRect) -> [Int] {
        model.withLock { $0.layout.indices(intersecting: rect) }
    }

    /// The items in the viewport now.
    @MainActor
    public var visibleItemIndices: [Int] { indicesOfItems(in: visibleContentRect) }

    /// The ranges computed at the last turn.
    @MainActor
    public var ranges: Ranges { model.withLock { $0.lastRanges } }

    /// The visible items now, and how many of them are not displayed yet (no cell yet, its
    /// display not landed or its contents not uploaded yet, or its placeholder not yet leaving;
    /// a placeholder fading out over the contents counts as displayed).
    @MainActor
    public var visibleCoverage: (visible: Int, waiting: Int) {
        let viewport = visibleContentRect
        let nodes = model.withLock { m in m.layout.indices(intersecting: viewport).map { m.items[$0].node } }
        let waiting = nodes.filter { node in
            guard let node, let layer = node.layerIfLoaded, node.supernode === contentNode else { return true }
            return !node.isSubtreeDisplayed || node.isPlaceholderCovering || !LayerAnimator.isPresented(layer)
        }.count
        return (nodes.count, waiting)
    }

    /// Whether every visible item is displayed (see `visibleCoverage`).
    @MainActor
    public var isVisibleContentDisplayed: Bool { visibleCoverage.waiting == 0 }

    /// Item `index` within the collection's content, from a point in the collection's own
    /// coordinates (nil over the gaps).
    @MainActor
    public func indexOfItem(at point: CGPoint) -> Int? {
        let p = CGPoint(x: point.x, y: point.y + contentOffset)
        return model.withLock { m in
            m.layout.indices(intersecting: CGRect(x: p.x, y: p.y, width: 1, height: 1)).first { m.layout.frames[$0].contains(p) }
        }
    }

    // MARK: Selection (main thread)

    /// Selects item `index` (its cell's `isSelected`, kept across cell releases) and tells the
    /// delegate; the selection is single.
    @MainActor
    public func selectItem(at index: Int) {
        // A reloaded item's new cell waiting under the old one takes the selection too.
        let (previous, nodes, delegate) = model.withLock { m -> ([CellNode?], [CellNode?], (any CollectionDelegate)?) in
            guard m.items.indices.contains(index) else { return ([], [], nil) }
            var previous: [CellNode?] = []
            for i in m.items.indices where m.items[i].isSelected && i != index {
                m.items[i].isSelected = false
                previous += [m.items[i].node, m.items[i].replacement]
            }
            m.items[index].isSelected = true
            return (previous, [m.items[index].node, m.items[index].replacement], m.delegate)
        }
        for old in previous { old?.isSelected = false }
        for node in nodes { node?.isSelected = true }
        delegate?.collectionNode(self, didSelectItemAt: index)
    }

    /// Whether item `index` is selected.
    @MainActor
    public func isItemSelected(at index: Int) -> Bool {
        model.withLock { $0.items[safe: index]?.isSelected ?? false }
    }

    /// Handles the pointer for the collection: scrolling first; a click (press and release with
    /// no drag) on an item selects it. Returns whether the event was used.
    @MainActor
    @discardableResult
    public func handle(_ event: InputEvent, at time: TimeInterval) -> Bool {
        let wasDragging = isDragging
        let used = handleScrollEvent(event, at: time)
        if case .pointerUp(.left, let point) = event, !used, !wasDragging, isNodeLoaded {
            let local = layer.convertFromWindow(point)
            if bounds.contains(local), let index = indexOfItem(at: local) {
                selectItem(at: index)
                return true
            }
        }
        return used
    }

    // MARK: Updates (main thread)

    /// Loads the items again from the data source. Items that stay keep their cells until their
    /// new ones have displayed (no flash); a batch fetch in flight is cancelled.
    @MainActor
    public func reloadData() {
        batchContext.cancelBatchFetching()
        model.withLock { $0.needsReloadData = true }
        loadDataIfNeeded()
    }

    @MainActor
    public func insertItems(at indices: [Int]) {
        performBatchUpdates { $0.insertItems(at: indices) }
    }

    @MainActor
    public func deleteItems(at indices: [Int]) {
        performBatchUpdates { $0.deleteItems(at: indices) }
    }

    @MainActor
    public func reloadItems(at indices: [Int]) {
        performBatchUpdates { $0.reloadItems(at: indices) }
    }

    /// Applies insertions, deletions and reloads together, after the data source has changed. The
    /// item at the viewport's top edge keeps its place on screen. If the data source's count does
    /// not match the old count less the deletions plus the insertions, or an index is out of
    /// range, the whole collection is reloaded instead (and the mismatch reported on standard
    /// error), as a collection must never show items the data source does not have.
    @MainActor
    public func performBatchUpdates(_ updates: (inout CollectionUpdates) -> Void) {
        var changes = CollectionUpdates()
        updates(&changes)
        guard let dataSource = model.withLock({ $0.dataSource }) else { return }
        if model.withLock({ $0.needsReloadData }) { return loadDataIfNeeded() }
        let oldCount = model.withLock { $0.items.count }
        let newCount = dataSource.numberOfItems(in: self)
        let deletions = Set(changes.deletions), insertions = Set(changes.insertions)
        let reloads = Set(changes.reloads).subtracting(deletions)
        guard deletions.allSatisfy({ (0..<oldCount).contains($0) }), reloads.allSatisfy({ (0..<oldCount).contains($0) }),
              insertions.allSatisfy({ (0..<newCount).contains($0) }),
              oldCount - deletions.count + insertions.count == newCount else {
            Log.collection.warning("""
                invalid batch update (\(oldCount) items, -\(deletions.count) +\(insertions.count) \
                does not give \(newCount), or an index is out of range); reloading the data instead
                """)
            model.withLock { $0.needsReloadData = true }
            return loadDataIfNeeded()
        }
        let anchor = currentAnchor()
        let width = bounds.width
        var removed: [(item: Item, index: Int)] = []
        let newAnchorIndex = model.withLock { m -> Int? in
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
            // Calls still waiting name items where they are now (a deleted one where it was).
            for i in m.announcements.indices {
                if let index = newIndexOfOld[safe: m.announcements[i].index] ?? nil { m.announcements[i].index = index }
            }
            m.needsLayout = true
            // The anchor moves with its item; a deleted one hands over to the next that stayed.
            guard let anchor else { return nil }
            var index = anchor.index
            while index < oldCount, newIndexOfOld[index] == nil { index += 1 }
            return index < oldCount ? newIndexOfOld[index] : nil
        }
        for (item, index) in removed { release(item, at: index) }
        for index in insertions.sorted() { estimateSize(of: index, dataSource: dataSource, width: width) }
        relayout(keeping: anchor.map { a in newAnchorIndex.map { CollectionAnchor(index: $0, distance: a.distance) } } ?? nil)
        requestFrame()
        deliverAnnouncements()
    }

    // MARK: Each turn (main thread)

    /// Loads the data and places the items now if that is pending (each turn does it; call it
    /// to scroll to an offset before the first turn, as the content's height bounds the offset).
    @MainActor
    public func layoutIfNeeded() {
        loadDataIfNeeded()
        let width = bounds.width
        if model.withLock({ $0.needsLayout || $0.layoutWidth != width }) {
            relayout(keeping: currentAnchor())
        }
    }

    open override func scrollNodeDidUpdate(at time: TimeInterval) {
        super.scrollNodeDidUpdate(at: time)
        layoutIfNeeded()
        swapReadyReplacements()
        updateRanges()
        deliverAnnouncements()
        checkBatchFetch()
    }

    /// Gives every item in and around the ranges its interface state; makes the cells that are
    /// needed and drops those no longer needed.
    @MainActor
    private func updateRanges() {
        let viewport = visibleContentRect
        let direction = scrollDirection, speed = scrollSpeed
        let (tuning, forcedMode) = model.withLock { ($0.rangeTuning, $0.rangeMode) }
        let mode = forcedMode ?? (hasScrolled ? .full : .minimum)
        let display = tuning.rect(for: .display, mode: mode, viewport: viewport, direction: direction, speed: speed)
        let preload = tuning.rect(for: .preload, mode: mode, viewport: viewport, direction: direction, speed: speed)
        let (candidates, previouslyLive) = model.withLock { m -> ([Int], Set<Int>) in
            m.lastRanges = Ranges(viewport: viewport, display: display, preload: preload, mode: mode)
            return (m.layout.indices(intersecting: preload.union(display).union(viewport)), m.live)
        }
        var states: [Int: InterfaceState] = [:]
        for index in candidates {
            guard let frame = frameForItem(at: index) else { continue }
            if frame.overlaps(viewport) {
                states[index] = [.preload, .display, .visible]
            } else if frame.overlaps(display) {
                states[index] = [.preload, .display]
            } else if frame.overlaps(preload) {
                states[index] = .preload
            }
        }
        // Leaving: the far ones first, then the rest nearest first (visible work starts first).
        for index in previouslyLive.subtracting(states.keys).sorted() { setState([], ofItemAt: index, viewport: viewport) }
        let ordered = states.keys.sorted { distance(of: $0, to: viewport) < distance(of: $1, to: viewport) }
        for index in ordered { setState(states[index]!, ofItemAt: index, viewport: viewport) }
        model.withLock { $0.live = Set(states.keys).union($0.live.filter { states[$0] != nil }) }
    }

    @MainActor
    private func distance(of index: Int, to viewport: CGRect) -> CGFloat {
        guard let frame = frameForItem(at: index) else { return .infinity }
        if frame.maxY < viewport.minY { return viewport.minY - frame.maxY }
        if frame.minY > viewport.maxY { return frame.minY - viewport.maxY }
        return 0
    }

    /// Moves one item to `newState`: its cell joins or leaves the tree, gets the state, and is
    /// made (or dropped) as needed.
    @MainActor
    private func setState(_ newState: InterfaceState, ofItemAt index: Int, viewport: CGRect) {
        guard var item = model.withLock({ $0.items[safe: index] }), let frame = frameForItem(at: index) else { return }
        if newState.isEmpty {
            release(item, at: index)
            model.withLock { m in
                m.items[index].node = nil
                m.items[index].replacement = nil
                m.items[index].pending = nil
                m.items[index].state = []
                m.items[index].isInTree = false
            }
            return
        }
        let d = distance(of: index, to: viewport)
        let priority = DisplayPriority(isVisible: newState.contains(.visible), distance: d)
        let isStale = item.node != nil && item.nodeGeneration != item.generation
        if (item.node == nil || isStale) && item.pending == nil {
            allocate(index, priority: priority)
            item = model.withLock { $0.items[index] }
        }
        guard let node = item.node else { return }
        if node.frame.origin != frame.origin { node.frame.origin = frame.origin }
        node.displayPriority = priority
        if let replacement = item.replacement {
            replacement.displayPriority = priority
            if replacement.frame.origin != frame.origin { replacement.frame.origin = frame.origin }
            // Off screen there is nothing to flash: the new cell takes over now.
            if !newState.contains(.display) {
                swap(in: index)
                return setState(newState, ofItemAt: index, viewport: viewport)
            }
        }
        let oldState = item.state
        var isInTree = item.isInTree
        if newState.contains(.display) && !isInTree {
            contentNode.addSubnode(node)
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
        model.withLock { m in
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
    private func release(_ item: Item, at index: Int) {
        item.pending?.cancel()
        if let node = item.node, node.interfaceState.contains(.visible) {
            announce(node, at: index, willDisplay: false)
        }
        for node in [item.node, item.replacement].compactMap({ $0 }) {
            node.recursivelySetInterfaceState([])
            if node.supernode === contentNode { node.removeFromSupernode() }
        }
    }

    /// Runs item `index`'s node block on a worker, measures the cell there, then hands it over
    /// here (or does it all now, on the main thread, when cells are not made asynchronously or no
    /// run loop is installed to hand them back on).
    @MainActor
    private func allocate(_ index: Int, priority: DisplayPriority) {
        guard let dataSource = model.withLock({ $0.dataSource }) else { return }
        let block = dataSource.collectionNode(self, nodeBlockForItemAt: index)
        let (id, generation, sizeRange) = model.withLock { m in
            (m.items[index].id, m.items[index].generation,
             m.layoutObject.sizeRange(forItemAt: index, collectionWidth: bounds.width))
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
            cellDidArrive(make(), id: id, generation: generation, near: index)
            return
        }
        let ticket = DisplayQueue.shared.enqueue(priority: priority) { [weak self] in
            let node = make()
            loop.perform { self?.cellDidArrive(node, id: id, generation: generation, near: index) }
        }
        model.withLock { $0.items[index].pending = ticket }
    }

    /// A cell made on a worker: it becomes the item's cell, or the replacement of a displayed
    /// reloaded one; its measured size replaces the estimate (laid out at the next turn).
    @MainActor
    private func cellDidArrive(_ node: CellNode, id: UInt64, generation: UInt64, near hint: Int) {
        guard let index = indexOfItem(id: id, near: hint) else { return }  // deleted meanwhile
        let (stale, selected, old, oldInTree) = model.withLock { m in
            (m.items[index].generation != generation, m.items[index].isSelected, m.items[index].node, m.items[index].isInTree)
        }
        guard !stale else { return }
        node.isSelected = selected
        let size = node.frame.size
        if let old, oldInTree {
            node.frame = CGRect(origin: old.frame.origin, size: size)
            if let previous = model.withLock({ $0.items[index].replacement }) { release(Item(id: id, size: .zero, replacement: previous), at: index) }
            // Under the old cell, which covers it until it has displayed.
            let position = contentNode.subnodes.firstIndex { $0 === old } ?? 0
            contentNode.insertSubnode(node, at: position)
            node.recursivelySetInterfaceState(model.withLock { $0.items[index].state })
            model.withLock { m in
                m.items[index].replacement = node
                m.items[index].pending = nil
                m.items[index].nodeGeneration = generation
            }
        } else {
            if let old { release(Item(id: id, size: .zero, node: old), at: index) }
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
        requestFrame()
    }

    /// Replacements whose new cell is on screen whole take their old cell's place.
    @MainActor
    private func swapReadyReplacements() {
        let waiting = model.withLock { m in m.live.filter { m.items[safe: $0]?.replacement != nil } }
        for index in waiting {
            guard let replacement = model.withLock({ $0.items[index].replacement }),
                  let layer = replacement.layerIfLoaded else { continue }
            let ready = replacement.isSubtreeDisplayed && !replacement.isShowingPlaceholder
                && LayerAnimator.isPresented(layer) && layer.fadeOpacity >= 1
            if ready { swap(in: index) }
        }
    }

    /// The replacement becomes the item's cell; the old one goes.
    @MainActor
    private func swap(in index: Int) {
        guard let (old, replacement, wasInTree) = model.withLock({ m -> (CellNode?, CellNode, Bool)? in
            guard let replacement = m.items[index].replacement else { return nil }
            return (m.items[index].node, replacement, m.items[index].isInTree)
        }) else { return }
        if let old {
            if old.interfaceState.contains(.visible) {
                announce(old, at: index, willDisplay: false)
            }
            old.recursivelySetInterfaceState([])
            if old.supernode === contentNode { old.removeFromSupernode() }
        }
        let size = replacement.frame.size
        model.withLock { m in
            m.items[index].node = replacement
            m.items[index].replacement = nil
            m.items[index].isInTree = wasInTree && replacement.supernode === contentNode
            if m.items[index].size != size {
                m.items[index].size = size
                m.needsLayout = true
            }
            m.items[index].isMeasured = true
        }
        if replacement.interfaceState.contains(.visible) {
            announce(replacement, at: index, willDisplay: true)
        }
        requestFrame()
    }

    /// Queues a willDisplay (or didEndDisplaying) for `deliverAnnouncements`.
    @MainActor
    private func announce(_ node: CellNode, at index: Int, willDisplay: Bool) {
        model.withLock { $0.announcements.append(Announcement(node: node, index: index, isWillDisplay: willDisplay)) }
    }

    /// Tells the delegate which cells started and ended displaying, once the change that did it
    /// (a turn's range update, a batch update, a reload) is complete: the delegate may update
    /// the collection from these calls, which in the middle of the change would move the items
    /// it is working on by index. Calls queued by such an update wait for the delivery in
    /// progress, so they keep their order.
    @MainActor
    private func deliverAnnouncements() {
        let begins = model.withLock { m -> Bool in
            guard !m.isAnnouncing, !m.announcements.isEmpty else { return false }
            m.isAnnouncing = true
            return true
        }
        guard begins else { return }
        while true {
            let (next, delegate) = model.withLock { m -> (Announcement?, (any CollectionDelegate)?) in
                guard !m.announcements.isEmpty else {
                    m.isAnnouncing = false
                    return (nil, nil)
                }
                return (m.announcements.removeFirst(), m.delegate)
            }
            guard let next else { return }
            if next.isWillDisplay {
                delegate?.collectionNode(self, willDisplayItemWith: next.node, at: next.index)
            } else {
                delegate?.collectionNode(self, didEndDisplayingItemWith: next.node, at: next.index)
            }
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

    // MARK: Data and layout (main thread)

    /// Loads every item from the data source when asked to (the first turn, `reloadData`, a new
    /// data source): items that stay are reloaded in place, the rest added or removed at the end.
    @MainActor
    private func loadDataIfNeeded() {
        guard model.withLock({ $0.needsReloadData }) else { return }
        guard let dataSource = model.withLock({ $0.dataSource }) else { return }
        model.withLock { $0.needsReloadData = false }
        let anchor = currentAnchor()
        let count = max(0, dataSource.numberOfItems(in: self))
        let width = bounds.width
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
        for (offset, item) in removed.enumerated() { release(item, at: count + offset) }
        // Estimates for every item: the new ones have none, and reloaded ones may change.
        for index in 0..<count where index >= oldCount || !model.withLock({ $0.items[index].isMeasured }) {
            estimateSize(of: index, dataSource: dataSource, width: width)
        }
        relayout(keeping: anchor.flatMap { $0.index < count ? $0 : nil })
        requestFrame()
        deliverAnnouncements()
    }

    @MainActor
    private func estimateSize(of index: Int, dataSource: any CollectionDataSource, width: CGFloat) {
        let range = model.withLock { $0.layoutObject.sizeRange(forItemAt: index, collectionWidth: width) }
        let size = dataSource.collectionNode(self, estimatedSizeForItemAt: index, in: range)
        model.withLock { m in
            m.items[index].size = size
            m.items[index].isMeasured = false
        }
    }

    @MainActor
    private func currentAnchor() -> CollectionAnchor? {
        let (layout, hasLayout) = model.withLock { ($0.layout, $0.layoutWidth >= 0) }
        guard hasLayout else { return nil }
        return layout.anchor(atOffset: contentOffset, viewport: bounds.size)
    }

    /// Places every item again; the anchor's item keeps its place on screen, without disturbing a
    /// scroll in progress.
    @MainActor
    private func relayout(keeping anchor: CollectionAnchor?) {
        let width = bounds.width
        let layout = model.withLock { m -> CollectionLayoutResult in
            m.layout = m.layoutObject.layout(sizes: m.items.map(\.size), width: width)
            m.layoutWidth = width
            m.needsLayout = false
            return m.layout
        }
        contentHeight = layout.contentHeight
        if let anchor {
            let delta = layout.offset(keeping: anchor) - contentOffset
            if delta != 0 { shiftContentOffset(by: delta) }
        }
        // Cells in the tree move with their items.
        for index in model.withLock({ Array($0.live) }) {
            guard let frame = layout.frames[safe: index], let item = model.withLock({ $0.items[safe: index] }) else { continue }
            for node in [item.node, item.replacement].compactMap({ $0 }) where node.frame.origin != frame.origin {
                node.frame.origin = frame.origin
            }
        }
    }

    // MARK: Batch fetching (main thread)

    @MainActor
    private func checkBatchFetch() {
        let (delegate, leading, height) = model.withLock { ($0.delegate, $0.leadingScreensForBatching, $0.layout.contentHeight) }
        guard let delegate, !model.withLock({ $0.needsReloadData }) else { return }
        guard BatchFetching.shouldFetch(context: batchContext, direction: scrollDirection, viewport: visibleContentRect,
                                        contentHeight: height, leadingScreens: leading, isVisible: isNodeLoaded),
              delegate.shouldBatchFetch(for: self) else { return }
        batchContext.beginBatchFetching()
        let context = batchContext
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            delegate.collectionNode(self, willBeginBatchFetchWith: context)
        }
    }

    private func requestFrame() {
        DisplayScheduler.shared.runLoop?.setNeedsFrame()
    }
}

extension CollectionNode {
    /// What the range overlay draws for this collection now: the last turn's ranges and the items
    /// across the span the overlay's panel maps, each with its state and whether it has a cell.
    @MainActor
    public func rangeOverlaySnapshot() -> RangeOverlaySnapshot {
        let ranges = self.ranges
        let viewportInWindow = CGRect(origin: isNodeLoaded ? layer.convertToWindow(.zero) : .zero, size: bounds.size)
        var snapshot = RangeOverlaySnapshot(
            contentSize: CGSize(width: bounds.width, height: contentHeight), viewport: ranges.viewport,
            displayRange: ranges.display, preloadRange: ranges.preload, items: [], viewportInWindow: viewportInWindow,
            caption: "")
        let span = RangeOverlayLayout.span(of: snapshot)
        let spanRect = CGRect(x: -CGFloat.greatestFiniteMagnitude / 4, y: span.lowerBound,
                              width: CGFloat.greatestFiniteMagnitude / 2, height: span.upperBound - span.lowerBound)
        snapshot.items = model.withLock { m in
            m.layout.indices(intersecting: spanRect).map { index in
                let item = m.items[index]
                let state: RangeOverlaySnapshot.ItemState =
                    item.state.contains(.visible) ? .visible : item.state.contains(.display) ? .display
                    : item.state.contains(.preload) ? .preload : .none
                return .init(frame: m.layout.frames[index], state: state, isAllocated: item.node != nil)
            }
        }
        let direction: String
        switch scrollDirection {
        case .none: direction = "at rest"
        case .up: direction = "up"
        case .down: direction = "down"
        }
        snapshot.caption = "\(ranges.mode == .full ? "full" : "minimum") · \(direction) · \(Int(scrollSpeed.rounded()).formatted()) pt/s"
        return snapshot
    }
}
