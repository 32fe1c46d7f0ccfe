import CanopyGraphics
import Foundation

/// One line of the help overlay: the keys and what they do.
public struct HelpEntry: Sendable, Equatable {
    public var keys: String
    public var action: String
    public init(_ keys: String, _ action: String) {
        self.keys = keys
        self.action = action
    }
}

/// The help overlay: a panel in the middle of the window listing every key.
@MainActor
struct HelpOverlay {
    static func draw(compositor: Compositor, text: TextCache, font: Font, entries: [HelpEntry], in window: CGSize) {
        let scale = compositor.scale
        let keyFont = Font(family: font.family, size: 15, weight: .bold)
        let actionFont = font.withSize(15)
        let titleFont = Font(family: font.family, size: 20, weight: .heavy)
        let rowHeight: CGFloat = 24, padding: CGFloat = 20
        let keyBitmaps = entries.map { text.bitmap($0.keys, font: keyFont, color: .white, scale: scale) }
        let actionBitmaps = entries.map { text.bitmap($0.action, font: actionFont, color: Color(white: 0.9), scale: scale) }
        let keyColumn = (keyBitmaps.compactMap { $0?.size.width }.max() ?? 80) + 24
        let actionColumn = actionBitmaps.compactMap { $0?.size.width }.max() ?? 200
        let width = min(window.width - 20, padding * 2 + keyColumn + actionColumn)
        let height = padding * 2 + 34 + CGFloat(entries.count) * rowHeight
        let panel = CGRect(
            x: ((window.width - width) / 2).rounded(), y: max(10, ((window.height - height) / 2).rounded()),
            width: width, height: height)
        compositor.fillRounded(panel, radius: 12, color: Color(white: 0.08, alpha: 0.88))
        var y = panel.minY + padding
        if let title = text.bitmap("Keys", font: titleFont, color: .white, scale: scale) {
            compositor.drawBitmap(title, in: CGRect(origin: CGPoint(x: panel.minX + padding, y: y), size: title.size))
        }
        y += 34
        for (k, a) in zip(keyBitmaps, actionBitmaps) {
            if let k { compositor.drawBitmap(k, in: CGRect(origin: CGPoint(x: panel.minX + padding, y: y), size: k.size)) }
            if let a {
                compositor.drawBitmap(a, in: CGRect(origin: CGPoint(x: panel.minX + padding + keyColumn, y: y), size: a.size))
            }
            y += rowHeight
        }
    }
}
