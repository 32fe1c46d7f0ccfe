import Canopy
import CanopyGraphics
import CSDL2
import Foundation

extension Compositor {
    /// Draws the range overlay of `snapshot` (`RangeOverlayLayout` places it in the window): the
    /// tints over on-screen items in the display and preload ranges, then the panel at the bottom
    /// right with its caption, the ranges' bands, the items, the viewport's outline and the legend.
    /// Main thread, after the layer tree.
    func drawRangeOverlay(_ snapshot: RangeOverlaySnapshot, text: TextCache, font: Font) {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &w, &h)
        let windowSize = CGSize(width: CGFloat(w) / scale, height: CGFloat(h) / scale)
        drawRangeOverlay(
            RangeOverlayLayout(snapshot: snapshot, windowSize: windowSize), caption: snapshot.caption,
            text: text, font: font)
    }

    func drawRangeOverlay(_ layout: RangeOverlayLayout, caption: String, text: TextCache, font: Font) {
        typealias L = RangeOverlayLayout
        for tint in layout.tints { fill(tint.rect, color: tint.color) }

        guard layout.panel.width > 0, layout.panel.height > 0 else { return }
        fillRounded(layout.panel, radius: L.panelCornerRadius, color: L.panelColor)

        if let band = layout.preloadBand { fill(band, color: L.preloadBandColor) }
        if let band = layout.displayBand { fill(band, color: L.displayBandColor) }
        for item in layout.items {
            if let color = item.fill { fill(item.rect, color: color) }
            // An outline needs room for some fill inside it (a sliver is all fill, or all outline).
            if item.fill == nil || (item.rect.width > 4 * L.itemBorderWidth && item.rect.height > 4 * L.itemBorderWidth) {
                strokeInside(item.rect, width: L.itemBorderWidth, color: item.stroke)
            }
        }
        for edge in layout.viewportOutline { fill(edge, color: L.viewportColor) }

        let small = Font(family: font.family, size: 10, weight: .medium)
        if let bitmap = captionBitmap(caption, width: layout.captionLine.width, text: text, font: small) {
            drawLine([bitmap], in: layout.captionLine)
        }
        let separator = text.bitmap(" · ", font: small, color: Color(white: 0.6), scale: scale)
        var legend: [Bitmap] = []
        for (index, entry) in L.legend.enumerated() {
            if index > 0, let separator { legend.append(separator) }
            if let word = text.bitmap(entry.text, font: small, color: entry.color, scale: scale) { legend.append(word) }
        }
        drawLine(legend, in: layout.legendLine)
    }

    /// The caption's line, shrunk by at most 15% to fit `width`; beyond that its last " · " parts
    /// give way to "…" (the first part is always kept, shrunk as much as it takes).
    private func captionBitmap(_ caption: String, width: CGFloat, text: TextCache, font: Font) -> Bitmap? {
        var parts = caption.components(separatedBy: " · ")
        var line = caption
        while true {
            guard !line.isEmpty,
                let bitmap = text.bitmap(
                    line, font: font, color: RangeOverlayLayout.captionColor,
                    scale: scale)
            else { return nil }
            if bitmap.size.width * 0.85 <= width || parts.count <= 1 { return bitmap }
            parts.removeLast()
            line = parts.joined(separator: " · ") + " …"
        }
    }

    /// Draws bitmaps of text side by side, centred in `line`, shrunk alike when they do not fit.
    private func drawLine(_ bitmaps: [Bitmap], in line: CGRect) {
        let width = bitmaps.reduce(0) { $0 + $1.size.width }
        let height = bitmaps.map(\.size.height).max() ?? 0
        guard width > 0, height > 0, line.width > 0, line.height > 0 else { return }
        let shrink = min(1, line.width / width)
        var x = line.midX - width * shrink / 2
        for bitmap in bitmaps {
            let size = CGSize(width: bitmap.size.width * shrink, height: bitmap.size.height * shrink)
            drawBitmap(bitmap, in: CGRect(x: x, y: line.midY - size.height / 2, width: size.width, height: size.height))
            x += size.width
        }
    }
}
