import CSDL2
import CSDL2TTF
import Foundation
import Synchronization

/// Why text could not be drawn.
public enum FontError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchFamily(String)
    case cannotOpen(path: String, reason: String)
    case renderFailed(String)

    public var description: String {
        switch self {
        case .noSuchFamily(let family): return "no font of the family \"\(family)\" is registered"
        case .cannotOpen(let path, let reason): return "\((path as NSString).lastPathComponent): cannot open font (\(reason))"
        case .renderFailed(let reason): return "text rendering failed (\(reason))"
        }
    }
}

/// The fonts the app knows, by family, weight and slant, and the open SDL_ttf handles.
///
/// Thread-safe. SDL_ttf's rules hold: fonts are opened under one global lock, and each open
/// `TTF_Font` is used by one thread at a time (its own lock). Call
/// `GraphicsLibrary.initialize()` on the main thread before the first use.
public final class FontRegistry: Sendable {
    public static let shared = FontRegistry()

    private struct FaceKey: Hashable { var family: String; var weight: FontWeight; var italic: Bool }
    private struct HandleKey: Hashable { var path: String; var pixelSize: Int }

    private let faces = Mutex<[FaceKey: String]>([:])
    /// The global open lock: every TTF_OpenFont happens while holding it.
    private let handles = Mutex<[HandleKey: FontHandle]>([:])

    public init() {}

    /// Registers a font file for a family, weight and slant.
    public func register(path: String, family: String, weight: FontWeight, italic: Bool = false) {
        faces.withLock { $0[FaceKey(family: family, weight: weight, italic: italic)] = path }
    }

    /// Registers every `Family-Style.ttf` file of a directory ("Lato-Heavy.ttf",
    /// "Lato-Italic.ttf", "Lato-BoldItalic.ttf"). Returns how many it registered.
    @discardableResult
    public func registerFonts(inDirectory directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var count = 0
        for name in names.sorted() where name.lowercased().hasSuffix(".ttf") || name.lowercased().hasSuffix(".otf") {
            let stem = (name as NSString).deletingPathExtension
            let parts = stem.split(separator: "-", maxSplits: 1).map(String.init)
            let family = parts[0]
            var style = parts.count > 1 ? parts[1] : "Regular"
            var italic = false
            if style.lowercased().hasSuffix("italic") {
                italic = true
                style = String(style.dropLast("italic".count))
                if style.isEmpty { style = "Regular" }
            }
            guard let weight = FontWeight(styleName: style) else { continue }
            register(path: (directory as NSString).appendingPathComponent(name), family: family, weight: weight, italic: italic)
            count += 1
        }
        return count
    }

    /// The registered families.
    public var families: Set<String> { faces.withLock { Set($0.keys.map(\.family)) } }

    /// The file of the registered face nearest to `font`: same slant first, then the
    /// closest weight (heavier on ties, as CSS resolves bold).
    func path(for font: Font) throws(FontError) -> String {
        let candidates = faces.withLock { table in table.filter { $0.key.family == font.family } }
        guard !candidates.isEmpty else { throw FontError.noSuchFamily(font.family) }
        let best = candidates.min { a, b in
            let sa = a.key.italic == font.italic ? 0 : 1, sb = b.key.italic == font.italic ? 0 : 1
            if sa != sb { return sa < sb }
            let da = abs(a.key.weight.rawValue - font.weight.rawValue)
            let db = abs(b.key.weight.rawValue - font.weight.rawValue)
            if da != db { return da < db }
            return a.key.weight > b.key.weight
        }
        return best!.value
    }

    /// The open handle for a face at a pixel size, opening it (under the global lock) on first use.
    func handle(for font: Font, scale: CGFloat) throws(FontError) -> FontHandle {
        let path = try path(for: font)
        let pixelSize = max(1, Int((font.size * scale).rounded()))
        let key = HandleKey(path: path, pixelSize: pixelSize)
        return try handles.withLock { (table: inout [HandleKey: FontHandle]) throws(FontError) -> FontHandle in
            if let open = table[key] { return open }
            guard let ttf = TTF_OpenFont(path, Int32(pixelSize)) else {
                throw FontError.cannotOpen(path: path, reason: String(cString: SDL_GetError()))
            }
            let handle = FontHandle(font: ttf)
            table[key] = handle
            return handle
        }
    }

    /// Vertical metrics of a font at a scale, in points.
    public func metrics(of font: Font, scale: CGFloat = 1) throws(FontError) -> FontMetrics {
        let handle = try handle(for: font, scale: scale)
        return handle.withFont { ttf in
            FontMetrics(ascent: CGFloat(TTF_FontAscent(ttf)) / scale,
                        descent: CGFloat(-TTF_FontDescent(ttf)) / scale,
                        lineHeight: CGFloat(TTF_FontLineSkip(ttf)) / scale)
        }
    }

    /// The width in points of one line of text.
    public func width(of text: String, font: Font, scale: CGFloat = 1) throws(FontError) -> CGFloat {
        let handle = try handle(for: font, scale: scale)
        return handle.withFont { ttf in
            var w: Int32 = 0, h: Int32 = 0
            TTF_SizeUTF8(ttf, text, &w, &h)
            return CGFloat(w) / scale
        }
    }

    /// Draws one line of text into a new bitmap at `scale` pixels per point, anti-aliased,
    /// shaped by HarfBuzz through SDL_ttf. Safe on any thread.
    public func renderLine(_ text: String, font: Font, color: Color, scale: CGFloat = 1) throws(FontError) -> Bitmap {
        let handle = try handle(for: font, scale: scale)
        let rgba = color.rgba8
        let result: Result<Bitmap, FontError> = handle.withFont { ttf in
            let sdlColor = SDL_Color(r: rgba.r, g: rgba.g, b: rgba.b, a: 255)
            guard let rendered = TTF_RenderUTF8_Blended(ttf, text.isEmpty ? " " : text, sdlColor) else {
                return .failure(.renderFailed(String(cString: SDL_GetError())))
            }
            defer { SDL_FreeSurface(rendered) }
            guard let surface = SDL_ConvertSurfaceFormat(rendered, SDL_PIXELFORMAT_ABGR8888.rawValue, 0) else {
                return .failure(.renderFailed(String(cString: SDL_GetError())))
            }
            defer { SDL_FreeSurface(surface) }
            let w = Int(surface.pointee.w), h = Int(surface.pointee.h), pitch = Int(surface.pointee.pitch)
            var pixels = [UInt8](repeating: 0, count: w * h * 4)
            let src = surface.pointee.pixels!.assumingMemoryBound(to: UInt8.self)
            let alphaScale = Int(rgba.a)
            pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        let s = y * pitch + x * 4, d = (y * w + x) * 4
                        let a = (Int(src[s + 3]) * alphaScale + 127) / 255
                        dst[d] = UInt8((Int(src[s]) * a + 127) / 255)
                        dst[d + 1] = UInt8((Int(src[s + 1]) * a + 127) / 255)
                        dst[d + 2] = UInt8((Int(src[s + 2]) * a + 127) / 255)
                        dst[d + 3] = UInt8(a)
                    }
                }
            }
            return .success(Bitmap(width: w, height: h, scale: scale, pixels: pixels))
        }
        return try result.get()
    }
}

/// A font's vertical metrics in points.
public struct FontMetrics: Sendable, Equatable {
    public var ascent: CGFloat
    public var descent: CGFloat
    public var lineHeight: CGFloat
}

/// One open SDL_ttf font, used by one thread at a time.
final class FontHandle: Sendable {
    /// The C pointer, only dereferenced while `font`'s lock is held: that lock is what makes
    /// sharing the handle between threads safe, so the wrapper may claim Sendable.
    private struct Pointer: @unchecked Sendable { let raw: OpaquePointer }
    private let font: Mutex<Pointer>

    init(font: OpaquePointer) {
        self.font = Mutex(Pointer(raw: font))
    }

    func withFont<R>(_ body: (OpaquePointer) -> R) -> R {
        font.withLock { body($0.raw) }
    }
}
