import CanopyGraphics
import Foundation

/// What a rendering backend made of a layer's contents (the compositor's texture). The backend
/// owns it; Canopy only compares its bitmap with the contents to know whether they are on screen.
@MainActor
public protocol LayerBacking: AnyObject {
    /// The bitmap the backing was made from.
    var bitmap: Bitmap { get }
}

/// What the compositor draws: a rectangle with an optional background colour and contents
/// (a finished bitmap), its sublayers on top. Main thread only.
///
/// `frame` is in the superlayer's coordinate space; `boundsOrigin` shifts the sublayers
/// (a scrolling layer sets it to its content offset).
///
/// New contents reach the screen in two steps: setting `contents` (the model, e.g. a display's
/// result at its transaction's commit), then the backend's upload, which makes `backing` from
/// them within its per-frame budget. Until then the compositor keeps drawing the old backing,
/// so a layer never shows a gap while its new contents wait (`isContentsPresented` tells).
@MainActor
public final class Layer {
    public var frame: CGRect
    public var boundsOrigin: CGPoint = .zero
    public var backgroundColor: Color?
    /// Rounds the corners (anti-aliased) of the background, of the border and, when the layer
    /// clips to its bounds, of the clip (Core Animation's cornerRadius with masksToBounds).
    public var cornerRadius: CGFloat = 0
    /// A line of `borderWidth` points just inside the bounds, over the contents and the
    /// sublayers, following the corner radius.
    public var borderColor: Color?
    public var borderWidth: CGFloat = 0
    /// A finished bitmap, drawn over the background to fill `contentsRect` (the whole bounds
    /// when nil). Setting a different bitmap (or nil) tells the root layer's
    /// `contentsChangeHandler`, so the backend can upload (or release) at once.
    public var contents: Bitmap? {
        didSet {
            if contents !== oldValue { root.contentsChangeHandler?(self) }
        }
    }
    /// Where the contents go, in the layer's own coordinates; nil fills the layer.
    public var contentsRect: CGRect?
    public var alpha: CGFloat = 1
    /// A second opacity, multiplied with `alpha`, that animations use for fades (so a fade never
    /// fights the alpha a node mirrors).
    public var fadeOpacity: CGFloat = 1
    public var isHidden = false
    /// Clips the contents and the sublayers to the bounds, rounded by `cornerRadius`.
    public var clipsToBounds = false
    public private(set) var sublayers: [Layer] = []
    public private(set) weak var superlayer: Layer?
    /// A name for debugging and traces.
    public var name: String?

    /// Set while the contents must reach the screen this frame, whatever the upload budget (a cell
    /// that never shows placeholders); the backend then uploads as soon as they are set.
    public var prefersImmediateUpload = false

    /// The backend's upload of the contents; set by the backend only.
    public var backing: (any LayerBacking)?

    /// Whether what is on screen is the current contents: no contents and no backing, or a
    /// backing made from these contents.
    public var isContentsPresented: Bool { contents === backing?.bitmap }

    /// On a root layer: told of every layer in its tree whose contents change (the compositor
    /// installs it on the window's root layer).
    public var contentsChangeHandler: (@MainActor (Layer) -> Void)?

    public init(frame: CGRect = .zero) {
        self.frame = frame
    }

    /// The top of this layer's tree.
    public var root: Layer {
        var layer = self
        while let parent = layer.superlayer { layer = parent }
        return layer
    }

    public func addSublayer(_ layer: Layer) {
        layer.removeFromSuperlayer()
        sublayers.append(layer)
        layer.superlayer = self
        didAttach(layer)
    }

    /// Inserts `layer` at `index` among the sublayers (clamped), removing it from its old parent.
    public func insertSublayer(_ layer: Layer, at index: Int) {
        layer.removeFromSuperlayer()
        sublayers.insert(layer, at: max(0, min(index, sublayers.count)))
        layer.superlayer = self
        didAttach(layer)
    }

    public func removeFromSuperlayer() {
        guard let parent = superlayer else { return }
        parent.sublayers.removeAll { $0 === self }
        superlayer = nil
    }

    /// Replaces every sublayer at once.
    public func setSublayers(_ layers: [Layer]) {
        for old in sublayers where !layers.contains(where: { $0 === old }) { old.superlayer = nil }
        var attached: [Layer] = []
        for layer in layers where layer.superlayer !== self {
            layer.removeFromSuperlayer()
            layer.superlayer = self
            attached.append(layer)
        }
        sublayers = layers
        for layer in attached { didAttach(layer) }
    }

    /// A subtree joined this tree: its contents not yet on screen are news to the root's handler.
    private func didAttach(_ layer: Layer) {
        guard let handler = root.contentsChangeHandler else { return }
        layer.forEachLayer { if !$0.isContentsPresented { handler($0) } }
    }

    /// Calls `body` with this layer and every layer below it, depth first, parents first.
    public func forEachLayer(_ body: (Layer) -> Void) {
        body(self)
        for sublayer in sublayers { sublayer.forEachLayer(body) }
    }
}
