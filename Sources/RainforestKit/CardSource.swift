import Canopy
import CanopyGraphics
import Foundation
import Synchronization

/// The card collection's data source and delegate: one `CardNode` per item, made on a
/// display worker; photo sizes from the provider give exact estimates, so nothing moves when
/// cards are measured. The collection starts with the cards the provider has ready (a page of
/// the embedded deck; none for a folder) and grows by batch fetching, a page at a time, until it
/// holds all the provider has: the `--cards` asked for, or every file of the `--images` folder.
/// Favourites live here, by item (a card is dropped when it leaves the preload range), and in the
/// `FavouritesStore` across runs; so does the `ViewerMode` new cards are set up for.
///
/// Main-thread state, except the batch fetch (a background queue, where the provider reads its
/// page) and the favourite callbacks (main thread); the Mutex guards what both sides read.
final class CardSource: CollectionDataSource, CollectionDelegate {
    /// Cards loaded per batch fetch.
    nonisolated static let defaultPageSize = 500

    let provider: any CardProvider
    let pageSize: Int
    /// Called on the main thread after a batch fetch added cards, or found none to add.
    var countsDidChange: (@MainActor () -> Void)?

    private struct State {
        var loaded: Int
        var favourites: Set<Int> = []
        var scale: CGFloat = 1
        var selected: Int?
        var mode = ViewerMode()
        /// Batch fetches begun so far (the latest is the only one whose result counts).
        var fetches = 0
        /// Saved favourites not yet matched with their card (item and card name; another run's
        /// cards may have had others at the same items).
        var saved: Set<FavouritesStore.Entry> = []
    }
    private let state: Mutex<State>
    /// Where favourites are kept across runs; nil keeps them for this run only.
    let favouritesStore: FavouritesStore?

    init(provider: any CardProvider, pageSize: Int = CardSource.defaultPageSize, favouritesStore: FavouritesStore? = nil) {
        self.provider = provider
        self.pageSize = max(1, pageSize)
        self.favouritesStore = favouritesStore
        var initial = State(loaded: provider.initialCount(pageSize: max(1, pageSize)))
        initial.saved = Set((favouritesStore?.load() ?? []).filter { $0.item >= 0 })
        state = Mutex(initial)
    }

    /// The embedded cards, repeated to the deck's item count.
    convenience init(
        deck: CardDeck, resources: Resources, pageSize: Int = CardSource.defaultPageSize,
        favouritesStore: FavouritesStore? = nil
    ) {
        self.init(provider: DeckCards(deck: deck, resources: resources), pageSize: pageSize, favouritesStore: favouritesStore)
    }

    /// How new cards are set up (the viewer reloads the cards when it changes).
    var mode: ViewerMode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// The cards the collection holds now, and all it will hold (nil until the provider knows:
    /// a folder not listed yet).
    var loadedCount: Int { state.withLock { $0.loaded } }
    var totalCount: Int? { provider.totalCount }

    /// Whether every card is loaded (a folder that could not be listed has none to load).
    var isComplete: Bool { totalCount.map { loadedCount >= $0 } ?? false }

    /// The items whose heart is on.
    var favourites: Set<Int> { state.withLock { $0.favourites } }

    /// Pixels per point the cards' icons are drawn for.
    var scale: CGFloat {
        get { state.withLock { $0.scale } }
        set { state.withLock { $0.scale = newValue } }
    }

    /// The item last clicked, if any.
    var selectedItem: Int? { state.withLock { $0.selected } }

    /// What is loaded, for the FPS overlay's status line: "20 of 45 cards loaded", "45 cards",
    /// "Pictures: 1 of 5,000 files loaded", "Pictures: listing…".
    var statusLine: String {
        let prefix = provider.place.map { "\($0): " } ?? ""
        if let problem = provider.problem { return prefix + problem }
        guard let total = totalCount else { return prefix + "listing…" }
        let loaded = loadedCount
        return prefix + (loaded >= total ? counted(total) : "\(loaded.formatted()) of \(counted(total)) loaded")
    }

    /// The same for the window's title, in ASCII apart from the folder's name (SDL's X11
    /// backend passes the title through the C library's locale; the name is the user's own):
    /// "45 cards", "Pictures - 5000 files", "Pictures - listing".
    var titleSummary: String {
        let prefix = provider.place.map { "\($0) - " } ?? ""
        if provider.problem != nil { return prefix + "cannot list" }
        guard let total = totalCount else { return prefix + "listing" }
        return prefix + "\(total) \(total == 1 ? singular : provider.noun)"
    }

    private var singular: String { String(provider.noun.dropLast()) }

    private func counted(_ count: Int) -> String {
        "\(count.formatted()) \(count == 1 ? singular : provider.noun)"
    }

    // MARK: Data source

    func numberOfItems(in collectionNode: CollectionNode) -> Int { loadedCount }

    func collectionNode(_ collectionNode: CollectionNode, nodeBlockForItemAt index: Int) -> CellNodeBlock {
        let item = provider.item(at: index)
        let (scale, isFavourite, mode) = state.withLock { s in
            // A favourite saved by an earlier run comes back on the card it was given to.
            if s.saved.remove(FavouritesStore.Entry(item: index, name: item.entry.card.name)) != nil {
                s.favourites.insert(index)
            }
            return (s.scale, s.favourites.contains(index), s.mode)
        }
        return { [weak self] in
            let card = CardNode(
                index: index, entry: item.entry, imagePath: item.imagePath, scale: scale,
                isFavourite: isFavourite
            ) { isFavourite in
                self?.setFavourite(isFavourite, at: index)
            }
            card.apply(mode)
            return card
        }
    }

    func collectionNode(_ collectionNode: CollectionNode, estimatedSizeForItemAt index: Int, in sizeRange: SizeRange) -> CGSize {
        let imageSize = try? provider.item(at: index).entry.imageSize.get()
        return CGSize(width: CardDeck.cardWidth, height: CardDeck.cardHeight(imageSize: imageSize))
    }

    /// Records a heart's new state (main thread) and saves the favourites, with those of earlier
    /// runs not seen yet.
    private func setFavourite(_ isFavourite: Bool, at index: Int) {
        let name = provider.item(at: index).entry.card.name
        let (favourites, saved) = state.withLock { s -> (Set<Int>, Set<FavouritesStore.Entry>) in
            if isFavourite { s.favourites.insert(index) } else { s.favourites.remove(index) }
            // Saved favourites of other cards at this item (another run's) stay saved.
            s.saved.remove(FavouritesStore.Entry(item: index, name: name))
            return (s.favourites, s.saved)
        }
        let entries =
            favourites.map { FavouritesStore.Entry(item: $0, name: provider.item(at: $0).entry.card.name) }
            + saved
        favouritesStore?.save(entries)
    }

    // MARK: Delegate

    func collectionNode(_ collectionNode: CollectionNode, didSelectItemAt index: Int) {
        state.withLock { $0.selected = index }
    }

    func shouldBatchFetch(for collectionNode: CollectionNode) -> Bool {
        guard let total = totalCount else { return true }  // not listed yet: the fetch lists
        return loadedCount < total
    }

    /// The next page: the provider makes it ready here, on the fetch's background queue (a
    /// folder lists itself at the first fetch and reads a page of headers at each); the
    /// collection is told on the main thread.
    nonisolated func collectionNode(_ collectionNode: CollectionNode, willBeginBatchFetchWith context: BatchContext) {
        // Each fetch is numbered: one that a reload cancelled may still be reading when the next
        // begins (the context is the collection's, shared), and its result must neither insert
        // nor complete the newer fetch.
        let number = state.withLock { s -> Int in
            s.fetches += 1; return s.fetches
        }
        // Cards made ready already (a folder's first files, read ahead with the first screen's
        // photos while the window was made) come at once, so the first screen does not wait for
        // a page of headers; only past them does a fetch read.
        let loaded = state.withLock { $0.loaded }
        let already = min(provider.readyCount, loaded + pageSize)
        // The first page of a folder is the first screen's worth, as the decoding thread reads
        // it: whichever of the two reads it first, the first screen waits for no more.
        let page = loaded == 0 ? min(pageSize, FirstScreenDecodes.limit * 2) : pageSize
        let ready = already > loaded ? already : provider.load(upTo: loaded + page)
        DisplayScheduler.shared.runLoop?.perform { [self] in
            // A source replaced meanwhile (files dropped on the window) keeps out of the new one's way.
            guard !context.batchFetchingWasCancelled, state.withLock({ $0.fetches }) == number,
                collectionNode.dataSource === self
            else { return }
            let start = loadedCount
            if ready > start {
                state.withLock { $0.loaded = ready }
                collectionNode.insertItems(at: Array(start..<ready))
            }
            context.completeBatchFetching(true)
            countsDidChange?()
        }
    }
}
