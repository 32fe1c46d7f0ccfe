import Foundation

/// How a bitmap fills a rect, as UIKit's UIView.ContentMode (the edge modes place the image
/// at its own size against that edge or corner, like .center does in the middle).
public enum ContentMode: Sendable, Hashable, CaseIterable {
    /// Stretches the image to the rect, ignoring its aspect ratio.
    case scaleToFill
    /// Scales the whole image to fit inside the rect, keeping its aspect ratio (letterboxed).
    case aspectFit
    /// Scales the image to cover the rect, keeping its aspect ratio; what overflows is cropped.
    case aspectFill
    /// The image at its own point size, centred.
    case center
    case top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight
}

extension ContentMode {
    /// Where an image of `contentSize` points lands for this mode in `rect` (before clipping to `rect`).
    ///
    /// `alignment` positions an aspectFill image that overflows: (0.5, 0.5) centres it, x 0 keeps
    /// its left edge, 1 its right edge (Texture's empty cropRect origin). Other modes ignore it.
    /// Any thread.
    public func frame(
        forContentSize contentSize: CGSize, in rect: CGRect,
        alignment: CGPoint = CGPoint(x: 0.5, y: 0.5)
    ) -> CGRect {
        let r = rect.standardized
        let w = contentSize.width, h = contentSize.height
        switch self {
        case .scaleToFill:
            return r
        case .aspectFit, .aspectFill:
            guard w > 0, h > 0 else { return r }
            let sx = r.width / w, sy = r.height / h
            let s = self == .aspectFit ? min(sx, sy) : max(sx, sy)
            let fw = w * s, fh = h * s
            let ax = self == .aspectFit ? 0.5 : min(1, max(0, alignment.x))
            let ay = self == .aspectFit ? 0.5 : min(1, max(0, alignment.y))
            return CGRect(x: r.minX + (r.width - fw) * ax, y: r.minY + (r.height - fh) * ay, width: fw, height: fh)
        case .center:
            return CGRect(x: r.midX - w / 2, y: r.midY - h / 2, width: w, height: h)
        case .top:
            return CGRect(x: r.midX - w / 2, y: r.minY, width: w, height: h)
        case .bottom:
            return CGRect(x: r.midX - w / 2, y: r.maxY - h, width: w, height: h)
        case .left:
            return CGRect(x: r.minX, y: r.midY - h / 2, width: w, height: h)
        case .right:
            return CGRect(x: r.maxX - w, y: r.midY - h / 2, width: w, height: h)
        case .topLeft:
            return CGRect(x: r.minX, y: r.minY, width: w, height: h)
        case .topRight:
            return CGRect(x: r.maxX - w, y: r.minY, width: w, height: h)
        case .bottomLeft:
            return CGRect(x: r.minX, y: r.maxY - h, width: w, height: h)
        case .bottomRight:
            return CGRect(x: r.maxX - w, y: r.maxY - h, width: w, height: h)
        }
    }
}
