import CCodecs
import Foundation
import Synchronization

/// An animated GIF or WebP, decoded one frame after the other at the size it is shown (giflib and
/// libwebp's animation decoder, through CCodecs).
///
/// Each frame is composited on the animation's canvas as the format says (a GIF frame's disposal,
/// a WebP frame's blending), then scaled down to the asked size like `ImageDecoder`'s decodes
/// (area averaging, aspect kept, never upscaled) and turned by the file's EXIF orientation (a
/// WebP's). After the last frame the first comes again; `loopCount` says how many plays the
/// file asks for.
///
/// Memory: the compressed file, the canvas at full size (a GIF frame that restores what was
/// under it keeps a second one) and the frame being made; nothing else stays between calls. A
/// canvas of more than `maximumCanvasPixels` is refused (`tooLarge`): such a file shows its
/// first frame, still.
///
/// Any thread; the decoder is used by one thread at a time (its calls hold its lock).
/// Colour profiles of animated WebPs are not applied (their frames are taken as sRGB).
public final class AnimationDecoder: Sendable {
    /// A frame ready to show.
    public struct Frame: Sendable {
        /// The frame composited and scaled, premultiplied.
        public let bitmap: Bitmap
        /// Its place in the animation, from 0.
        public let index: Int
        /// How long it shows, in seconds (as browsers do, 10 ms or less shows for 100 ms).
        public let duration: TimeInterval
    }

    /// The largest canvas an animation may have, in pixels: 16 MP (64 MB a canvas).
    public static let maximumCanvasPixels = 16_000_000

    public let path: String
    /// The canvas' size as shown (after the orientation).
    public let width: Int
    public let height: Int
    /// Frames in the file.
    public let frameCount: Int
    /// How many times the whole animation plays: 0 for forever.
    public let loopCount: Int

    private let orientation: ImageOrientation
    private let format: ImageFormat
    /// The CCodecs handle; nil once closed.
    private struct Handle: @unchecked Sendable {  // touched only under `handle`'s lock
        var pointer: OpaquePointer?
    }
    private let handle: Mutex<Handle>

    /// Opens the animation at `path` (read whole into memory) and reads its description.
    /// Throws what `ImageDecoder` would (a missing, unreadable or damaged file), and `tooLarge`
    /// for a canvas over `maximumCanvasPixels`. Any thread.
    public convenience init(contentsOf path: String) throws(ImageError) {
        try self.init(contentsOf: path, header: try ImageHeader.read(contentsOf: path))
    }

    /// The animation at `path` whose header is `header` (its orientation is the frames'), its
    /// canvas held to `maximumPixels`.
    convenience init(
        contentsOf path: String, header: ImageHeader, maximumPixels: Int = maximumCanvasPixels
    ) throws(ImageError) {
        guard header.format == .gif || header.format == .webp else {
            throw .unsupported(path: path, reason: "\(header.format.displayName) holds no animation")
        }
        var error = ccodecs_error()
        var info = ccodecs_animation_info()
        guard let pointer = ccodecs_animation_open(path, Int64(maximumPixels), &info, &error) else {
            throw Self.failure(
                error, path: path, format: header.format, width: header.storedWidth, height: header.storedHeight,
                limit: maximumPixels)
        }
        self.init(pointer: pointer, info: info, path: path, format: header.format, orientation: header.orientation)
    }

    /// An animation from a file's bytes (copied), for the fuzzers: no orientation is read, and
    /// the canvas may be held to a smaller `maximumPixels`.
    public convenience init(
        bytes: [UInt8], path: String = "memory", maximumPixels: Int = maximumCanvasPixels
    ) throws(ImageError) {
        var error = ccodecs_error()
        var info = ccodecs_animation_info()
        let format: ImageFormat = bytes.starts(with: Array("GIF".utf8)) ? .gif : .webp
        guard
            let pointer = bytes.withUnsafeBufferPointer({ buffer in
                ccodecs_animation_open_memory(buffer.baseAddress, buffer.count, Int64(maximumPixels), &info, &error)
            })
        else { throw Self.failure(error, path: path, format: format, width: 0, height: 0, limit: maximumPixels) }
        self.init(pointer: pointer, info: info, path: path, format: format, orientation: .up)
    }

    private init(
        pointer: OpaquePointer, info: ccodecs_animation_info, path: String, format: ImageFormat, orientation: ImageOrientation
    ) {
        self.path = path
        self.format = format
        self.orientation = orientation
        let storedWidth = Int(info.width), storedHeight = Int(info.height)
        width = orientation.swapsAxes ? storedHeight : storedWidth
        height = orientation.swapsAxes ? storedWidth : storedHeight
        frameCount = Int(info.frame_count)
        loopCount = Int(info.loop_count)
        handle = Mutex(Handle(pointer: pointer))
    }

    deinit {
        handle.withLock { handle in
            ccodecs_animation_close(handle.pointer)
            handle.pointer = nil
        }
    }

    /// The next frame (the first after the last), scaled to cover `target` pixels as
    /// `ImageDecoder.fittedPixelSize` says (nil: the canvas' size). `isCancelled` is asked between
    /// every 16 rows of a GIF frame, and before and after a WebP frame. After a failure (a frame
    /// cut short, damage) the next call starts over from the first frame. Any thread.
    public func nextFrame(fitting target: CGSize?, isCancelled: (@Sendable () -> Bool)? = nil) throws(ImageError) -> Frame {
        let cancellation = isCancelled.map { ImageDecoder.Cancellation(path: path, isCancelled: $0) }
        let storedTarget = orientation.swapsAxes ? target.map { CGSize(width: $0.height, height: $0.width) } : target
        let result = handle.withLock { handle -> Result<Frame, ImageError> in
            guard let pointer = handle.pointer else { return .failure(.cancelled(path: path)) }
            var error = ccodecs_error()
            var index: Int32 = 0
            var milliseconds: Int32 = 0
            guard
                let canvas = ccodecs_animation_next(pointer, &index, &milliseconds, cancellation?.pointer, &error)
            else {
                return .failure(Self.failure(error, path: path, format: format, width: 0, height: 0))
            }
            let storedWidth = orientation.swapsAxes ? height : width
            let storedHeight = orientation.swapsAxes ? width : height
            let size = ImageDecoder.fittedPixelSize(width: storedWidth, height: storedHeight, fitting: storedTarget)
            let whole = ImageDecoder.Crop(x: 0, y: 0, width: storedWidth, height: storedHeight)
            // The canvas stays the decoder's: the downscaler only reads it.
            let scaled = ImageDecoder.downscale(
                UnsafeMutablePointer(mutating: canvas), stride: storedWidth * 4, crop: whole, to: size)
            return .success(
                Frame(bitmap: orientation.apply(to: scaled), index: Int(index), duration: TimeInterval(milliseconds) / 1000))
        }
        let frame = try result.get()
        try cancellation?.check()
        return frame
    }

    private static func failure(
        _ error: ccodecs_error, path: String, format: ImageFormat, width: Int, height: Int,
        limit: Int = maximumCanvasPixels
    ) -> ImageError {
        if UInt32(bitPattern: error.status) == CCODECS_TOO_LARGE.rawValue {
            return .tooLarge(path: path, width: width, height: height, limit: limit)
        }
        return ImageDecoder.failure(error, path: path, format: format, width: width, height: height)
    }
}
