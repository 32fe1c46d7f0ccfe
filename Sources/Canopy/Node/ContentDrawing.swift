import CanopyGraphics
import Foundation

/// A node that draws contents of its own, from a snapshot of a type it chooses: Texture's
/// `drawParametersForAsyncLayer:` and `drawRect:withParameters:isCancelled:isRasterizing:`, with
/// the snapshot's type checked by the compiler instead of downcast.
///
/// A `DisplayNode` subclass adopts it, takes the snapshot on the main thread in
/// `drawParameters()`, and draws from it (never from the node) in the class method
/// `draw(_:in:isCancelled:)`, which runs on a display worker:
///
/// ```swift
/// final class GradientNode: DisplayNode, ContentDrawing {
///     func drawParameters() -> CGSize { bounds.size }
///     class func draw(_ size: CGSize, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
///         context.drawLinearGradient(Gradient(colors: [.black, .clear]), from: CGPoint(x: 0, y: size.height),
///                                    to: CGPoint(x: 0, y: size.height / 2))
///     }
/// }
/// ```
///
/// A node that makes its bitmap by other means than drawing into a context of its bounds (a
/// decoded image at its own pixel size) also implements `display(_:size:scale:isCancelled:)`.
/// Declare the methods `open class func` in an open class, so that its subclasses can draw
/// differently from the same snapshot.
public protocol ContentDrawing: DisplayNode {
    /// The snapshot's type: immutable, Sendable, everything the drawing needs.
    associatedtype DrawParameters: Sendable

    /// The snapshot a worker draws from. Called on the main thread, just before each display.
    @MainActor func drawParameters() -> DrawParameters

    /// Draws the node's contents from `parameters` into `context` (sized to the bounds, at the
    /// display's scale, transparent; or a rasterizing ancestor's, translated to this node). Runs
    /// on a display worker (or the main thread when the node does not display asynchronously);
    /// must not touch the node. Poll `isCancelled` between steps.
    static func draw(_ parameters: DrawParameters, in context: GraphicsContext, isCancelled: @Sendable () -> Bool)

    /// The node's contents as a bitmap, or nil when cancelled. The default makes a context of the
    /// bounds at `scale` and has `draw(_:in:isCancelled:)` paint it. Worker thread.
    static func display(
        _ parameters: DrawParameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap?
}

extension ContentDrawing {
    public static func display(
        _ parameters: DrawParameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap? {
        CapturedDrawing.display(size: size, scale: scale, isCancelled: isCancelled) { context in
            draw(parameters, in: context, isCancelled: isCancelled)
        }
    }

    /// The snapshot bound to the node's class's drawing (main thread).
    @MainActor
    func captureDrawing() -> CapturedDrawing {
        let parameters = drawParameters()
        let nodeType = type(of: self)
        return CapturedDrawing(
            display: { size, scale, isCancelled in
                nodeType.display(parameters, size: size, scale: scale, isCancelled: isCancelled)
            },
            draw: { context, isCancelled in nodeType.draw(parameters, in: context, isCancelled: isCancelled) })
    }
}

/// A node's drawing, captured on the main thread: its snapshot bound to its class's drawing, to
/// run on a worker. Made for a `ContentDrawing` node and, for a rasterizing node, by
/// `RasterizedSubtree`.
struct CapturedDrawing: Sendable {
    /// The contents as a bitmap of `size` points at `scale`, or nil when cancelled.
    let display: @Sendable (_ size: CGSize, _ scale: CGFloat, _ isCancelled: @Sendable () -> Bool) -> Bitmap?
    /// Draws the contents into a context of the node's bounds.
    let draw: @Sendable (_ context: GraphicsContext, _ isCancelled: @Sendable () -> Bool) -> Void

    /// A transparent context of `size` at `scale` that `paint` draws into, as a bitmap; nil when
    /// the size has no pixels or the display was cancelled.
    static func display(
        size: CGSize, scale: CGFloat, isCancelled: @Sendable () -> Bool,
        paint: (GraphicsContext) -> Void
    ) -> Bitmap? {
        let width = Int((size.width * scale).rounded(.up)), height = Int((size.height * scale).rounded(.up))
        guard width > 0, height > 0, !isCancelled() else { return nil }
        let context = GraphicsContext(pixelWidth: width, pixelHeight: height, scale: scale)
        paint(context)
        return isCancelled() ? nil : context.makeBitmap()
    }
}
