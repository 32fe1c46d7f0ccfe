import Foundation

/// UIScrollView's rubber band: how far content moves when pulled `overscroll` points past its
/// edge, in a viewport `dimension` points long. Bounded by `dimension`, steep at first and
/// stiffer the further it goes: x * d * c / (d + c * x) with c = 0.55.
package enum RubberBand {
    package static let coefficient: CGFloat = 0.55

    package static func offset(forOverscroll overscroll: CGFloat, dimension: CGFloat) -> CGFloat {
        guard dimension > 0 else { return 0 }
        let x = abs(overscroll)
        let banded = x * dimension * coefficient / (dimension + coefficient * x)
        return overscroll < 0 ? -banded : banded
    }

    /// The inverse: the pull that produces a displayed `offset` (for picking up a band already
    /// stretched). `offset` must be less than `dimension`.
    package static func overscroll(forOffset offset: CGFloat, dimension: CGFloat) -> CGFloat {
        guard dimension > 0 else { return 0 }
        let y = min(abs(offset), dimension * 0.999)
        let x = y * dimension / (coefficient * (dimension - y))
        return offset < 0 ? -x : x
    }
}
