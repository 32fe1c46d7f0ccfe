import Foundation

extension Layer {
    /// Where a point of this layer's own coordinate space (the space its sublayers' frames are in,
    /// shifted by `boundsOrigin`) lands in the window, in points: the way the compositor places it.
    /// The topmost layer's frame is taken to be in window coordinates, as `Application`'s root is.
    public func convertToWindow(_ point: CGPoint) -> CGPoint {
        var p = point
        var layer: Layer? = self
        while let current = layer {
            p.x += current.frame.minX - current.boundsOrigin.x
            p.y += current.frame.minY - current.boundsOrigin.y
            layer = current.superlayer
        }
        return p
    }

    /// The inverse of `convertToWindow(_:)`: a window point in this layer's own coordinates.
    public func convertFromWindow(_ point: CGPoint) -> CGPoint {
        let origin = convertToWindow(.zero)
        return CGPoint(x: point.x - origin.x, y: point.y - origin.y)
    }
}
