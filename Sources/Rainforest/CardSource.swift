import Canopy
import CanopyGraphics
import Foundation
import Synchronization

/// The card collection's data source and delegate: one `CardNode` per item, made on a
/// display worker; photo sizes from the deck give exact estimates, so nothing moves when cards
/// are measured. The collection starts with one page of cards and grows by batch fetching, a
/// page at a time, until it holds the `--cards` asked for. Favourites live here, by item: a card
/// is dropped when it leaves the preload range.
///
/// Main-thread state, except the batch fetch (a background queue) and the favourite callbacks
/// (main thread); the Mutex guards what both sides read.
final class CardSource: CollectionDataSource, CollectionDelegate {
    /// Cards loaded per batch fetch.
    nonisolated static let defaultPageSize = 500

    let deck: CardDeck
    let resources: Resources
    let pageSize: Int

    private struct State {
        var loaded: Int
        var favourites: Set<Int> = []
        var scale: CGFloat = 1
        var selected: Int?
        var mode = ViewerMode()
    }
    private let state: Mutex<State>

    /// Where favourites are kept across runs; nil keeps them for this run only.
    let favouritesStore: FavouritesStore?

    init(deck: CardDeck, resources: Resources, pageSize: Int = CardSource.defaultPageSize,
         favouritesStore: FavouritesStore? = nil) {
        self.deck = deck
        self.resources = resources
        self.pageSize = max(1, pageSize)
        self.favouritesStore = favouritesStore
        var initial = State(loaded: min(deck.itemCount, max(1, pageSize)))
        // Saved favourites that still name the same card.
        for entry in favouritesStore?.load() ?? [] where entry.item >= 0 && entry.item < deck.itemCount
            && deck.entry(at: entry.item).card.name == entry.name {
            initial.favourites.insert(entry.item)
        }
        state = Mutex(initial)
    }

    /// The cards the collection holds now, and all it will hold.
    var loadedCount: Int { state.withLock { $0.loaded } }
    var totalCount: Int { deck.itemCount }

    /// The items whose heart is on.
    var favourites: Set<Int> { state.withLock { $0.favourites } }

    /// Pixels per point the cards' icons are drawn for.
    var scale: CGFloat {
        get { state.withLock { $0.scale } }
        set { state.withLock { $0.scale = newValue } }
    }

    /// How new cards are set up (the viewer reloads the cards when it changes).
    var mode: ViewerMode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// The item last clicked, if any.
    var selectedItem: Int? { state.withLock { $0.selected } }

    // MARK: Data source

    func numberOfItems(in collectionNode: CollectionNode) -> Int { loadedCount }

    func collectionNode(_ collectionNode: CollectionNode, nodeBlockForItemAt index: Int) -> CellNodeBlock {
        let entry = deck.entry(at: index)
        let path = resources.imageURL(entry.card.image).path
        let (scale, isFavourite, mode) = state.withLock { ($0.scale, $0.favourites.contains(index), $0.mode) }
        return { [weak self] in
            let card = CardNode(index: index, entry: entry, imagePath: path, scale: scale, isFavourite: isFavourite) { isFavourite in
                self?.setFavourite(isFavourite, at: index)
            }
            card.apply(mode)
            return card
        }
    }

    func collectionNode(_ collectionNode: CollectionNode, estimatedSizeForItemAt index: Int, in sizeRange: SizeRange) -> CGSize {
        CGSize(width: CardDeck.cardWidth, height: CardDeck.cardHeight(imageSize: try? deck.entry(at: index).imageSize.get()))
    }

    /// Records a heart's new state (main thread) and saves the favourites.
    private func setFavourite(_ isFavourite: Bool, at index: Int) {
        let favourites = state.withLock { s -> Set<Int> in
            if isFavourite { s.favourites.insert(index) } else { s.favourites.remove(index) }
            return s.favourites
        }
        favouritesStore?.save(favourites.map { FavouritesStore.Entry(item: $0, name: deck.entry(at: $0).card.name) })
    }

    // MARK: Delegate

    func collectionNode(_ collectionNode: CollectionNode, didSelectItemAt index: Int) {
        state.withLock { $0.selected = index }
    }

    func shouldBatchFetch(for collectionNode: CollectionNode) -> Bool {
        loadedCount < totalCount
    }

    /// The next page: the cards are already in memory (the deck), so the fetch only decides how
    /// many; the collection is told on the main thread.
    nonisolated func collectionNode(_ collectionNode: CollectionNode, willBeginBatchFetchWith context: BatchContext) {
        DisplayScheduler.shared.runLoop?.perform { [self] in
            guard !context.batchFetchingWasCancelled else { return }
            let start = loadedCount
            let count = min(pageSize, totalCount - start)
            state.withLock { $0.loaded = start + count }
            collectionNode.insertItems(at: Array(start..<(start + count)))
            context.completeBatchFetching(true)
        }
    }
}
