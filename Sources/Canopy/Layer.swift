import CanopyGraphics
import Foundation

/// What the compositor draws: a rectangle with an optional background colour and contents
/// (a finished bitmap), its sublayers on top. Main thread only.
///
/// `frame` is in the superlayer's coordinate space; `boundsOrigin` shifts the sublayers
/// (a scrolling layer sets it to its content offset).
@MainActor
public final class Layer {
    public var frame: CGRect
    public var boundsOrigin: CGPoint = .zero
    public var backgroundColor: Color?
    /// Rounds the background's corners (anti-aliased).
    public var cornerRadius: CGFloat = 0
    /// A line of `borderWidth` points just inside the bounds, over the contents.
    public var borderColor: Color?
    public var borderWidth: CGFloat = 0
    /// A finished bitmap, drawn over the background to fill `contentsRect` (the whole bounds
    /// when nil).
    public var contents: Bitmap?
    /// Where the contents go, in the layer's own coordinates; nil fills the layer.
    public var contentsRect: CGRect?
    public var alpha: CGFloat = 1
    public var isHidden = false
    public var clipsToBounds = false
    public private(set) var sublayers: [Layer] = []
    public private(set) weak var superlayer: Layer?
    /// A name for debugging and traces.
    public var name: String?

    public init(frame: CGRect = .zero) {
        self.frame = frame
    }

    public func addSublayer(_ layer: Layer) {
        layer.removeFromSuperlayer()
        sublayers.append(layer)
        layer.superlayer = self
    }

    public func removeFromSuperlayer() {
        guard let parent = superlayer else { return }
        parent.sublayers.removeAll { $0 === self }
        superlayer = nil
    }

    /// Replaces every sublayer at once.
    public func setSublayers(_ layers: [Layer]) {
        for old in sublayers where !layers.contains(where: { $0 === old }) { old.superlayer = nil }
        for layer in layers where layer.superlayer !== self { layer.removeFromSuperlayer(); layer.superlayer = self }
        sublayers = layers
    }
}
