import Foundation

/// One card ready to show: what it says and where its photo is.
struct CardItem: Sendable {
    var entry: CardDeck.Entry
    /// The photo's file.
    var imagePath: String
}

/// Where the collection's cards come from, a page at a time: the embedded deck (`DeckCards`,
/// every card in memory) or a folder of images (`ImageFolder`, listed and read by the batch
/// fetches). `CardSource` asks it for pages on the batch fetch's background queue and for
/// ready cards on the main thread, so every member is callable from any thread.
protocol CardProvider: AnyObject, Sendable {
    /// How many cards the collection shows before any batch fetch (no I/O allowed).
    func initialCount(pageSize: Int) -> Int

    /// How many cards there are in all, once known (a folder knows once it is listed).
    var totalCount: Int? { get }

    /// Makes at least `count` cards ready, or all there are, and returns how many are ready (at
    /// most `count`). May read files: called on the batch fetch's background queue, and on the
    /// first screen's decoding thread (a folder's first files), maybe at the same time.
    func load(upTo count: Int) -> Int

    /// How many cards are ready now, without reading anything (a folder's first files may have
    /// been read ahead, on another thread, with the first screen's photos).
    var readyCount: Int { get }

    /// Card `index`, which `initialCount` or `load` made ready.
    func item(at index: Int) -> CardItem

    /// What the cards are, for the status line and the title: "cards", or "files".
    var noun: String { get }

    /// Where they come from, when it is worth saying: the folder's name.
    var place: String? { get }

    /// Why there is nothing to show, when something went wrong before any card (a folder that
    /// could not be listed).
    var problem: String? { get }
}

/// The embedded cards (cards.json), repeated to `--cards`: all in memory, so a page costs
/// nothing but the decision how many.
final class DeckCards: CardProvider {
    let deck: CardDeck
    let resources: Resources

    init(deck: CardDeck, resources: Resources) {
        self.deck = deck
        self.resources = resources
    }

    func initialCount(pageSize: Int) -> Int { min(deck.itemCount, max(1, pageSize)) }
    var totalCount: Int? { deck.itemCount }
    func load(upTo count: Int) -> Int { min(deck.itemCount, max(0, count)) }
    var readyCount: Int { deck.itemCount }

    func item(at index: Int) -> CardItem {
        let entry = deck.entry(at: index)
        return CardItem(entry: entry, imagePath: resources.imageURL(entry.card.image).path)
    }

    var noun: String { "cards" }
    var place: String? { nil }
    var problem: String? { nil }
}
