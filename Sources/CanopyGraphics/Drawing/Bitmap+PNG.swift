import CSDL2
import CSDL2Image
import Foundation

/// Why a bitmap could not be written.
public struct BitmapWriteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The format that was being written ("PNG", "GIF", "WebP").
    public var format: String

    public init(path: String, reason: String, format: String = "PNG") {
        self.path = path
        self.reason = reason
        self.format = format
    }

    public var description: String { "\(path): cannot write \(format) (\(reason))" }
}

extension Bitmap {
    /// Writes the bitmap as a PNG file (straight alpha, as PNG requires) through SDL_image.
    /// Safe on any thread: it touches no SDL video state.
    public func writePNG(to path: String) throws(BitmapWriteError) {
        var straight = straightAlphaPixels()
        let result: Int32 = straight.withUnsafeMutableBytes { raw in
            guard
                let surface = SDL_CreateRGBSurfaceWithFormatFrom(
                    raw.baseAddress, Int32(width), Int32(height), 32, Int32(width * 4),
                    SDL_PIXELFORMAT_ABGR8888.rawValue
                )
            else { return -2 }
            defer { SDL_FreeSurface(surface) }
            return IMG_SavePNG(surface, path)
        }
        if result == -2 { throw BitmapWriteError(path: path, reason: "out of memory") }
        if result != 0 { throw BitmapWriteError(path: path, reason: String(cString: SDL_GetError())) }
    }
}
