import CCodecs
import Foundation

/// Writes animated GIF and WebP files from bitmaps (giflib, libwebp's animation encoder): the
/// tests' fixtures and the benchmarks' folders of animations. Any thread.
public enum AnimationWriter {
    /// The file format written.
    public enum Format: Sendable {
        /// GIF: each frame whole, with its own colour table (exact for up to 255 colours, else a
        /// 6 x 7 x 6 colour cube); alpha under 128 is transparent. Durations in hundredths.
        case gif
        /// WebP, lossy at `quality` (0 to 99) or lossless at 100.
        case webp(quality: Int)
    }

    /// Writes `frames` (all of one size) shown `durations` seconds each, playing `loops` times in
    /// all (0: forever), as `format` at `path`.
    public static func write(
        _ frames: [Bitmap], durations: [TimeInterval], loops: Int, format: Format, to path: String
    ) throws(BitmapWriteError) {
        let name: String
        switch format {
        case .gif: name = "GIF"
        case .webp: name = "WebP"
        }
        guard let first = frames.first, frames.count == durations.count,
            frames.allSatisfy({ $0.width == first.width && $0.height == first.height })
        else {
            throw BitmapWriteError(
                path: path, reason: "no frames, frames of different sizes, or a duration missing", format: name)
        }
        // Straight RGBA, rows packed, one buffer a frame, alive across the call.
        let straight = frames.map { $0.straightAlphaPixels() }
        let milliseconds = durations.map { Int32(($0 * 1000).rounded()) }
        var error = ccodecs_error()
        let result = withPointers(to: straight) { pointers in
            switch format {
            case .gif:
                return ccodecs_gif_write_animation(
                    path, pointers, milliseconds, Int32(frames.count), Int32(first.width), Int32(first.height),
                    Int32(loops), &error)
            case .webp(let quality):
                return ccodecs_webp_write_animation(
                    path, pointers, milliseconds, Int32(frames.count), Int32(first.width), Int32(first.height),
                    Int32(loops), Int32(quality), &error)
            }
        }
        guard result == 0 else {
            let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw BitmapWriteError(path: path, reason: message, format: name)
        }
    }

    /// Calls `body` with a C array of pointers to each buffer's bytes.
    private static func withPointers<R>(
        to buffers: [[UInt8]], _ body: (UnsafePointer<UnsafePointer<UInt8>?>) -> R
    ) -> R {
        func nest(_ index: Int, _ collected: [UnsafePointer<UInt8>?]) -> R {
            guard index < buffers.count else { return collected.withUnsafeBufferPointer { body($0.baseAddress!) } }
            return buffers[index].withUnsafeBufferPointer { nest(index + 1, collected + [$0.baseAddress]) }
        }
        return nest(0, [])
    }
}
