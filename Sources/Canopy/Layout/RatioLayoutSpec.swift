import CanopyGraphics
import Foundation

/// Gives its child a size of a fixed aspect ratio, `ratio` = height / width (`ASRatioLayoutSpec`):
/// it tries the max width (height = ratio × width) and the max height (width = height / ratio),
/// each clamped into the range, and keeps the one closest to the ratio. With no finite max it
/// passes its range through unchanged.
public final class RatioLayoutSpec: LayoutElement {
    public let style: Style
    public let layoutCache = LayoutCache()
    public let ratio: CGFloat
    public let child: any LayoutElement

    /// A ratio that is not a finite number above 0 (an image of no size) imposes nothing: the spec
    /// passes its range through, as with no finite max.
    public init(style: Style = Style(), ratio: CGFloat, child: any LayoutElement) {
        self.style = style
        self.ratio = ratio
        self.child = child
    }

    public func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        // Keep the option whose height / width is closest to the ratio (clamping may have bent it);
        // the first on a tie. A zero width counts as infinitely far.
        func error(_ size: CGSize) -> CGFloat {
            let value = abs(size.height / size.width - ratio)
            return value.isNaN ? .infinity : value
        }
        var best: CGSize?
        func consider(_ option: CGSize) {
            let clamped = constrainedSize.clamp(option)
            if best.map({ error(clamped) < error($0) }) ?? true { best = clamped }
        }
        let maxSize = constrainedSize.max
        let usable = ratio > 0 && ratio.isFinite
        if usable && maxSize.width.isFinite {
            consider(CGSize(width: maxSize.width, height: ratio * maxSize.width))
        }
        if usable && maxSize.height.isFinite {
            consider(CGSize(width: maxSize.height / ratio, height: maxSize.height))
        }
        let childRange = best.map { constrainedSize.intersect(SizeRange(exactly: $0)) } ?? constrainedSize
        let parent = best ?? CGSize(width: CGFloat.nan, height: CGFloat.nan)
        let sublayout = child.layoutThatFits(childRange, parentSize: parent)
        return Layout(element: self, size: sublayout.size, sublayouts: [sublayout])
    }
}
