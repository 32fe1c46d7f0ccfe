import CanopyGraphics
import Foundation

/// The cards to show: the embedded cards (each with its photo's size, read from the file's
/// header), repeated to as many items as asked.
struct CardDeck: Sendable {
    /// The tutorial's card width in points.
    static let cardWidth: CGFloat = 320
    /// The text area below the photo.
    static let textAreaHeight: CGFloat = 300
    /// The aspect (height / width) assumed for a photo whose size cannot be read.
    static let fallbackAspect: CGFloat = 3.0 / 4.0
    /// The photo area's aspect (height / width) stays within these: a panorama (20000 x 100 px)
    /// gets a strip 107 pt high rather than 2 pt, and a very tall image (100 x 20000 px) a photo
    /// 640 pt high rather than 64,000 pt (a card bitmap of 330 MB at 2x, taller than any
    /// texture). A photo outside them is aspect-filled in its area (its middle shown, cropped).
    static let minimumPhotoAspect: CGFloat = 1.0 / 3.0
    static let maximumPhotoAspect: CGFloat = 2

    struct Entry: Sendable {
        var card: Card
        /// The photo's pixel size, or why it could not be read.
        var imageSize: Result<CGSize, ImageError>
        /// Whether the photo is an animation (a GIF or WebP of several frames).
        var isAnimated = false
    }

    let entries: [Entry]
    /// How many items the collection shows (the entries repeated).
    let itemCount: Int
    /// What the cards file had that was odd but usable (unknown fields, repeated names).
    var warnings: [CardsFileWarning] = []

    init(entries: [Entry], itemCount: Int? = nil) {
        self.entries = entries
        self.itemCount = entries.isEmpty ? 0 : max(0, itemCount ?? entries.count)
    }

    /// Loads the cards of a resources folder and reads each distinct photo's header once.
    static func load(resources: Resources, itemCount: Int?) throws(CardsFileError) -> CardDeck {
        let contents = try CardsFile.loadContents(contentsOf: resources.cardsFile)
        let cards = contents.cards
        var headers: [String: Result<ImageHeader, ImageError>] = [:]
        let entries = cards.map { card in
            if headers[card.image] == nil {
                do throws(ImageError) {
                    let path = resources.imageURL(card.image).path
                    let header = try ImageHeader.read(contentsOf: path)
                    try ImageDecoder.checkPixelLimit(header, path: path)
                    headers[card.image] = .success(header)
                } catch {
                    headers[card.image] = .failure(error)
                }
            }
            let header = headers[card.image]!
            return Entry(
                card: card, imageSize: header.map { CGSize(width: $0.width, height: $0.height) },
                isAnimated: (try? header.get().isAnimated) ?? false)
        }
        var deck = CardDeck(entries: entries, itemCount: itemCount)
        deck.warnings = contents.warnings
        return deck
    }

    /// The entry shown by item `index`.
    func entry(at index: Int) -> Entry { entries[index % entries.count] }

    /// The tutorial's card height: the photo aspect-fit across 320 pt (its aspect kept within
    /// `minimumPhotoAspect...maximumPhotoAspect`), plus the text area.
    static func cardHeight(imageSize: CGSize?) -> CGFloat {
        (photoAspect(imageSize: imageSize) * cardWidth).rounded(.up) + textAreaHeight
    }

    /// The photo area's aspect (height / width): the photo's, kept within
    /// `minimumPhotoAspect...maximumPhotoAspect`; `fallbackAspect` without a usable size.
    static func photoAspect(imageSize: CGSize?) -> CGFloat {
        guard let size = imageSize, size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else {
            return fallbackAspect
        }
        return min(max(size.height / size.width, minimumPhotoAspect), maximumPhotoAspect)
    }

    /// Whether a photo of `imageSize` is cropped to its area (its aspect is outside the limits),
    /// so the card aspect-fills it instead of aspect-fitting it.
    static func cropsPhoto(imageSize: CGSize?) -> Bool {
        guard let size = imageSize, size.width > 0, size.height > 0 else { return false }
        return photoAspect(imageSize: size) != size.height / size.width
    }

    /// Every item's height, in item order.
    var heights: [CGFloat] {
        let perEntry = entries.map { Self.cardHeight(imageSize: try? $0.imageSize.get()) }
        return (0..<itemCount).map { perEntry[$0 % perEntry.count] }
    }
}
