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
        displayByDrawing(parameters, size: size, scale: scale, isCancelled: isCancelled)
    }

    /// The default display: a transparent context of the bounds at `scale`, painted by `draw`;
    /// for a class that declares `display` itself to call.
    static func displayByDrawing(
        _ parameters: DrawParameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap? {
        CapturedDrawing.display(size: size, scale: scale, isCancelled: isCancelled) { context in
            draw(parameters, in: context, isCancelled: isCancelled)
        }
    }
}

/// How a node's class draws, found once when the node is made: asking a node whether it adopts
/// `ContentDrawing` is a search of the protocol's conformances, too slow for every display of
/// every node of a rasterized subtree, while going back from `DisplayNode` to the class found
/// here costs nothing.
struct ContentDrawer: Sendable {
    /// Takes the node's snapshot (main thread); the node must be of the class the drawer was
    /// found for.
    let capture: @MainActor @Sendable (DisplayNode) -> CapturedDrawing

    /// The drawer of `node`'s class, nil when the class draws nothing of its own.
    static func of(_ node: DisplayNode) -> ContentDrawer? {
        guard let drawing = node as? any ContentDrawing else { return nil }
        return drawer(for: drawing)
    }

    /// The drawer of `Node`, the node's own class (the existential opened). The snapshot's
    /// class is looked up here, once, rather than at each capture.
    private static func drawer<Node: ContentDrawing>(for _: Node) -> ContentDrawer {
        let snapshotType = SnapshotDrawing<Node>.self
        return ContentDrawer { node in
            let node = unsafeDowncast(node, to: Node.self)
            return snapshotType.init(parameters: node.drawParameters(), nodeType: type(of: node))
        }
    }
}

/// A node's drawing, captured on the main thread, to run on a worker: its snapshot bound to its
/// class's drawing (`SnapshotDrawing`), or a rasterizing node's whole subtree
/// (`RasterizedSubtree.drawing`). Immutable.
class CapturedDrawing: @unchecked Sendable {
    /// The contents as a bitmap of `size` points at `scale`, or nil when cancelled.
    func display(size: CGSize, scale: CGFloat, isCancelled: @Sendable () -> Bool) -> Bitmap? { nil }

    /// Draws the contents into a context of the node's bounds.
    func draw(in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {}

    /// A context of `size` at `scale`, transparent or filled with `fill`, that `paint` draws into,
    /// as a bitmap; nil when the size has no pixels or the display was cancelled.
    static func display(
        size: CGSize, scale: CGFloat, fill: Color? = nil, isCancelled: @Sendable () -> Bool,
        paint: (GraphicsContext) -> Void
    ) -> Bitmap? {
        let width = Int((size.width * scale).rounded(.up))
        let height = Int((size.height * scale).rounded(.up))
        guard width > 0, height > 0, !isCancelled() else { return nil }
        let context = GraphicsContext(pixelWidth: width, pixelHeight: height, scale: scale, fill: fill)
        paint(context)
        return isCancelled() ? nil : context.makeBitmap()
    }
}

/// A `ContentDrawing` node's snapshot with the class (the node's own, maybe a subclass) whose
/// drawing runs it.
final class SnapshotDrawing<Node: ContentDrawing>: CapturedDrawing, @unchecked Sendable {
    let parameters: Node.DrawParameters
    let nodeType: Node.Type

    required init(parameters: Node.DrawParameters, nodeType: Node.Type) {
        self.parameters = parameters
        self.nodeType = nodeType
    }

    override func display(size: CGSize, scale: CGFloat, isCancelled: @Sendable () -> Bool) -> Bitmap? {
        nodeType.display(parameters, size: size, scale: scale, isCancelled: isCancelled)
    }

    override func draw(in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        nodeType.draw(parameters, in: context, isCancelled: isCancelled)
    }
}

/// An opaque node's own drawing, flattened over its fill so the bitmap is opaque.
final class FlattenedDrawing: CapturedDrawing, @unchecked Sendable {
    let drawing: CapturedDrawing
    let fill: Color

    init(_ drawing: CapturedDrawing, over fill: Color) {
        self.drawing = drawing
        self.fill = fill
    }

    override func display(size: CGSize, scale: CGFloat, isCancelled: @Sendable () -> Bool) -> Bitmap? {
        drawing.display(size: size, scale: scale, isCancelled: isCancelled)?.flattened(over: fill)
    }

    override func draw(in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        drawing.draw(in: context, isCancelled: isCancelled)
    }
}
