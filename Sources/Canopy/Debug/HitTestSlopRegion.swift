import Foundation

/// One control's area in the hit-test overlay, as rects and colours in window points, ready to be
/// filled (Texture's `ASControlNode.enableHitTestDebug` overlay). `HitTestSlopOverlay` makes them.
///
/// `rect` is the part of the control's tappable area the overlay shows. Its edges that an ancestor
/// cut each get a band `HitTestSlopOverlay.bandWidth` points thick, inside `rect`; `fill` is the
/// rest. The pieces (`fill` and the bands) tile `rect` without overlapping, each in one colour: a
/// band replaces the fill under it rather than being blended over it, as Texture's overlay image
/// (drawn with a copying fill) does, and where two bands meet at a corner the orange one takes the
/// corner (on a tie, the top or bottom band).
package struct HitTestSlopRegion: Sendable {
    package enum Edge: Sendable, Hashable, CaseIterable {
        case top, left, bottom, right
    }

    /// What cut an edge.
    package enum Cut: Sendable, Hashable {
        /// An ancestor's own tappable area ends there: the pointer is not taken beyond it (a real
        /// limit; grow that ancestor's `hitTestSlop` to move it). Dark green.
        case tappableArea
        /// An ancestor that clips to its bounds hides the area beyond, which still takes the pointer
        /// (the limit is only the overlay's). Orange.
        case clipping
    }

    package struct Band: Sendable, Hashable {
        package var edge: Edge
        package var cut: Cut
        package var rect: CGRect
        package var color: Color
    }

    /// The control the region shows.
    package let control: ControlNode
    /// The shown tappable area.
    package var rect: CGRect
    /// `rect` less the bands (empty when the bands cover it).
    package var fill: CGRect
    package var fillColor: Color
    /// The edges an ancestor cut, and by what.
    package var cuts: [Edge: Cut]
    /// One band per cut edge, in `Edge`'s order.
    package var bands: [Band]

    /// Every rect to fill, with its colour: the fill (if not empty), then the bands.
    package var pieces: [(rect: CGRect, color: Color)] {
        var pieces: [(rect: CGRect, color: Color)] = []
        if fill.width > 0 && fill.height > 0 { pieces.append((fill, fillColor)) }
        for band in bands { pieces.append((band.rect, band.color)) }
        return pieces
    }

    package init(
        control: ControlNode, rect: CGRect, fill: CGRect, fillColor: Color,
        cuts: [Edge: Cut], bands: [Band]
    ) {
        self.control = control
        self.rect = rect
        self.fill = fill
        self.fillColor = fillColor
        self.cuts = cuts
        self.bands = bands
    }
}
