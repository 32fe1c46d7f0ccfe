import CanopyGraphics
import Foundation

/// Lines of overlay text rendered once and kept while they are shown (the FPS figures change a
/// few times a second, not every frame). Main thread; bounded, least recently used out.
@MainActor
final class TextCache {
    private struct Key: Hashable { var text: String; var font: Font; var color: Color; var scale: CGFloat }
    private var entries: [Key: (bitmap: Bitmap, lastUse: Int)] = [:]
    private var useCounter = 0
    let capacity: Int
    let fonts: FontRegistry

    init(fonts: FontRegistry, capacity: Int = 96) {
        self.fonts = fonts
        self.capacity = capacity
    }

    /// The rendered line, or nil if the font cannot draw it.
    func bitmap(_ text: String, font: Font, color: Color, scale: CGFloat) -> Bitmap? {
        useCounter += 1
        let key = Key(text: text, font: font, color: color, scale: scale)
        if let hit = entries[key] {
            entries[key] = (hit.bitmap, useCounter)
            return hit.bitmap
        }
        guard let bitmap = try? fonts.renderLine(text, font: font, color: color, scale: scale) else { return nil }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
        }
        entries[key] = (bitmap, useCounter)
        return bitmap
    }
}
