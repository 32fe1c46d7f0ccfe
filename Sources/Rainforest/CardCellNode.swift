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
    static let borderColor = Color(white: 0.85, alpha: 0.2)
    static let titleFont = Font(family: "Lato", size: 30, weight: .heavy)
    static let descriptionFont = Font(family: "Lato", size: 16)
    static let creditFont = Font(family: "Lato", size: 11)
    static let shadow = TextShadow(color: Color(white: 0, alpha: 0.6), offset: CGSize(width: 0, height: 1), blurRadius: 3)
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
        borderColor = Self.borderColor
        borderWidth = 1
        photo.imagePath = imagePath
        photo.contentMode = .aspectFill
        photo.name = "photo"
        title.attributedText = AttributedString(entry.card.name, font: Self.titleFont, color: .white, shadow: Self.shadow)
        title.maximumNumberOfLines = 1
        details.attributedText = AttributedString(entry.card.description, font: Self.descriptionFont, color: .white,
                                                  shadow: Self.shadow)
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

    override func layoutSpecThatFits(_ constrainedSize: SizeRange) -> any LayoutElement {
        let photoHeight = CardDeck.cardHeight(imageSize: photoSize) - CardDeck.textAreaHeight
        photo.style.height = .points(photoHeight)
        let titleSpec = InsetLayoutSpec(insets: EdgeInsets(top: .infinity, left: 20, bottom: 20, right: 20), child: title)
        favourite.style.preferredSize = CGSize(width: CardLayout.favouriteSize, height: CardLayout.favouriteSize)
        let favouriteSpec = InsetLayoutSpec(insets: EdgeInsets(top: 12, left: .infinity, bottom: .infinity, right: 12),
                                            child: favourite)
        let feature = OverlayLayoutSpec(child: photo, overlay: WrapperLayoutSpec(children: [titleSpec, favouriteSpec]))
        details.style.flexShrink = 1
        let descriptionSpec = InsetLayoutSpec(insets: EdgeInsets(top: 20, left: 24, bottom: 8, right: 24), child: details)
            .styled { $0.flexShrink = 1 }
        let creditSpec = InsetLayoutSpec(insets: EdgeInsets(top: 0, left: 24, bottom: 12, right: 24), child: credit)
        let textArea = StackLayoutSpec(direction: .vertical, justifyContent: .start, alignItems: .stretch,
                                       children: [descriptionSpec, LayoutSpec().styled { $0.flexGrow = 1 }, creditSpec])
            .styled { $0.height = .points(CardDeck.textAreaHeight) }
        return StackLayoutSpec(direction: .vertical, alignItems: .stretch, children: [feature, textArea])
    }
}
