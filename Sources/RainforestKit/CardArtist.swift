import CanopyGraphics
import Foundation

/// Draws a whole card into one bitmap with CanopyGraphics, the tutorial's way: the photo
/// blurred as the background, the photo aspect-fit across the top, a gradient over its lower
/// half, the name and the description in white with a soft shadow, a 1 px border.
///
/// This is the card as one drawing, used to measure what a card costs (`bench --scenario
/// graphics`). Any thread; everything it reads is immutable.
struct CardArtist: Sendable {
    static let blurRadius: CGFloat = 30
    static let blurTint = Color(white: 0.5, alpha: 0.3)
    static let blurSaturation: CGFloat = 1.8
    static let titleFont = RainforestFonts.lato(30, weight: .heavy)
    static let descriptionFont = RainforestFonts.lato(16)
    static let textShadow = TextShadow(color: Color(white: 0, alpha: 0.6), offset: CGSize(width: 0, height: 1), blurRadius: 3)
    static let borderColor = Color(white: 0.85, alpha: 0.2)

    var name: String
    var description: String
    /// The photo, decoded at any size; cheapest when it just covers the card at the scale it is
    /// drawn at, which is how the image cache holds it (`CardArtist.photoPixelSize`).
    var photo: Bitmap
    /// The photo's own pixel size, for the card's geometry (the decoded copy may be smaller).
    var photoSize: CGSize

    /// The card's size: the deck's card width, and its height for this photo.
    var size: CGSize { Self.cardSize(photoSize: photoSize) }

    /// The feature image's height: the photo aspect-fit across the card's width.
    var featureHeight: CGFloat { size.height - CardDeck.textAreaHeight }

    /// The pixel size to decode a photo at for a card at `scale`: enough to cover the card.
    static func photoPixelSize(photoSize: CGSize, scale: CGFloat) -> CGSize {
        let size = cardSize(photoSize: photoSize)
        return CGSize(width: size.width * scale, height: size.height * scale)
    }

    private static func cardSize(photoSize: CGSize) -> CGSize {
        CGSize(width: CardDeck.cardWidth, height: CardDeck.cardHeight(imageSize: photoSize))
    }

    /// The card at `scale` pixels per point; nil if cancelled.
    func draw(scale: CGFloat, isCancelled: () -> Bool = { false }) throws(FontError) -> Bitmap? {
        let size = self.size
        let feature = CGRect(x: 0, y: 0, width: size.width, height: featureHeight)
        let context = GraphicsContext(size: size, scale: scale, fill: .black)

        // The background: the photo scaled to cover the card, then blurred.
        let pixelSize = (width: Int((size.width * scale).rounded(.up)), height: Int((size.height * scale).rounded(.up)))
        let cover = max(CGFloat(pixelSize.width) / CGFloat(photo.width), CGFloat(pixelSize.height) / CGFloat(photo.height))
        let covering = Resampler.resize(
            photo, toPixelWidth: max(1, Int((CGFloat(photo.width) * cover).rounded(.up))),
            pixelHeight: max(1, Int((CGFloat(photo.height) * cover).rounded(.up))))
        guard
            let blurred = ImageEffects.blur(
                covering.withScale(scale), radius: Self.blurRadius, tintColor: Self.blurTint,
                saturationDeltaFactor: Self.blurSaturation, isCancelled: isCancelled)
        else { return nil }
        context.draw(blurred, in: CGRect(origin: .zero, size: size), contentMode: .aspectFill)
        if isCancelled() { return nil }

        // The photo across the top, and the gradient from black at its bottom to clear at its middle.
        // A panorama or a very tall photo is cropped to its area (CardDeck's aspect limits).
        context.withSavedState {
            context.clip(to: feature)
            context.draw(photo, in: feature, contentMode: CardDeck.cropsPhoto(imageSize: photoSize) ? .aspectFill : .aspectFit)
        }
        context.withSavedState {
            context.clip(to: feature)
            context.drawLinearGradient(
                Gradient(colors: [.black, .clear]),
                from: CGPoint(x: 0, y: feature.maxY), to: CGPoint(x: 0, y: feature.midY))
        }
        if isCancelled() { return nil }

        // The name, bottom 20 pt above the photo's bottom; the description 20 pt below it.
        let title = try TextLayout(
            AttributedString(name, font: Self.titleFont, color: .white, shadow: Self.textShadow),
            width: size.width - 40, maximumNumberOfLines: 1, scale: scale)
        title.draw(in: context, at: CGPoint(x: 20, y: feature.maxY - 20 - title.size.height))
        try descriptionLayout(scale: scale).draw(in: context, at: CGPoint(x: 24, y: feature.maxY + 20))

        // The border: one pixel, whatever the scale.
        let pixel = 1 / scale
        context.stroke(
            CGRect(origin: .zero, size: size).insetBy(dx: pixel / 2, dy: pixel / 2), with: Self.borderColor,
            lineWidth: pixel)
        return context.makeBitmap()
    }

    /// The description as the card draws it: 24 pt in from either side of the text area, as
    /// many whole lines as fit between 20 pt margins above and below.
    func descriptionLayout(scale: CGFloat) throws(FontError) -> TextLayout {
        let lineHeight = try FontRegistry.shared.metrics(of: Self.descriptionFont, scale: scale).lineHeight
        let available = CardDeck.textAreaHeight - 40
        return try TextLayout(
            AttributedString(description, font: Self.descriptionFont, color: .white, shadow: Self.textShadow),
            width: size.width - 48, maximumNumberOfLines: max(1, Int(available / lineHeight)),
            scale: scale)
    }
}
