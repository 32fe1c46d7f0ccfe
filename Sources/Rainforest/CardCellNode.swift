import Canopy
import CanopyGraphics
import Foundation

/// One card of the collection as Canopy nodes, in the tutorial's geometry (`CardLayout`): the
/// photo across the top with the name over it and the favourite button in its corner, the
/// description below, the credit at the bottom. The cell rasterizes its subtree (one texture per
/// card), shows the grey placeholder until it has displayed, then fades in.
///
/// The favourite is a `ButtonNode` (a heart, 24 pt) whose tappable area `hitTestSlop` grows by
/// 16 pt on each side, as the tutorial's; a click toggles it and tells `favouriteDidChange` (the
/// card is dropped when it leaves the screen, so the owner keeps the choice). Built and
/// configured on any thread; laid out before it joins the tree.
final class CardCellNode: CellNode, @unchecked Sendable {
    static let background = Color(white: 0.2)
    static let creditFont = Font(family: "Lato", size: 11)
    static let favouriteSlop: CGFloat = 16
    static let fadeDuration: TimeInterval = 0.6

    let index: Int
    let photoSize: CGSize?
    let photo = ImageNode()
    let title = TextNode()
    let details = TextNode()
    let credit = TextNode()
    let favourite = ButtonNode()

    init(index: Int, entry: CardDeck.Entry, imagePath: String, scale: CGFloat, isFavourite: Bool = false,
         favouriteDidChange: (@Sendable @MainActor (Bool) -> Void)? = nil) {
        self.index = index
        photoSize = try? entry.imageSize.get()
        super.init()
        name = entry.card.name
        rasterizesSubtree = true
        placeholderEnabled = true
        contentsFadeDuration = Self.fadeDuration
        backgroundColor = Self.background
        borderColor = CardArtist.borderColor
        borderWidth = 1
        photo.imagePath = imagePath
        photo.contentMode = .aspectFill
        photo.name = "photo"
        title.attributedText = AttributedString(entry.card.name, font: CardArtist.titleFont, color: .white, shadow: CardArtist.textShadow)
        title.maximumNumberOfLines = 1
        details.attributedText = AttributedString(entry.card.description, font: CardArtist.descriptionFont, color: .white,
                                                  shadow: CardArtist.textShadow)
        credit.attributedText = AttributedString(entry.card.credit, font: Self.creditFont, color: Color(white: 0.8))
        credit.maximumNumberOfLines = 1
        favourite.name = "favourite"
        favourite.setImage(HeartIcon.bitmap(size: CardLayout.favouriteSize, scale: scale, color: Color(white: 1, alpha: 0.7)),
                           for: .normal)
        favourite.setImage(HeartIcon.bitmap(size: CardLayout.favouriteSize, scale: scale,
                                            color: Color(red: 0.92, green: 0.2, blue: 0.3)), for: .selected)
        favourite.hitTestSlop = EdgeInsets(top: -Self.favouriteSlop, left: -Self.favouriteSlop,
                                           bottom: -Self.favouriteSlop, right: -Self.favouriteSlop)
        favourite.isSelected = isFavourite
        favourite.addAction(for: .touchUpInside) { control, _ in
            control.isSelected.toggle()
            favouriteDidChange?(control.isSelected)
        }
        automaticallyManagesSubnodes = true
    }

    /// The card's geometry is `CardLayout`'s, over this card's nodes (no gradient, credit icon
    /// or blurred background yet).
    override func layoutSpecThatFits(_ constrainedSize: SizeRange) -> any LayoutElement {
        CardLayout.spec(photoSize: photoSize, parts: CardLayout.Parts(
            photo: photo, title: title, favourite: favourite, description: details, credit: credit))
    }
}
