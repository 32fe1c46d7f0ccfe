import Canopy
import CanopyGraphics
import Foundation

extension Compositor {
    /// The label's colours: Texture's red text, on a light backing so it reads over any photo.
    static let scalingLabelColor = Color(red: 0.9, green: 0.05, blue: 0.05)
    static let scalingLabelBacking = Color(white: 1, alpha: 0.8)

    /// Draws the image-scaling labels: each at its node's bottom right, 4 pt in; a label that does
    /// not fit inside its node is left out.
    func drawImageScalingLabels(_ labels: [ImageScalingLabel], text: TextCache, font: Font) {
        for label in labels {
            guard let bitmap = text.bitmap(label.text, font: font, color: Self.scalingLabelColor, scale: scale) else { continue }
            let size = bitmap.size
            let padding: CGFloat = 3
            let box = CGRect(
                x: label.frame.maxX - size.width - 2 * padding - 4,
                y: label.frame.maxY - size.height - 2 * padding - 4,
                width: size.width + 2 * padding, height: size.height + 2 * padding)
            guard box.minX >= label.frame.minX, box.minY >= label.frame.minY else { continue }
            fillRounded(box, radius: 3, color: Self.scalingLabelBacking)
            drawBitmap(bitmap, in: CGRect(origin: CGPoint(x: box.minX + padding, y: box.minY + padding), size: size))
        }
    }
}
