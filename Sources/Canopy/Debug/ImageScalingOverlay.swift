import Foundation

/// One label of the image-scaling debug overlay: an image node whose image pixels differ from the
/// pixels it is drawn across, and by how much.
package struct ImageScalingLabel: Sendable, Equatable {
    /// The image node's frame, in window points.
    package var frame: CGRect
    /// The node's `imageScaleFactor`: image pixels over drawn pixels (above 1: the image is bigger
    /// than it needs to be; below 1: it is stretched).
    package var factor: CGFloat
    /// The label's text: the factor as "%.2fx".
    package var text: String { String(format: "%.2fx", Double(factor)) }
}

/// The image-scaling debug overlay's content (Texture's image scaling overlay): for every visible
/// `ImageNode` of a tree whose last display drew its image at a scale other than 1 (as "%.2fx" shows it), a red
/// "%.2fx" label at the node's bottom right. Pure geometry; the compositor draws it. Main thread
/// (it reads the loaded layers to place the root).
package enum ImageScalingOverlay {
    /// The labels of `root`'s tree, with the root's frame origin at `origin` (window points) plus
    /// its frame's own origin.
    package static func labels(in root: DisplayNode, origin: CGPoint) -> [ImageScalingLabel] {
        var labels: [ImageScalingLabel] = []
        visit(root, at: CGPoint(x: origin.x + root.frame.minX, y: origin.y + root.frame.minY), into: &labels)
        return labels
    }

    /// The labels, with the root placed where its layer is drawn (through any scrolled layers above
    /// it); at the window's origin when the root is not loaded.
    @MainActor
    package static func labels(in root: DisplayNode) -> [ImageScalingLabel] {
        labels(in: root, origin: root.layerIfLoaded?.superlayer?.convertToWindow(.zero) ?? .zero)
    }

    private static func visit(_ node: DisplayNode, at origin: CGPoint, into labels: inout [ImageScalingLabel]) {
        guard !node.isHidden, node.alpha > 0.001 else { return }
        let size = node.frame.size
        // Hidden where the label would read 1.00x: a decode to fit may land a fraction of a pixel off.
        if let image = node as? ImageNode, let factor = image.imageScaleFactor, abs(factor - 1) >= 0.005 {
            labels.append(ImageScalingLabel(frame: CGRect(origin: origin, size: size), factor: factor))
        }
        for subnode in node.subnodes {
            let frame = subnode.frame
            visit(subnode, at: CGPoint(x: origin.x + frame.minX, y: origin.y + frame.minY), into: &labels)
        }
    }
}
