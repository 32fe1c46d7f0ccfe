import CSDL2
import CSDL2Image
import Foundation

/// Decodes image files into bitmaps through SDL_image, on any thread (after
/// `GraphicsLibrary.initialize()` on the main thread).
public enum ImageDecoder {
    /// Decodes a whole image at its own size into a premultiplied bitmap.
    public static func decode(contentsOf path: String) throws(ImageError) -> Bitmap {
        let header = try ImageHeader.read(contentsOf: path) // a typed reason for bad files, cheaply
        guard let loaded = IMG_Load(path) else {
            throw ImageError.unsupported(path: path, reason: "\(header.format.rawValue) decoder: \(String(cString: SDL_GetError()))")
        }
        defer { SDL_FreeSurface(loaded) }
        guard let surface = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_ABGR8888.rawValue, 0) else {
            throw ImageError.unsupported(path: path, reason: String(cString: SDL_GetError()))
        }
        defer { SDL_FreeSurface(surface) }
        let w = Int(surface.pointee.w), h = Int(surface.pointee.h), pitch = Int(surface.pointee.pitch)
        let src = surface.pointee.pixels!.assumingMemoryBound(to: UInt8.self)
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                for x in 0..<w {
                    let s = y * pitch + x * 4, d = (y * w + x) * 4
                    let a = Int(src[s + 3])
                    dst[d] = UInt8((Int(src[s]) * a + 127) / 255)
                    dst[d + 1] = UInt8((Int(src[s + 1]) * a + 127) / 255)
                    dst[d + 2] = UInt8((Int(src[s + 2]) * a + 127) / 255)
                    dst[d + 3] = UInt8(a)
                }
            }
        }
        return Bitmap(width: w, height: h, pixels: pixels)
    }
}
