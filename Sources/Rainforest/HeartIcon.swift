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

    private static func draw(size: CGFloat, scale: CGFloat, color: Color) -> Bitmap {
        let pixels = max(1, Int((size * scale).rounded()))
        var bytes = [UInt8](repeating: 0, count: pixels * pixels * 4)
        let rgba = color.rgba8
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
                let coverage = CGFloat(inside) / CGFloat(samples * samples) * CGFloat(rgba.a) / 255
                let i = (py * pixels + px) * 4
                bytes[i] = UInt8((CGFloat(rgba.r) * coverage).rounded())
                bytes[i + 1] = UInt8((CGFloat(rgba.g) * coverage).rounded())
                bytes[i + 2] = UInt8((CGFloat(rgba.b) * coverage).rounded())
                bytes[i + 3] = UInt8((coverage * 255).rounded())
            }
        }
        return Bitmap(width: pixels, height: pixels, scale: scale, pixels: bytes)
    }
}
