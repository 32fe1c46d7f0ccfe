import CanopyGraphics
import Foundation
import Synchronization

/// The favourite button's heart, drawn from the classic implicit heart curve
/// (x² + y² − 1)³ − x²y³ ≤ 0, anti-aliased by 4 x 4 supersampling: no icon font or image file is
/// needed. Any thread.
enum HeartIcon {
    private struct Key: Hashable {
        var size: CGFloat
        var scale: CGFloat
        var color: Color
    }

    /// Every heart drawn so far: each card shows the same two, so they are drawn once per scale
    /// (a few bitmaps of a few KB; nothing is evicted).
    private static let drawn = Mutex<[Key: Bitmap]>([:])

    /// A heart `size` points square at `scale`, in `color` (straight alpha in, premultiplied out),
    /// drawn the first time it is asked for and shared after.
    static func bitmap(size: CGFloat, scale: CGFloat, color: Color) -> Bitmap {
        let key = Key(size: size, scale: scale, color: color)
        if let bitmap = drawn.withLock({ $0[key] }) { return bitmap }
        let bitmap = draw(size: size, scale: scale, color: color)
        drawn.withLock { $0[key] = bitmap }
        return bitmap
    }

    /// The heart's coverage, as a mask, filled with `color` by `GraphicsContext`.
    private static func draw(size: CGFloat, scale: CGFloat, color: Color) -> Bitmap {
        let pixels = max(1, Int((size * scale).rounded()))
        let context = GraphicsContext(pixelWidth: pixels, pixelHeight: pixels, scale: scale)
        context.fill(mask: mask(pixels: pixels, scale: scale), in: CGRect(origin: .zero, size: context.size), with: color)
        return context.makeBitmap()
    }

    /// The heart's coverage of each pixel of a `pixels`-square bitmap, in its alpha.
    private static func mask(pixels: Int, scale: CGFloat) -> Bitmap {
        var bytes = [UInt8](repeating: 0, count: pixels * pixels * 4)
        let samples = 4
        for py in 0..<pixels {
            for px in 0..<pixels {
                var inside = 0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        // Map the pixel square onto x in [-1.3, 1.3], y in [-1.4, 1.2] (y up).
                        let u = (CGFloat(px) + (CGFloat(sx) + 0.5) / CGFloat(samples)) / CGFloat(pixels)
                        let v = (CGFloat(py) + (CGFloat(sy) + 0.5) / CGFloat(samples)) / CGFloat(pixels)
                        let x = (u - 0.5) * 2.6, y = 1.25 - v * 2.6
                        let a = x * x + y * y - 1
                        if a * a * a - x * x * y * y * y <= 0 { inside += 1 }
                    }
                }
                bytes[(py * pixels + px) * 4 + 3] = UInt8((CGFloat(inside) / CGFloat(samples * samples) * 255).rounded())
            }
        }
        return Bitmap(width: pixels, height: pixels, scale: scale, pixels: bytes)
    }
}
