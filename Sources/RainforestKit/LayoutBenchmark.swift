import Canopy
import Foundation

/// `bench --scenario layout`: what measuring the card's layout-spec tree (`CardLayout`) costs on
/// one core. The JSON names are fixed: `card_us` (one card: its tree built, measured with nothing
/// cached, and released, as a cell's spec tree is after its layout), `cells_10k_ms` (10,000
/// different cards, one after the other, likewise) and `card_cached_us` (measuring an already
/// measured card again); `card_node_us` and `card_node_cached_us` time what the viewer does on the
/// main thread for each card that scrolls in: a `CardNode` made and laid out, its texts new to
/// the shared `TextLayoutCache` (a card's first appearance) or already in it (a card coming back).
struct LayoutBenchmark {
    struct Result: Codable, Sendable, Equatable {
        var cardUs: Double
        var cells10kMs: Double
        var cardCachedUs: Double
        var cardNodeUs: Double
        var cardNodeCachedUs: Double
        enum CodingKeys: String, CodingKey {
            case cardUs = "card_us"
            case cells10kMs = "cells_10k_ms"
            case cardCachedUs = "card_cached_us"
            case cardNodeUs = "card_node_us"
            case cardNodeCachedUs = "card_node_cached_us"
        }
    }

    let deck: CardDeck
    /// Timed runs per figure, after one untimed warm-up; the median is reported.
    var repetitions = 15

    /// A card's inputs with the texts already counted, so the timed loops time layout alone.
    private struct CardData {
        let photoSize: CGSize?
        let nameLength: Int
        let descriptionLength: Int
        let creditLength: Int
    }

    func run() -> Result {
        let data = deck.entries.map { entry in
            CardData(
                photoSize: try? entry.imageSize.get(), nameLength: entry.card.name.count,
                descriptionLength: entry.card.description.count, creditLength: entry.card.credit.count)
        }
        guard !data.isEmpty else {
            return Result(cardUs: 0, cells10kMs: 0, cardCachedUs: 0, cardNodeUs: 0, cardNodeCachedUs: 0)
        }

        // One card: a batch of fresh trees (nothing cached), divided by the batch size.
        let batch = 1_000
        let cardUs = median { () -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<batch { Self.measure(data[index % data.count]) }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(batch)
        }

        // 10,000 cells, each its own tree, as a collection measures its items.
        let cellsMs = median { () -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<10_000 { Self.measure(data[index % data.count], variant: index) }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }

        // The same card measured again: the cache answers.
        let card = data[0]
        let spec = CardLayout.spec(
            photoSize: card.photoSize, nameLength: card.nameLength,
            descriptionLength: card.descriptionLength, creditLength: card.creditLength)
        _ = spec.layoutThatFits(CardLayout.sizeRange)
        let cachedUs = median { () -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<batch { _ = spec.layoutThatFits(CardLayout.sizeRange) }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(batch)
        }

        // Card nodes, as the viewer makes them (at scale 1). Each round's texts differ from every
        // other round's, so the first pass lays them out anew and the second finds them cached.
        var nodeUs: [Double] = [], nodeCachedUs: [Double] = []
        for round in 0...repetitions {  // round 0 warms up
            let entries = deck.entries.map { entry in
                var entry = entry
                entry.card.name += " \(round)"
                entry.card.description += " \(round)"
                entry.card.credit += " \(round)"
                return entry
            }
            let fresh = Self.makeCardNodes(entries), cached = Self.makeCardNodes(entries)
            if round > 0 {
                nodeUs.append(fresh)
                nodeCachedUs.append(cached)
            }
        }
        return Result(
            cardUs: cardUs, cells10kMs: cellsMs, cardCachedUs: cachedUs,
            cardNodeUs: nodeUs.median, cardNodeCachedUs: nodeCachedUs.median)
    }

    /// Makes and lays out a card node for each entry, as `Viewer` does; the mean per card in µs.
    private static func makeCardNodes(_ entries: [CardDeck.Entry]) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for (index, entry) in entries.enumerated() {
            let card = CardNode(index: index, entry: entry, imagePath: entry.card.image, scale: 1)
            let size = CGSize(width: CardDeck.cardWidth, height: CardDeck.cardHeight(imageSize: try? entry.imageSize.get()))
            card.frame = CGRect(origin: .zero, size: size)
            card.layoutAndApply(SizeRange(exactly: size))
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(entries.count)
    }

    /// Builds and measures one card; `variant` lengthens the description so cells differ.
    @discardableResult
    private static func measure(_ card: CardData, variant: Int = 0) -> CGSize {
        let spec = CardLayout.spec(
            photoSize: card.photoSize, nameLength: card.nameLength,
            descriptionLength: card.descriptionLength + 2 * (variant % 7),
            creditLength: card.creditLength)
        return spec.layoutThatFits(CardLayout.sizeRange).size
    }

    private func median(_ body: () -> Double) -> Double {
        _ = body()
        return (0..<repetitions).map { _ in body() }.median
    }

    static func table(_ result: Result) -> String {
        BenchReport.format([
            ["figure", "median"],
            ["card (uncached)", String(format: "%.2f µs", result.cardUs)],
            ["10,000 cells", String(format: "%.1f ms", result.cells10kMs)],
            ["card (cached)", String(format: "%.2f µs", result.cardCachedUs)],
            ["card node (texts new)", String(format: "%.0f µs", result.cardNodeUs)],
            ["card node (texts cached)", String(format: "%.0f µs", result.cardNodeCachedUs)],
        ])
    }
}
