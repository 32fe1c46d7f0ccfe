import Foundation

/// A snapshot of a node and its subtree, taken on the main thread, that a worker draws into one
/// bitmap for a node that rasterizes its subtree.
struct RasterizedSubtree: Sendable {
    let nodeType: DisplayNode.Type
    let parameters: (any Sendable)?
    let frame: CGRect
    let backgroundColor: Color?
    let borderColor: Color?
    let borderWidth: CGFloat
    let cornerRadius: CGFloat
    let clipsToBounds: Bool
    let alpha: CGFloat
    let drawsContents: Bool
    let children: [RasterizedSubtree]

    /// The root's snapshot: its own drawing and its subnodes', recursively. The root's own frame,
    /// alpha, background and border stay with its layer (the compositor draws them).
    @MainActor
    init(capturing root: DisplayNode) {
        self.init(node: root, isRoot: true)
    }

    @MainActor
    private init(node: DisplayNode, isRoot: Bool) {
        nodeType = type(of: node)
        parameters = node.drawsContents ? node.drawParameters() : nil
        frame = isRoot ? node.bounds : node.frame
        backgroundColor = isRoot ? nil : node.backgroundColor
        borderColor = isRoot ? nil : node.borderColor
        borderWidth = isRoot ? 0 : node.borderWidth
        cornerRadius = node.cornerRadius
        clipsToBounds = isRoot ? false : node.clipsToBounds
        alpha = isRoot ? 1 : node.alpha
        drawsContents = node.drawsContents
        children = node.subnodes.filter { !$0.isHidden }.map { RasterizedSubtree(node: $0, isRoot: false) }
    }

    /// Draws the subtree with its origin at the context's current origin. Worker thread.
    func draw(in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        guard alpha > 0.001, !isCancelled() else { return }
        context.withSavedState {
            context.translateBy(x: frame.minX, y: frame.minY)
            context.alpha *= alpha
            let bounds = CGRect(origin: .zero, size: frame.size)
            if clipsToBounds {
                if cornerRadius > 0 {
                    context.clip(toRoundedRect: bounds, cornerRadius: cornerRadius)
                } else {
                    context.clip(to: bounds)
                }
            }
            if let backgroundColor {
                if cornerRadius > 0 {
                    context.fillRoundedRect(bounds, cornerRadius: cornerRadius, with: backgroundColor)
                } else {
                    context.fill(bounds, with: backgroundColor)
                }
            }
            if drawsContents {
                context.withSavedState {
                    context.clip(to: bounds)
                    nodeType.draw(parameters: parameters, in: context, isCancelled: isCancelled)
                }
            }
            for child in children { child.draw(in: context, isCancelled: isCancelled) }
            if let borderColor, borderWidth > 0 {
                let inset = bounds.insetBy(dx: borderWidth / 2, dy: borderWidth / 2)
                if cornerRadius > 0 {
                    context.strokeRoundedRect(inset, cornerRadius: max(0, cornerRadius - borderWidth / 2),
                                              with: borderColor, lineWidth: borderWidth)
                } else {
                    context.stroke(inset, with: borderColor, lineWidth: borderWidth)
                }
            }
        }
    }
}

/// The drawing of a rasterizing node: its `RasterizedSubtree` snapshot, painted into one context.
final class RasterizingDrawer: DisplayNode, @unchecked Sendable {
    override class func draw(parameters: (any Sendable)?, in context: GraphicsContext,
                             isCancelled: @Sendable () -> Bool) {
        (parameters as? RasterizedSubtree)?.draw(in: context, isCancelled: isCancelled)
    }
}
