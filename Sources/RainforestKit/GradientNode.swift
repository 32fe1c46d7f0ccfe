import Canopy
import CanopyGraphics
import Foundation

/// The tutorial's gradient over the feature photo: black at the node's bottom edge fading to
/// clear at its middle, so the white name over the photo reads on any picture. A `DisplayNode`
/// with its own class-level drawing; its snapshot is its size alone (drawn inside a card's
/// rasterized subtree, the context is the card's, translated to the node).
final class GradientNode: DisplayNode, @unchecked Sendable {
    override var drawsContents: Bool { true }

    @MainActor override func drawParameters() -> (any Sendable)? { bounds.size }

    override class func draw(parameters: (any Sendable)?, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        guard let size = parameters as? CGSize else { return }
        let bounds = CGRect(origin: .zero, size: size)
        context.drawLinearGradient(Gradient(colors: [.black, .clear]),
                                   from: CGPoint(x: 0, y: bounds.maxY), to: CGPoint(x: 0, y: bounds.midY))
    }
}
