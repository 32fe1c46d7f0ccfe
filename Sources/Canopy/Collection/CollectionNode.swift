import Foundation
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
/// places them; its range controller (`RangeController`) moves every cell through the preload,
/// display and visible states as the user scrolls, so a cell is made and measured before it is
/// near, drawn before it is seen, and its contents released after it leaves. Its data controller
/// (`CollectionDataController`) keeps the items, applies the updates and makes the cells. This
/// class is their public face: configuration, the updates, reading, selection and input.
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
/// - Texture's batch-fetching rule is checked (`checkBatchFetch`).
///
/// Updates (`performBatchUpdates` and the rest) keep the reader's place; a reloaded item keeps
/// showing its old cell until the new one has displayed and is on screen, so reloads never flash.
/// Main thread, except configuration that says otherwise.
open class CollectionNode: ScrollNode, @unchecked Sendable {
    /// What the collection keeps for itself; its items are its data controller's, its ranges its
    /// range controller's.
    private struct Configuration {
        weak var delegate: (any CollectionDelegate)?
        var leadingScreensForBatching = BatchFetching.defaultLeadingScreens
        var estimatedItemHeight: CGFloat = 200
    }
    private let configuration = Mutex(Configuration())

    /// The items, their cells and where the layout places them (Texture's `ASDataController`).
    let dataController: CollectionDataController
    /// The ranges, and the interface state each cell gets from them (Texture's
    /// `ASRangeController`).
    let rangeController = RangeController()

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
        dataController = CollectionDataController(layout: layout)
        super.init()
        name = "collection"
        batchContext.onStateChange = { _ in DisplayScheduler.shared.runLoop?.setNeedsFrame() }
    }

    // MARK: Configuration

    @MainActor
    public var dataSource: (any CollectionDataSource)? {
        get { dataController.model.withLock { $0.dataSource } }
        set {
            dataController.model.withLock {
                $0.dataSource = newValue; $0.needsReloadData = true
            }
            requestFrame()
        }
    }

    /// Any thread.
    public var delegate: (any CollectionDelegate)? {
        get { configuration.withLock { $0.delegate } }
        set { configuration.withLock { $0.delegate = newValue } }
    }

    /// How items are placed (given at init). Setting it lays out again.
    public var collectionLayout: any CollectionLayout {
        get { dataController.model.withLock { $0.layoutObject } }
        set {
            dataController.model.withLock {
                $0.layoutObject = newValue; $0.needsLayout = true
            }
            requestFrame()
        }
    }

    /// The ranges' sizes (Texture's defaults) and the velocity extension. Any thread.
    public var rangeTuning: RangeTuning {
        get { rangeController.tuning }
        set { rangeController.tuning = newValue; requestFrame() }
    }

    /// Forces a range mode; nil (the default) is Texture's rule: minimum until the user scrolls,
    /// then full.
    public var rangeMode: RangeMode? {
        get { rangeController.forcedMode }
        set { rangeController.forcedMode = newValue; requestFrame() }
    }

    /// How many screenfuls before the end a batch fetch starts (default 2; 0 turns it off).
    public var leadingScreensForBatching: CGFloat {
        get { configuration.withLock { $0.leadingScreensForBatching } }
        set { configuration.withLock { $0.leadingScreensForBatching = newValue } }
    }

    /// Whether cells are made and measured on the display workers (true, the default) or on the
    /// main thread when their item comes in range (the main-thread baseline). Any thread.
    public var allocatesCellsAsynchronously: Bool {
        get { dataController.model.withLock { $0.allocatesCellsAsynchronously } }
        set { dataController.model.withLock { $0.allocatesCellsAsynchronously = newValue } }
    }

    /// The height the default estimate gives items not measured yet (default 200 pt).
    public var estimatedItemHeight: CGFloat {
        get { configuration.withLock { $0.estimatedItemHeight } }
        set { configuration.withLock { $0.estimatedItemHeight = max(0, newValue.isFinite ? newValue : 0) } }
    }

    // MARK: Reading the collection (main thread)

    /// The number of items, as of the last data load or update.
    @MainActor
    public var numberOfItems: Int {
        dataController.loadDataIfNeeded(in: self)
        return dataController.model.withLock { $0.items.count }
    }

    /// Item `index`'s cell, if it has one now (it is in or near the preload range).
    @MainActor
    public func nodeForItem(at index: Int) -> CellNode? {
        dataController.model.withLock { $0.items[safe: index]?.node }
    }

    /// The interface state item `index`'s cell was given last (`[]` if it has none).
    @MainActor
    public func interfaceStateForItem(at index: Int) -> InterfaceState {
        dataController.model.withLock { $0.items[safe: index]?.state ?? [] }
    }

    /// Where item `index` is placed, in content coordinates.
    @MainActor
    public func frameForItem(at index: Int) -> CGRect? {
        dataController.model.withLock { $0.layout.frames[safe: index] }
    }

    /// Whether item `index` has been measured (else it is placed by its estimate).
    @MainActor
    public func isItemMeasured(at index: Int) -> Bool {
        dataController.model.withLock { $0.items[safe: index]?.isMeasured ?? false }
    }

    /// The items whose frames meet `rect` (content coordinates), in index order.
    @MainActor
    public func indicesOfItems(in rect: CGRect) -> [Int] {
        dataController.model.withLock { $0.layout.indices(intersecting: rect) }
    }

    /// The items in the viewport now.
    @MainActor
    public var visibleItemIndices: [Int] { indicesOfItems(in: visibleContentRect) }

    /// The ranges computed at the last turn.
    @MainActor
    public var ranges: Ranges { rangeController.ranges }

    /// The visible items now, and how many of them are not displayed yet (no cell yet, its
    /// display not landed or its contents not uploaded yet, or its placeholder not yet leaving;
    /// a placeholder fading out over the contents counts as displayed).
    @MainActor
    public var visibleCoverage: (visible: Int, waiting: Int) {
        let viewport = visibleContentRect
        let nodes = dataController.model.withLock { m in m.layout.indices(intersecting: viewport).map { m.items[$0].node } }
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
        return dataController.model.withLock { m in
            m.layout.indices(intersecting: CGRect(x: p.x, y: p.y, width: 1, height: 1)).first { m.layout.frames[$0].contains(p) }
        }
    }

    // MARK: Selection (main thread)

    /// Selects item `index` (its cell's `isSelected`, kept across cell releases) and tells the
    /// delegate; the selection is single.
    @MainActor
    public func selectItem(at index: Int) {
        // A reloaded item's new cell waiting under the old one takes the selection too.
        let selection = dataController.model.withLock { m -> (previous: [CellNode?], nodes: [CellNode?])? in
            guard m.items.indices.contains(index) else { return nil }
            var previous: [CellNode?] = []
            for i in m.items.indices where m.items[i].isSelected && i != index {
                m.items[i].isSelected = false
                previous += [m.items[i].node, m.items[i].replacement]
            }
            m.items[index].isSelected = true
            return (previous, [m.items[index].node, m.items[index].replacement])
        }
        guard let selection else { return }
        let delegate = self.delegate
        for old in selection.previous { old?.isSelected = false }
        for node in selection.nodes { node?.isSelected = true }
        delegate?.collectionNode(self, didSelectItemAt: index)
    }

    /// Whether item `index` is selected.
    @MainActor
    public func isItemSelected(at index: Int) -> Bool {
        dataController.model.withLock { $0.items[safe: index]?.isSelected ?? false }
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
        dataController.model.withLock { $0.needsReloadData = true }
        dataController.loadDataIfNeeded(in: self)
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
    /// range, the whole collection is reloaded instead (and the mismatch logged as a warning, under
    /// the label `canopy.collection`), as a collection must never show items the data source does
    /// not have.
    @MainActor
    public func performBatchUpdates(_ updates: (inout CollectionUpdates) -> Void) {
        var changes = CollectionUpdates()
        updates(&changes)
        dataController.apply(changes, in: self)
    }

    // MARK: Each turn (main thread)

    /// Loads the data and places the items now if that is pending (each turn does it; call it
    /// to scroll to an offset before the first turn, as the content's height bounds the offset).
    @MainActor
    public func layoutIfNeeded() {
        dataController.loadDataIfNeeded(in: self)
        dataController.relayoutIfNeeded(in: self)
    }

    open override func scrollNodeDidUpdate(at time: TimeInterval) {
        super.scrollNodeDidUpdate(at: time)
        layoutIfNeeded()
        dataController.swapReadyReplacements(in: self)
        rangeController.updateRanges(in: self)
        rangeController.deliverAnnouncements(in: self)
        checkBatchFetch()
    }

    /// Asks the run loop for a turn, to show a change (the controllers call it too).
    func requestFrame() {
        DisplayScheduler.shared.runLoop?.setNeedsFrame()
    }
}
