import Canopy
import CanopyGraphics
import Foundation

/// The card's layout-spec tree, in the tutorial's geometry: the photo at its aspect ratio across the
/// top with the gradient and the name over it (20 pt in, bottom 20 pt above the photo's bottom) and
/// the favourite button in its top-right corner; below it the 300 pt text area with the description
/// (20 pt below the photo, 24 pt in) and the photo credit at the bottom; the blurred photo behind
/// everything.
///
/// The leaves are `CardLayout.Leaf`s: boxes that measure like the card's parts (a fixed size, or
/// text that wraps at a mean glyph advance) so the tree can be measured without fonts or pixels.
enum CardLayout {
    static let favouriteSize: CGFloat = 24

    /// A stand-in for one of the card's parts.
    final class Leaf: LayoutElement {
        enum Content: Sendable {
            /// Whatever size the parent gives (an image, the gradient, the background).
            case fill
            case fixed(CGSize)
            /// Text of `characters` characters at `fontSize`, wrapped to the width, at most
            /// `maximumLines` lines (0: no limit).
            case text(characters: Int, fontSize: CGFloat, maximumLines: Int)
        }

        let style = Style()
        let layoutCache = LayoutCache()
        let content: Content

        init(_ content: Content) {
            self.content = content
        }

        func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
            switch content {
            case .fill:
                return constrainedSize
            case .fixed(let size):
                return size
            case .text(let characters, let fontSize, let maximumLines):
                let advance = fontSize * 0.5
                let natural = CGFloat(characters) * advance
                let width = min(natural, constrainedSize.width)
                let perLine = max(1, (width / advance).rounded(.down))
                var lines = (CGFloat(characters) / perLine).rounded(.up)
                if maximumLines > 0 { lines = min(lines, CGFloat(maximumLines)) }
                return CGSize(width: width, height: lines * fontSize * 1.2)
            }
        }
    }

    /// The card's spec for a photo of `photoSize` and the given texts.
    static func spec(photoSize: CGSize?, name: String, description: String, credit: String) -> any LayoutElement {
        spec(
            photoSize: photoSize, nameLength: name.count, descriptionLength: description.count,
            creditLength: credit.count)
    }

    /// The same, from the texts' lengths in characters (what the stand-in leaves measure by).
    static func spec(photoSize: CGSize?, nameLength: Int, descriptionLength: Int, creditLength: Int) -> any LayoutElement {
        spec(
            photoSize: photoSize,
            parts: Parts(
                photo: Leaf(.fill),
                title: Leaf(.text(characters: nameLength, fontSize: 30, maximumLines: 1)),
                favourite: Leaf(.fixed(CGSize(width: favouriteSize, height: favouriteSize))),
                description: Leaf(.text(characters: descriptionLength, fontSize: 16, maximumLines: 0)),
                credit: Leaf(.text(characters: creditLength, fontSize: 11, maximumLines: 1)),
                gradient: Leaf(.fill),
                creditIcon: Leaf(.fixed(CGSize(width: 12, height: 12))),
                background: Leaf(.fill)))
    }

    /// The card's parts: stand-in leaves for measuring, or the card's nodes (`CardNode`). The
    /// optional ones are left out where the card has none yet.
    struct Parts {
        var photo: any LayoutElement
        var title: any LayoutElement
        var favourite: any LayoutElement
        var description: any LayoutElement
        var credit: any LayoutElement
        var gradient: (any LayoutElement)?
        var creditIcon: (any LayoutElement)?
        var background: (any LayoutElement)?
    }

    /// The photo area's size in points for a photo of `photoSize` pixels: the grid's
    /// (`CardDeck.cardHeight`), the photo's aspect across the card's 320 pt, rounded up.
    static func photoAreaSize(photoSize: CGSize?) -> CGSize {
        CGSize(width: CardDeck.cardWidth, height: CardDeck.cardHeight(imageSize: photoSize) - CardDeck.textAreaHeight)
    }

    /// The card's spec tree over `parts`: the one place the card's geometry is written. It sets
    /// the parts' styles it relies on (the photo's height, the texts' shrinking, the favourite's size).
    static func spec(photoSize: CGSize?, parts: Parts) -> any LayoutElement {
        parts.photo.style.height = .points(photoAreaSize(photoSize: photoSize).height)
        parts.favourite.style.preferredSize = CGSize(width: favouriteSize, height: favouriteSize)
        parts.description.style.flexShrink = 1
        parts.credit.style.flexShrink = 1
        let title = InsetLayoutSpec(insets: EdgeInsets(top: .infinity, left: 20, bottom: 20, right: 20), child: parts.title)
        let favourite = InsetLayoutSpec(
            insets: EdgeInsets(top: 12, left: .infinity, bottom: .infinity, right: 12),
            child: parts.favourite)
        let feature = OverlayLayoutSpec(
            child: parts.photo,
            overlay: WrapperLayoutSpec(children: (parts.gradient.map { [$0] } ?? []) + [title, favourite]))

        let descriptionInset = InsetLayoutSpec(
            insets: EdgeInsets(top: 20, left: 24, bottom: 8, right: 24),
            child: parts.description
        )
        .styled { $0.flexShrink = 1 }
        let creditLine: any LayoutElement =
            parts.creditIcon.map {
                StackLayoutSpec(direction: .horizontal, spacing: 6, alignItems: .center, children: [$0, parts.credit])
            } ?? parts.credit
        let creditRow = InsetLayoutSpec(insets: EdgeInsets(top: 0, left: 24, bottom: 12, right: 24), child: creditLine)
        let textArea = StackLayoutSpec(
            direction: .vertical, justifyContent: .start, alignItems: .stretch,
            children: [descriptionInset, LayoutSpec().styled { $0.flexGrow = 1 }, creditRow]
        )
        .styled { $0.height = .points(CardDeck.textAreaHeight) }
        let content = StackLayoutSpec(direction: .vertical, alignItems: .stretch, children: [feature, textArea])
        return parts.background.map { BackgroundLayoutSpec(child: content, background: $0) } ?? content
    }

    /// The size range a card is measured in: the card's width, any height.
    static let sizeRange = SizeRange(
        min: CGSize(width: CardDeck.cardWidth, height: 0),
        max: CGSize(width: CardDeck.cardWidth, height: .infinity))
}
