import Canopy

extension Compositor {
    /// Draws the hit-test overlay's regions (window points): each region's fill and edge bands,
    /// which tile it without overlapping, as plain fills. Main thread, after the layer tree.
    package func drawHitTestSlop(_ regions: [HitTestSlopRegion]) {
        for region in regions {
            for piece in region.pieces { fill(piece.rect, color: piece.color) }
        }
    }
}
