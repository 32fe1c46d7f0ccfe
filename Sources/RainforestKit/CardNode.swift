import Canopy
import CanopyGraphics
import Foundation

/// One card of the collection, built from nodes as the classic AsyncDisplayKit tutorial builds
/// it, in its geometry (`CardLayout`):
/// - the cell itself rasterizes its subtree (one texture per card; a card whose photo is an
///   animation keeps a layer per node instead, so the photo's frames can change) and has the
///   1 px border of grey 0.85 at alpha 0.2;
/// - behind everything, the photo again, aspect-filled and blurred by its `imageModificationBlock`
///   (radius 30, tint white 0.5 at alpha 0.3, saturation 1.8; it stops when cancelled), drawn
///   from the photo's decode (`decodeSharedWith`), so each photo is decoded once;
/// - the photo aspect-fit across the top (aspect-filled, cropped, when it is wider than 3:1 or
///   taller than 1:2: `CardDeck.photoAspect`), with a `GradientNode` over it (black at the photo's
///   bottom to clear at its middle) and the name (heavy, 30 pt, white, soft shadow) at its bottom;
/// - the description below (16 pt, white, soft shadow, cut with "…" when it does not fit), and
///   the photo's credit at the bottom;
/// - the favourite `ButtonNode` (a heart, 24 pt) at the photo's top right, whose tappable area
///   `hitTestSlop` grows by 16 pt on each side; a click toggles it and tells `favouriteDidChange`.
///
/// A camera photo not decoded yet shows the thumbnail its EXIF data carries first, photo and
/// blurred background (`showsEmbeddedThumbnailFirst`), then the photo decoded.
///
/// Until it has displayed, the card shows the tutorial's placeholder, grey 0.85 with a leaf
/// centred, then fades in over 0.6 s. Built, configured and laid out on any thread (the
/// collection does it on a display worker).
final class CardNode: CellNode, @unchecked Sendable {
    static let placeholderGrey = Color(white: 0.85)
    static let leafColor = Color(white: 0.7)
    static let leafSize: CGFloat = 56
    static let creditFont = RainforestFonts.lato(11)
    static let favouriteSlop: CGFloat = 16
    static let fadeDuration: TimeInterval = 0.6

    let index: Int
    let photoSize: CGSize?
    let scale: CGFloat
    let background = ImageNode()
    let photo = ImageNode()
    let gradient = GradientNode()
    let title = TextNode()
    let details = TextNode()
    let credit = TextNode()
    let favourite = ButtonNode()

    init(
        index: Int, entry: CardDeck.Entry, imagePath: String, scale: CGFloat, isFavourite: Bool = false,
        favouriteDidChange: (@Sendable @MainActor (Bool) -> Void)? = nil
    ) {
        self.index = index
        self.scale = scale
        photoSize = try? entry.imageSize.get()
        super.init()
        name = entry.card.name
        // One bitmap for the whole card; an animated photo needs a layer of its own to change
        // frames on, so that card keeps its nodes' layers (the compositor draws them in order).
        rasterizesSubtree = !entry.isAnimated
        placeholderEnabled = true
        placeholderColor = Self.placeholderGrey
        contentsFadeDuration = Self.fadeDuration
        backgroundColor = .black
        // The card covers its bounds: its bitmap starts black and is drawn without blending.
        isOpaque = true
        borderColor = CardArtist.borderColor
        borderWidth = 1 / max(1, scale)  // one pixel, whatever the scale

        background.name = "blurred background"
        background.imagePath = imagePath
        background.contentMode = .aspectFill
        // A photo that cannot be read says so in the photo area; behind the texts the card stays
        // black, so they remain readable (not the error's grey box and words under them).
        background.drawsErrorState = false
        // Blurred by 30 points, it needs no more pixels than the photo: one decode serves both.
        background.decodeSharedWith = photo
        // Still behind an animated photo: a blur of every frame would cost far more than it shows.
        background.animatesImage = false
        // A camera photo not decoded yet shows its embedded thumbnail first, sharp enough under
        // a blur of 30 points; the photo follows when decoded.
        background.showsEmbeddedThumbnailFirst = true
        background.imageModificationBlock = { image, isCancelled in
            ImageEffects.blur(
                image, radius: CardArtist.blurRadius, tintColor: CardArtist.blurTint,
                saturationDeltaFactor: CardArtist.blurSaturation, isCancelled: isCancelled)
        }
        Self.configurePhoto(photo, imagePath: imagePath, photoSize: photoSize)
        gradient.name = "gradient"
        title.name = "title"
        title.attributedText = AttributedString(
            Self.shownText(entry.card.name), font: CardArtist.titleFont, color: .white,
            shadow: CardArtist.textShadow)
        title.maximumNumberOfLines = 1
        details.name = "description"
        details.attributedText = AttributedString(
            Self.shownText(entry.card.description), font: CardArtist.descriptionFont, color: .white,
            shadow: CardArtist.textShadow)
        details.maximumNumberOfLines = Self.descriptionLineLimit(scale: scale)
        credit.name = "credit"
        credit.attributedText = AttributedString(
            Self.shownText(entry.card.credit), font: Self.creditFont, color: Color(white: 0.85),
            shadow: CardArtist.textShadow)
        credit.maximumNumberOfLines = 1
        favourite.name = "favourite"
        favourite.setImage(
            Icon.heart.bitmap(size: CardLayout.favouriteSize, scale: scale, color: Color(white: 1, alpha: 0.8)),
            for: .normal)
        favourite.setImage(
            Icon.heart.bitmap(
                size: CardLayout.favouriteSize, scale: scale,
                color: Color(red: 0.92, green: 0.2, blue: 0.3)), for: .selected)
        favourite.hitTestSlop = EdgeInsets(
            top: -Self.favouriteSlop, left: -Self.favouriteSlop,
            bottom: -Self.favouriteSlop, right: -Self.favouriteSlop)
        favourite.isSelected = isFavourite
        favourite.addAction(for: .touchUpInside) { control, _ in
            control.isSelected.toggle()
            favouriteDidChange?(control.isSelected)
        }
        automaticallyManagesSubnodes = true
    }

    /// How the photo fills its area: aspect-fit, or aspect-filled (cropped) for a panorama or a
    /// very tall image (CardDeck's limits).
    static func photoContentMode(photoSize: CGSize?) -> ContentMode {
        CardDeck.cropsPhoto(imageSize: photoSize) ? .aspectFill : .aspectFit
    }

    /// Sets up `node` as a card's photo of the file at `imagePath`, of `photoSize` pixels.
    static func configurePhoto(_ node: ImageNode, imagePath: String, photoSize: CGSize?) {
        node.name = "photo"
        node.imagePath = imagePath
        node.showsEmbeddedThumbnailFirst = true
        node.contentMode = photoContentMode(photoSize: photoSize)
        // A huge photo (still under the pixel limit) decodes in the long lane, one at a time.
        if let photoSize { node.expectsLongDisplay = photoSize.width * photoSize.height > CGFloat(ImageDecoder.longDecodePixels) }
    }

    /// Decodes the photo of a card of `entry` into `cache` as the card's display at `scale` will
    /// ask for it (its photo, and its background, which draws from the photo's decode), without
    /// making the card or any node; except a camera photo whose display shows its embedded
    /// thumbnail first (`ImageNode.showsEmbeddedThumbnail`): its decode would only hold a core
    /// that the first screen's cards need, and they show in a millisecond without it. Any
    /// thread but the main one (it blocks while decoding).
    static func preloadPhoto(entry: CardDeck.Entry, imagePath: String, scale: CGFloat, cache: ImageCache = .shared) {
        let photoSize = try? entry.imageSize.get()
        guard
            !ImageNode.showsEmbeddedThumbnail(
                contentsOf: imagePath, boundsSize: CardLayout.photoAreaSize(photoSize: photoSize),
                contentMode: photoContentMode(photoSize: photoSize), scale: scale, cache: cache)
        else { return }
        ImageNode.preload(
            contentsOf: imagePath, boundsSize: CardLayout.photoAreaSize(photoSize: photoSize),
            contentMode: photoContentMode(photoSize: photoSize), scale: scale, cache: cache)
    }

    /// The most characters (grapheme clusters) of a text the card lays out: far more than its
    /// lines can show (12 lines of the description hold about 1,000 of the narrowest letters),
    /// so the cut is never seen, and a description of 10 MB costs what this many do, not
    /// seconds of line breaking on a worker (or on the main thread, in main-thread mode).
    static let textLimit = 2_000

    /// `text`, or its first `textLimit` characters and "…" when it is longer (the text node
    /// truncates what does not fit its lines as usual).
    static func shownText(_ text: String) -> String {
        let head = text.prefix(textLimit + 1)
        guard head.count > textLimit else { return text }
        return String(head.dropLast()) + "…"
    }

    /// A selected card (clicked, not on its heart) has a white 2 pt border instead of the faint one.
    @MainActor override func selectedStateDidChange(_ isSelected: Bool) {
        super.selectedStateDidChange(isSelected)
        borderColor = isSelected ? Color(white: 1, alpha: 0.9) : CardArtist.borderColor
        borderWidth = isSelected ? 2 : 1 / max(1, scale)
    }

    /// The card's geometry is `CardLayout`'s, over this card's nodes.
    override func layoutSpecThatFits(_ constrainedSize: SizeRange) -> any LayoutElement {
        CardLayout.spec(
            photoSize: photoSize,
            parts: CardLayout.Parts(
                photo: photo, title: title, favourite: favourite, description: details, credit: credit,
                gradient: gradient, background: background))
    }

    /// The tutorial's placeholder: a leaf, centred on the grey.
    @MainActor override func placeholderImage() -> Bitmap? {
        Icon.leaf.bitmap(size: Self.leafSize, scale: scale, color: Self.leafColor)
    }

    /// As many whole description lines as fit the text area between its margins, the credit line
    /// and its spacing (so a long description ends with "…" instead of running under the credit),
    /// counting the room each text node keeps around its text for the soft shadow.
    static func descriptionLineLimit(scale: CGFloat) -> Int {
        guard let description = try? FontRegistry.shared.metrics(of: CardArtist.descriptionFont, scale: scale),
            let credit = try? FontRegistry.shared.metrics(of: creditFont, scale: scale)
        else { return 0 }
        let shadow = TextNode.padding(
            for: AttributedString(
                "x", font: CardArtist.descriptionFont, color: .white,
                shadow: CardArtist.textShadow))
        let shadowHeight = shadow.top + shadow.bottom
        // 20 above the description, 8 below it, the credit line and 12 below that; the shadows'
        // room on both texts.
        let creditRow = credit.lineHeight + shadowHeight + 12
        let available = CardDeck.textAreaHeight - 20 - 8 - creditRow - shadowHeight
        return max(1, Int(available / description.lineHeight))
    }
}
