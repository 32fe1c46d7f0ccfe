import Foundation

/// An image in memory: premultiplied RGBA, 8 bits a component, rows `bytesPerRow` apart.
///
/// A Bitmap is immutable once made, so any thread may read it; workers draw into their own
/// buffer and wrap it in a Bitmap when done. `scale` is pixels per point.
public final class Bitmap: Sendable {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public let scale: CGFloat
    /// Premultiplied R, G, B, A bytes, `bytesPerRow * height` of them.
    public let pixels: [UInt8]
    /// Known to have every pixel's alpha at 255 (a display of an opaque node, a picture without
    /// alpha): a compositor may then draw it without blending. False says nothing either way.
    public let isOpaque: Bool

    /// Wraps pixels that are already premultiplied RGBA8; `isOpaque` promises that every alpha is
    /// 255.
    public init(
        width: Int, height: Int, bytesPerRow: Int? = nil, scale: CGFloat = 1, isOpaque: Bool = false, pixels: [UInt8]
    ) {
        let stride = bytesPerRow ?? width * 4
        precondition(width >= 0 && height >= 0 && stride >= width * 4, "bad bitmap geometry")
        precondition(pixels.count >= stride * height, "bitmap pixel buffer too small")
        self.width = width
        self.height = height
        self.bytesPerRow = stride
        self.scale = scale
        self.isOpaque = isOpaque
        self.pixels = pixels
    }

    /// A bitmap filled with one colour.
    public convenience init(width: Int, height: Int, scale: CGFloat = 1, fill color: Color) {
        let p = color.premultipliedRGBA8
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        bytes.withUnsafeMutableBufferPointer { buf in
            var i = 0
            while i < buf.count {
                buf[i] = p.r; buf[i + 1] = p.g; buf[i + 2] = p.b; buf[i + 3] = p.a
                i += 4
            }
        }
        self.init(width: width, height: height, scale: scale, isOpaque: p.a == 255, pixels: bytes)
    }

    /// Whether every pixel's alpha is 255, by looking at them all (`isOpaque` when known).
    public var pixelsAreOpaque: Bool {
        if isOpaque { return true }
        return pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                var i = y * bytesPerRow + 3
                let end = i + width * 4
                while i < end {
                    if p[i] != 255 { return false }
                    i += 4
                }
            }
            return true
        }
    }

    /// The bitmap composited over `color` made opaque (over black, when it is not): an opaque
    /// bitmap of the same size, `self` when it is opaque already.
    public func flattened(over color: Color) -> Bitmap {
        if isOpaque { return self }
        let back = color.opaqueOverBlack.premultipliedRGBA8
        var out = [UInt8](repeating: 255, count: width * height * 4)
        let (r, g, b) = (Int(back.r), Int(back.g), Int(back.b))
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    for x in 0..<width {
                        let i = y * bytesPerRow + x * 4, j = (y * width + x) * 4
                        let keep = 255 - Int(p[i + 3])
                        o[j] = UInt8(min(255, Int(p[i]) + (r * keep + 127) / 255))
                        o[j + 1] = UInt8(min(255, Int(p[i + 1]) + (g * keep + 127) / 255))
                        o[j + 2] = UInt8(min(255, Int(p[i + 2]) + (b * keep + 127) / 255))
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, scale: scale, isOpaque: true, pixels: out)
    }

    /// The same pixels at another scale (pixels per point); the pixel array is shared, not copied.
    public func withScale(_ scale: CGFloat) -> Bitmap {
        scale == self.scale
            ? self
            : Bitmap(width: width, height: height, bytesPerRow: bytesPerRow, scale: scale, isOpaque: isOpaque, pixels: pixels)
    }

    /// The size in points.
    public var size: CGSize { CGSize(width: CGFloat(width) / scale, height: CGFloat(height) / scale) }

    /// The number of bytes the pixels occupy.
    public var byteCount: Int { bytesPerRow * height }

    /// The premultiplied pixel at (x, y).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        let i = y * bytesPerRow + x * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// The pixels with straight (un-premultiplied) alpha, tightly packed, for renderers and
    /// file formats that expect it.
    public func straightAlphaPixels() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    var s = y * bytesPerRow
                    var d = y * width * 4
                    for _ in 0..<width {
                        let a = Int(src[s + 3])
                        if a == 255 || a == 0 {
                            dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]
                        } else {
                            dst[d] = UInt8(min(255, (Int(src[s]) * 255 + a / 2) / a))
                            dst[d + 1] = UInt8(min(255, (Int(src[s + 1]) * 255 + a / 2) / a))
                            dst[d + 2] = UInt8(min(255, (Int(src[s + 2]) * 255 + a / 2) / a))
                        }
                        dst[d + 3] = UInt8(a)
                        s += 4
                        d += 4
                    }
                }
            }
        }
        return out
    }
}
