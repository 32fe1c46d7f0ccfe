import Foundation

/// A snapshot of a node and its subtree, taken on the main thread, that a worker draws into one
/// bitmap for a node that rasterizes its subtree.
struct RasterizedSubtree: Sendable {
    /// The node's own drawing, when it draws contents.
    let contents: CapturedDrawing?
    let frame: CGRect
    let backgroundColor: Color?
    let borderColor: Color?
    let borderWidth: CGFloat
    let cornerRadius: CGFloat
    let clipsToBounds: Bool
    let alpha: CGFloat
    let drawsContents: Bool
    let children: [RasterizedSubtree]
    /// The node's name in a trace, when one was recording at the snapshot (not for the root,
    /// whose display is the trace's "draw" event already).
    let traceLabel: String?
    /// An opaque root's background (`DisplayNode.opaqueFill`): the bitmap starts filled with it,
    /// and is opaque.
    let opaqueFill: Color?

    /// The root's snapshot: its own drawing and its subnodes', recursively. The root's own frame,
    /// alpha, background and border stay with its layer (the compositor draws them).
    @MainActor
    init(capturing root: DisplayNode) {
        self.init(node: root, isRoot: true)
    }

    @MainActor
    private init(node: DisplayNode, isRoot: Bool) {
        contents = node.captureOwnDrawing()
        frame = isRoot ? node.bounds : node.frame
        backgroundColor = isRoot ? nil : node.backgroundColor
        borderColor = isRoot ? nil : node.borderColor
        borderWidth = isRoot ? 0 : node.borderWidth
        cornerRadius = node.cornerRadius
        clipsToBounds = isRoot ? false : node.clipsToBounds
        alpha = isRoot ? 1 : node.alpha
        drawsContents = contents != nil
        children = node.subnodes.filter { !$0.isHidden }.map { RasterizedSubtree(node: $0, isRoot: false) }
        traceLabel = !isRoot && drawsContents && Tracer.shared.isRecording ? node.traceLabel : nil
        opaqueFill = isRoot ? node.opaqueFill : nil
    }

    /// The rasterizing node's drawing: the whole subtree painted into one context.
    var drawing: CapturedDrawing { SubtreeDrawing(subtree: self) }

    /// Draws the subtree with its origin at the context's current origin, which must be the
    /// context's own (no translation: the root's drawing). Worker thread.
    func draw(in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        draw(in: context, origin: .zero, isCancelled: isCancelled)
    }

    /// Draws the subtree as the compositor draws the same nodes' layers: background; then
    /// contents and subnodes, clipped to the bounds when the node clips; border on top. Alpha
    /// multiplies per node. `origin` is where the context's current origin lies in its pixels,
    /// divided by its scale (the context is only ever translated).
    private func draw(in context: GraphicsContext, origin: CGPoint, isCancelled: @Sendable () -> Bool) {
        guard alpha > 0.001, !isCancelled() else { return }
        context.withSavedState {
            context.translateBy(x: frame.minX, y: frame.minY)
            context.alpha *= alpha
            let nodeOrigin = CGPoint(x: origin.x + frame.minX, y: origin.y + frame.minY)
            let bounds = CGRect(origin: .zero, size: frame.size)
            if let backgroundColor {
                if cornerRadius > 0 {
                    context.fillRoundedRect(bounds, cornerRadius: cornerRadius, with: backgroundColor)
                } else {
                    context.fill(bounds, with: backgroundColor)
                }
            }
            let hasContent = drawsContents || !children.isEmpty
            if clipsToBounds && cornerRadius > 0 && hasContent {
                drawRoundedClip(in: context, origin: nodeOrigin, bounds: bounds, isCancelled: isCancelled)
            } else if hasContent {
                context.withSavedState {
                    if clipsToBounds { context.clip(to: bounds) }
                    drawContentsAndChildren(in: context, origin: nodeOrigin, bounds: bounds, isCancelled: isCancelled)
                }
            }
            if let borderColor, borderWidth > 0 {
                let inset = bounds.insetBy(dx: borderWidth / 2, dy: borderWidth / 2)
                if cornerRadius > 0 && cornerRadius < borderWidth / 2 {
                    // The outer edge keeps the radius, the inner one is square: a square stroke
                    // clipped by the rounded bounds.
                    context.withSavedState {
                        context.clip(toRoundedRect: bounds, cornerRadius: cornerRadius)
                        context.stroke(inset, with: borderColor, lineWidth: borderWidth)
                    }
                } else if cornerRadius > 0 {
                    context.strokeRoundedRect(
                        inset, cornerRadius: max(0, cornerRadius - borderWidth / 2),
                        with: borderColor, lineWidth: borderWidth)
                } else {
                    context.stroke(inset, with: borderColor, lineWidth: borderWidth)
                }
            }
        }
    }

    /// The node's own contents, then its subnodes; the context is translated to the node.
    private func drawContentsAndChildren(
        in context: GraphicsContext, origin: CGPoint, bounds: CGRect,
        isCancelled: @Sendable () -> Bool
    ) {
        if drawsContents, let traceLabel {
            Tracer.shared.measure("draw \(traceLabel)", category: "display") {
                drawContents(in: context, bounds: bounds, isCancelled: isCancelled)
            }
        } else if drawsContents {
            drawContents(in: context, bounds: bounds, isCancelled: isCancelled)
        }
        for child in children { child.draw(in: context, origin: origin, isCancelled: isCancelled) }
    }

    /// The node's own contents; the context is translated to the node.
    private func drawContents(in context: GraphicsContext, bounds: CGRect, isCancelled: @Sendable () -> Bool) {
        if context.alpha < 1 {
            // The compositor fades a node's bitmap as a whole, so where the node's own drawing
            // overlaps itself the fade must not apply per drawing operation: its contents are
            // made as its layer's would be, then drawn faded.
            if let bitmap = contents?.display(size: frame.size, scale: context.scale, isCancelled: isCancelled) {
                context.draw(bitmap, in: bounds)
            }
        } else {
            context.withSavedState {
                context.clip(to: bounds)
                contents?.draw(in: context, isCancelled: isCancelled)
            }
        }
    }

    /// Contents and subnodes cut by the rounded bounds, as the compositor cuts a layer that clips
    /// to a corner radius: composited together first (in a bitmap of their own, on the context's
    /// pixel grid), then cut once. Cutting each drawing by itself would let what is under the
    /// subnodes show through their anti-aliased rims.
    private func drawRoundedClip(
        in context: GraphicsContext, origin: CGPoint, bounds: CGRect,
        isCancelled: @Sendable () -> Bool
    ) {
        let scale = context.scale
        let deviceX = origin.x * scale, deviceY = origin.y * scale
        let offsetX = deviceX - deviceX.rounded(.down), offsetY = deviceY - deviceY.rounded(.down)
        let width = Int((offsetX + bounds.width * scale - 1e-9).rounded(.up))
        let height = Int((offsetY + bounds.height * scale - 1e-9).rounded(.up))
        guard width > 0, height > 0, width <= GraphicsContext.maximumPixelSide,
            height <= GraphicsContext.maximumPixelSide
        else { return }
        let layer = GraphicsContext(pixelWidth: width, pixelHeight: height, scale: scale)
        layer.translateBy(x: offsetX / scale, y: offsetY / scale)
        layer.alpha = context.alpha
        layer.clip(to: bounds)
        drawContentsAndChildren(
            in: layer, origin: CGPoint(x: offsetX / scale, y: offsetY / scale), bounds: bounds,
            isCancelled: isCancelled)
        guard !isCancelled() else { return }
        context.withSavedState {
            context.clip(toRoundedRect: bounds, cornerRadius: cornerRadius)
            context.alpha = 1  // the alphas are in the bitmap
            context.draw(
                layer.makeBitmap(),
                in: CGRect(
                    x: -offsetX / scale, y: -offsetY / scale,
                    width: CGFloat(width) / scale, height: CGFloat(height) / scale))
        }
    }
}

/// A rasterizing node's drawing: its subtree's snapshot painted into one context.
private final class SubtreeDrawing: CapturedDrawing, @unchecked Sendable {
    let subtree: RasterizedSubtree

    init(subtree: RasterizedSubtree) {
        self.subtree = subtree
    }

    override func display(size: CGSize, scale: CGFloat, isCancelled: @Sendable () -> Bool) -> Bitmap? {
        CapturedDrawing.display(size: size, scale: scale, fill: subtree.opaqueFill, isCancelled: isCancelled) { context in
            subtree.draw(in: context, isCancelled: isCancelled)
        }
    }

    override func draw(in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        subtree.draw(in: context, isCancelled: isCancelled)
    }
}
