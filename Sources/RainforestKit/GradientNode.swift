import Canopy
import CanopyGraphics
import Foundation

/// The tutorial's gradient over the feature photo: black at the node's bottom edge fading to
/// clear at its middle, so the white name over the photo reads on any picture. A `ContentDrawing`
/// node whose snapshot is its size alone (drawn inside a card's
/// rasterized subtree, the context is the card's, translated to the node).
final class GradientNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    func drawParameters() -> CGSize { bounds.size }

    class func draw(_ size: CGSize, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        let bounds = CGRect(origin: .zero, size: size)
        context.drawLinearGradient(
            Gradient(colors: [.black, .clear]),
            from: CGPoint(x: 0, y: bounds.maxY), to: CGPoint(x: 0, y: bounds.midY))
    }
}
