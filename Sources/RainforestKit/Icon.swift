import CanopyGraphics
import Foundation
import Synchronization

/// The app's two icons, drawn from implicit curves, anti-aliased by 4 x 4 supersampling, so no
/// icon font or image file is needed: the favourite button's heart, (x² + y² − 1)³ − x²y³ ≤ 0, and
/// the placeholder's leaf, a lens (two circles' intersection) turned 45° with a midrib and a
/// stem. Any thread; each size, scale and colour is drawn once and shared after (each card shows
/// the same few; a few KB each; nothing is evicted).
enum Icon: Hashable, Sendable {
    case heart
    case leaf

    private struct Key: Hashable {
        var icon: Icon
        var size: CGFloat
        var scale: CGFloat
        var color: Color
    }

    private static let drawn = Mutex<[Key: Bitmap]>([:])

    /// The icon `size` points square at `scale`, in `color` (straight alpha in, premultiplied out).
    func bitmap(size: CGFloat, scale: CGFloat, color: Color) -> Bitmap {
        let key = Key(icon: self, size: size, scale: scale, color: color)
        if let bitmap = Self.drawn.withLock({ $0[key] }) { return bitmap }
        let pixels = max(1, Int((size * scale).rounded()))
        let context = GraphicsContext(pixelWidth: pixels, pixelHeight: pixels, scale: scale)
        context.fill(mask: mask(pixels: pixels, scale: scale), in: CGRect(origin: .zero, size: context.size), with: color)
        let bitmap = context.makeBitmap()
        Self.drawn.withLock { $0[key] = bitmap }
        return bitmap
    }

    /// Whether a point of the icon's square, mapped onto [-1.3, 1.3] with y up, is inside.
    private func contains(x: CGFloat, y: CGFloat) -> Bool {
        switch self {
        case .heart:
            let y = y - 0.05  // the heart sits a little low in its square
            let a = x * x + y * y - 1
            return a * a * a - x * x * y * y * y <= 0
        case .leaf:
            // Along the diagonal: u from the stem (bottom left) to the tip (top right).
            let u = (x + y) / 2.squareRoot(), v = (y - x) / 2.squareRoot()
            // A lens with tips at u = ±1 and half-width 0.45: circles at v = ±c of radius r, with
            // r - c = 0.45 and r² - c² = 1.
            let c: CGFloat = 0.8861, r: CGFloat = 1.3361
            let blade = u * u + (v - c) * (v - c) <= r * r && u * u + (v + c) * (v + c) <= r * r
            let midrib = abs(v) < 0.035 && u > -0.8 && u < 0.8
            let stem = abs(v) < 0.05 && u <= -0.95 && u > -1.3
            return (blade && !midrib) || stem
        }
    }

    /// The icon's coverage of each pixel of a `pixels`-square bitmap, in its alpha.
    private func mask(pixels: Int, scale: CGFloat) -> Bitmap {
        var bytes = [UInt8](repeating: 0, count: pixels * pixels * 4)
        let samples = 4
        for py in 0..<pixels {
            for px in 0..<pixels {
                var inside = 0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let u = (CGFloat(px) + (CGFloat(sx) + 0.5) / CGFloat(samples)) / CGFloat(pixels)
                        let v = (CGFloat(py) + (CGFloat(sy) + 0.5) / CGFloat(samples)) / CGFloat(pixels)
                        if contains(x: (u - 0.5) * 2.6, y: (0.5 - v) * 2.6) { inside += 1 }
                    }
                }
                bytes[(py * pixels + px) * 4 + 3] = UInt8((CGFloat(inside) / CGFloat(samples * samples) * 255).rounded())
            }
        }
        return Bitmap(width: pixels, height: pixels, scale: scale, pixels: bytes)
    }
}

extension IconCommand {
    /// The app's icon: the placeholder's leaf, light on a dark green rounded square.
    static func draw(size: Int) -> Bitmap {
        let side = CGFloat(size)
        let context = GraphicsContext(pixelWidth: size, pixelHeight: size, scale: 1)
        context.fillRoundedRect(
            CGRect(x: 0, y: 0, width: side, height: side), cornerRadius: side * 0.18,
            with: Color(red: 0.09, green: 0.25, blue: 0.15))
        let leaf = Icon.leaf.bitmap(size: side * 0.72, scale: 1, color: Color(red: 0.62, green: 0.86, blue: 0.45))
        context.draw(
            leaf, in: CGRect(x: side * 0.14, y: side * 0.14, width: side * 0.72, height: side * 0.72),
            contentMode: .scaleToFill)
        return context.makeBitmap()
    }

    func execute() throws {
        do {
            try GraphicsLibrary.initialize()
            try Self.draw(size: size).writePNG(to: output)
        } catch let error as BitmapWriteError {
            throw UserFacingError(message: error.description, status: 1)
        }
        print("wrote \(output) (\(size) x \(size) px)")
    }
}
