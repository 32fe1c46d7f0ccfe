import CSDL2
import CSDL2TTF
import Foundation
import Synchronization

/// Why text could not be drawn.
public enum FontError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchFamily(String)
    /// Text asked for the default family (`Font.defaultFamily`) of a registry that has none.
    case noDefaultFamily
    case cannotOpen(path: String, reason: String)
    case renderFailed(String)

    public var description: String {
        switch self {
        case .noSuchFamily(let family): return "no font of the family \"\(family)\" is registered"
        case .noDefaultFamily: return "no font is registered, so there is no default family"
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
    /// A font file and the face in it (collections, .ttc, hold several).
    struct FaceFile: Hashable { var path: String; var index: Int }
    private struct HandleKey: Hashable { var file: FaceFile; var pixelSize: Int }

    private struct Faces {
        var paths: [FaceKey: FaceFile] = [:]
        /// The family chosen as the default, if the app chose one.
        var defaultFamily: String?
        /// The first family registered: the default until the app chooses one.
        var firstFamily: String?
        /// The fallback faces registered so far, first chosen first.
        var fallbacks: [FaceKey] = []
    }
    private let faces = Mutex(Faces())
    /// The open fonts of every registry, by file and pixel size, behind the one global lock
    /// under which every TTF_OpenFont happens (SDL_ttf shares one FreeType library between
    /// all fonts). Registries that name the same file share its handles.
    private static let openFonts = Mutex<[HandleKey: FontHandle]>([:])
    /// The largest pixel size a font is opened at.
    static let maximumPixelSize = 4096

    public init() {}

    /// Registers a font file for a family, weight and slant.
    public func register(path: String, family: String, weight: FontWeight, italic: Bool = false) {
        faces.withLock {
            $0.paths[FaceKey(family: family, weight: weight, italic: italic)] = FaceFile(path: path, index: 0)
            if $0.firstFamily == nil { $0.firstFamily = family }
        }
    }

    /// The font that draws `scalar` in place of `font` when `font` lacks it: the system's face
    /// for it (`FontFallback`, through fontconfig), registered here as a family of its own
    /// ("Noto Sans CJK JP (fallback)"), at `font`'s size, weight and slant. Nil when no installed
    /// font has the character (it then shows as `font`'s missing-glyph box). Any thread.
    func fallbackFont(for scalar: UInt32, like font: Font) -> Font? {
        guard FontFallback.isEnabled else { return nil }
        // A fallback face already in use that has the character (a CJK text's next ideograph)
        // answers without asking fontconfig, whose queries run one at a time.
        let known = faces.withLock { $0.fallbacks.filter { $0.weight == font.weight && $0.italic == font.italic } }
        for candidate in known {
            let reused = Font(family: candidate.family, size: font.size, weight: font.weight, italic: font.italic)
            // Emoji only from a colour (bitmap) face, other characters only from an outline one.
            if let handle = try? handle(for: reused, scale: 1), (handle.bitmapScale != 1) == FontFallback.isEmoji(scalar),
                handle.provides(scalar)
            {
                return reused
            }
        }
        guard let face = FontFallback.face(for: scalar, weight: font.weight, italic: font.italic) else { return nil }
        let family = "\(face.family) (fallback: \(face.path) #\(face.index))"
        faces.withLock {
            // Every weight and slant resolves to the face fontconfig chose for this one.
            let key = FaceKey(family: family, weight: font.weight, italic: font.italic)
            if $0.paths[key] == nil {
                $0.paths[key] = FaceFile(path: face.path, index: face.index)
                $0.fallbacks.append(key)
            }
        }
        return Font(family: family, size: font.size, weight: font.weight, italic: font.italic)
    }

    /// The family of `Font.defaultFamily` (and so of `TextLayout.defaultFont`, the text that names
    /// no font): the one the app sets here, or until it sets one the first family registered.
    /// CanopyGraphics itself names no family. Set it before text is laid out: layouts already
    /// made keep the family they measured with.
    public var defaultFamily: String? {
        get { faces.withLock { $0.defaultFamily ?? $0.firstFamily } }
        set { faces.withLock { $0.defaultFamily = newValue } }
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
    public var families: Set<String> { faces.withLock { Set($0.paths.keys.map(\.family)) } }

    /// The file of the registered face nearest to `font`: same slant first, then the
    /// closest weight (heavier on ties, as CSS resolves bold).
    func path(for font: Font) throws(FontError) -> FaceFile {
        let resolved = faces.withLock { faces -> (family: String?, candidates: [FaceKey: FaceFile]) in
            let family = font.family == Font.defaultFamily ? faces.defaultFamily ?? faces.firstFamily : font.family
            return (family, faces.paths.filter { $0.key.family == family })
        }
        guard let family = resolved.family else { throw FontError.noDefaultFamily }
        let candidates = resolved.candidates
        guard !candidates.isEmpty else { throw FontError.noSuchFamily(family) }
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
        let file = try path(for: font)
        let requested = font.size * scale
        let pixelSize = requested.isFinite ? min(Self.maximumPixelSize, max(1, Int(requested.rounded()))) : 16
        let key = HandleKey(file: file, pixelSize: pixelSize)
        return try Self.openFonts.withLock { (table: inout [HandleKey: FontHandle]) throws(FontError) -> FontHandle in
            if let open = table[key] { return open }
            guard let ttf = TTF_OpenFontIndex(file.path, Int32(pixelSize), file.index) else {
                throw FontError.cannotOpen(path: file.path, reason: String(cString: SDL_GetError()))
            }
            let handle = FontHandle(font: ttf, pixelSize: pixelSize)
            table[key] = handle
            return handle
        }
    }

    /// Vertical metrics of a font at a scale, in points (those its handle read when it opened).
    public func metrics(of font: Font, scale: CGFloat = 1) throws(FontError) -> FontMetrics {
        let handle = try handle(for: font, scale: scale)
        return FontMetrics(
            ascent: CGFloat(handle.ascent) / scale, descent: CGFloat(handle.descent) / scale,
            lineHeight: CGFloat(handle.lineSkip) / scale)
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
    /// The C pointer, only dereferenced while `state`'s lock is held: that lock is what makes
    /// sharing the handle between threads safe, so the wrapper may claim Sendable.
    private struct Pointer: @unchecked Sendable { let raw: OpaquePointer }
    /// The font and a table of glyph advances (pixels, -1 = not looked up yet) for the first
    /// `advanceTableSize` code points, both guarded by the one lock of this font.
    private struct State: Sendable {
        let pointer: Pointer
        var advances: [Int16]
    }
    private static let advanceTableSize = 0x2100
    private let state: Mutex<State>

    /// Vertical metrics in pixels, read once when the font is opened: ascent above the baseline,
    /// descent below it (positive), `height` = the height SDL_ttf renders a line with, `lineSkip`
    /// = the distance between baselines.
    let ascent: Int
    let descent: Int
    let height: Int
    let lineSkip: Int
    /// For a font of fixed-size bitmaps (a colour emoji font's single strike, 109 pixels high,
    /// whatever size is asked): the factor its glyphs are shrunk by to the size asked for; 1 for
    /// scalable fonts. Widths, advances and metrics are reported shrunk, and renders shrunk.
    let bitmapScale: CGFloat

    /// Called under the registry's global open lock, before any other thread can see `font`.
    init(font: OpaquePointer, pixelSize: Int = 0) {
        let fontHeight = Int(TTF_FontHeight(font))
        // FreeType picks the nearest strike of a bitmap font; a line far taller than the size
        // asked for is one (scalable fonts' lines are 1.2 to 1.5 times it): shrink it to a line
        // of about 1.2 times that size.
        let shrink: CGFloat =
            pixelSize > 0 && fontHeight * 10 > pixelSize * 16 ? CGFloat(pixelSize) * 1.2 / CGFloat(fontHeight) : 1
        func scaled(_ value: Int32) -> Int { Int((CGFloat(value) * shrink).rounded()) }
        bitmapScale = shrink
        ascent = scaled(TTF_FontAscent(font))
        descent = scaled(-TTF_FontDescent(font))
        height = scaled(TTF_FontHeight(font))
        lineSkip = scaled(TTF_FontLineSkip(font))
        state = Mutex(State(pointer: Pointer(raw: font), advances: []))
    }

    func withFont<R>(_ body: (OpaquePointer) -> R) -> R {
        state.withLock { body($0.pointer.raw) }
    }

    /// Calls `body` with the font locked and a function that returns a code point's advance in
    /// pixels (0 for code points the font cannot measure). Used for quick width estimates.
    func withAdvances(_ body: ((UInt32) -> Int) -> Void) {
        state.withLock { (state: inout State) in
            if state.advances.isEmpty {
                state.advances = [Int16](repeating: -1, count: FontHandle.advanceTableSize)
            }
            let ttf = state.pointer.raw
            state.advances.withUnsafeMutableBufferPointer { table in
                body { scalar in
                    if scalar < UInt32(FontHandle.advanceTableSize) {
                        let cached = table[Int(scalar)]
                        if cached >= 0 { return Int(cached) }
                    }
                    var advance: Int32 = 0
                    if TTF_GlyphMetrics32(ttf, scalar, nil, nil, nil, nil, &advance) != 0 { advance = 0 }
                    if bitmapScale != 1 { advance = Int32((CGFloat(advance) * bitmapScale).rounded()) }
                    if scalar < UInt32(FontHandle.advanceTableSize) {
                        table[Int(scalar)] = Int16(clamping: advance)
                    }
                    return Int(advance)
                }
            }
        }
    }

    /// Runs `body` with the font locked and shaping set up for `direction`; restores the
    /// font's default direction and script afterwards, so other users of the font see no change.
    private func withShaping<R>(_ direction: ShapingDirection, _ body: (OpaquePointer) -> R) -> R {
        withFont { ttf in
            switch direction {
            case .leftToRight:
                return body(ttf)
            case .rightToLeft(let script):
                TTF_SetFontDirection(ttf, TTF_DIRECTION_RTL)
                TTF_SetFontScriptName(ttf, script.rawValue)
                defer {
                    TTF_SetFontDirection(ttf, TTF_DIRECTION_LTR)
                    TTF_SetFontScriptName(ttf, "Zzzz")  // HarfBuzz's "unknown", SDL_ttf's default
                }
                return body(ttf)
            }
        }
    }

    /// Whether the font has a glyph of its own for `scalar` (not its missing-glyph box).
    func provides(_ scalar: UInt32) -> Bool {
        withFont { TTF_GlyphIsProvided32($0, scalar) != 0 }
    }

    /// The width in pixels of the bitmap `renderMask` makes of `text` (nul-terminated UTF-8):
    /// the shaped glyphs' advances and ink, as TTF_SizeUTF8 reports it.
    func width(ofCString text: UnsafePointer<CChar>, direction: ShapingDirection) -> Int {
        withShaping(direction) { ttf in
            var w: Int32 = 0, h: Int32 = 0
            if TTF_SizeUTF8(ttf, text, &w, &h) != 0 { return 0 }
            return bitmapScale == 1 ? Int(w) : Int((CGFloat(w) * bitmapScale).rounded())
        }
    }

    /// Renders `text` white with SDL_ttf's blended (anti-aliased) renderer and returns it as a
    /// premultiplied white mask (every channel = coverage) with the baseline's distance from the
    /// mask's top in pixels. Nil when there is nothing to draw (empty text) or SDL_ttf fails.
    func renderMask(_ text: String, direction: ShapingDirection, scale: CGFloat) -> RenderedMask? {
        guard !text.isEmpty else { return nil }
        return withShaping(direction) { ttf -> RenderedMask? in
            let white = SDL_Color(r: 255, g: 255, b: 255, a: 255)
            guard var surface = TTF_RenderUTF8_Blended(ttf, text, white) else { return nil }
            if surface.pointee.format.pointee.format != SDL_PIXELFORMAT_ARGB8888.rawValue {
                guard let converted = SDL_ConvertSurfaceFormat(surface, SDL_PIXELFORMAT_ARGB8888.rawValue, 0) else {
                    SDL_FreeSurface(surface)
                    return nil
                }
                SDL_FreeSurface(surface)
                surface = converted
            }
            defer { SDL_FreeSurface(surface) }
            let w = Int(surface.pointee.w), h = Int(surface.pointee.h), pitch = Int(surface.pointee.pitch)
            guard w > 0, h > 0, let base = surface.pointee.pixels else { return nil }
            var pixels = [UInt8](repeating: 0, count: w * h * 4)
            // A colour glyph (FreeType's colour bitmaps or layers) comes out in its own colours
            // though drawn white: keep them, premultiplied, beside the coverage mask.
            var colors: [UInt8]?
            pixels.withUnsafeMutableBytes { out in
                let dst = out.baseAddress!.assumingMemoryBound(to: UInt32.self)
                for y in 0..<h {
                    let src = (base + y * pitch).assumingMemoryBound(to: UInt32.self)
                    let row = dst + y * w
                    for x in 0..<w {
                        // ARGB8888: alpha is the top byte; white premultiplied is (a, a, a, a).
                        let value = src[x]
                        row[x] = (value >> 24) &* 0x0101_0101
                        if colors == nil, value >> 24 != 0, value & 0x00FF_FFFF != 0x00FF_FFFF {
                            colors = Self.premultipliedRGBA(base: base, pitch: pitch, width: w, height: h)
                        }
                    }
                }
            }
            // The baseline lies `ascent` below the top unless a glyph reaches above the ascent,
            // in which case SDL_ttf grows the bitmap upwards (its "ystart").
            var baseline = ascent
            if h != height {
                var top = 0, bottom = height
                for scalar in text.unicodeScalars {
                    var minY: Int32 = 0, maxY: Int32 = 0
                    if TTF_GlyphMetrics32(ttf, scalar.value, nil, nil, &minY, &maxY, nil) == 0 {
                        top = max(top, Int(maxY) - ascent)
                        bottom = max(bottom, ascent - Int(minY))
                    }
                }
                baseline = ascent + (top + bottom == h ? top : max(0, h - bottom))
            }
            var mask = RenderedMask(
                bitmap: Bitmap(width: w, height: h, scale: scale, pixels: pixels), baseline: baseline,
                colors: colors.map { Bitmap(width: w, height: h, scale: scale, pixels: $0) })
            if bitmapScale != 1 { mask = mask.shrunk(by: bitmapScale) }
            return mask
        }
    }

    /// An ARGB8888 surface's pixels as premultiplied RGBA.
    private static func premultipliedRGBA(base: UnsafeMutableRawPointer, pitch: Int, width: Int, height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let src = (base + y * pitch).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let v = src[x], a = v >> 24
                let i = (y * width + x) * 4
                out[i] = UInt8((((v >> 16) & 0xFF) * a + 127) / 255)
                out[i + 1] = UInt8((((v >> 8) & 0xFF) * a + 127) / 255)
                out[i + 2] = UInt8(((v & 0xFF) * a + 127) / 255)
                out[i + 3] = UInt8(a)
            }
        }
        return out
    }
}

/// How HarfBuzz is told to shape a piece of text.
enum ShapingDirection: Hashable, Sendable {
    case leftToRight
    case rightToLeft(ShapingScript)
}

/// The ISO 15924 scripts right-to-left text is shaped as.
enum ShapingScript: String, Hashable, Sendable {
    case arabic = "Arab"
    case hebrew = "Hebr"
}

/// A white coverage mask of a piece of text and where its baseline lies.
struct RenderedMask: Sendable {
    var bitmap: Bitmap
    /// Pixels from the top of `bitmap` to the baseline.
    var baseline: Int
    /// The glyphs' own colours (premultiplied), for colour glyphs (emoji); nil for plain ones,
    /// drawn in the text's colour through `bitmap`.
    var colors: Bitmap? = nil

    /// Both bitmaps shrunk by `factor` (0 < factor < 1), area-averaged, and the baseline with them.
    func shrunk(by factor: CGFloat) -> RenderedMask {
        let width = max(1, Int((CGFloat(bitmap.width) * factor).rounded()))
        let height = max(1, Int((CGFloat(bitmap.height) * factor).rounded()))
        func shrink(_ image: Bitmap) -> Bitmap {
            Resampler.resize(image, toPixelWidth: width, pixelHeight: height).withScale(image.scale)
        }
        return RenderedMask(
            bitmap: shrink(bitmap), baseline: Int((CGFloat(baseline) * factor).rounded()), colors: colors.map(shrink))
    }
}

/// The box of one glyph at a size, in points (y up from the baseline), as SDL_ttf reports it.
public struct GlyphMetrics: Sendable, Equatable {
    public var minX: CGFloat
    public var maxX: CGFloat
    public var minY: CGFloat
    public var maxY: CGFloat
    public var advance: CGFloat
}

extension FontRegistry {
    /// Draws one line of text as a white coverage mask (premultiplied, every channel = alpha) at
    /// `scale` pixels per point, for `GraphicsContext.fill(mask:in:with:)`. The mask is exactly
    /// `width(of:font:scale:) * scale` pixels wide; the baseline lies `metrics(of:).ascent` below
    /// its top unless a glyph reaches higher. Safe on any thread.
    public func renderMask(_ text: String, font: Font, scale: CGFloat = 1) throws(FontError) -> Bitmap {
        let handle = try handle(for: font, scale: scale)
        guard let mask = handle.renderMask(text.isEmpty ? " " : text, direction: .leftToRight, scale: scale) else {
            throw FontError.renderFailed(String(cString: SDL_GetError()))
        }
        return mask.bitmap
    }

    /// One code point's glyph box and advance in points, or nil if SDL_ttf cannot load it.
    /// Safe on any thread.
    public func glyphMetrics(of scalar: Unicode.Scalar, font: Font, scale: CGFloat = 1) throws(FontError) -> GlyphMetrics? {
        let handle = try handle(for: font, scale: scale)
        return handle.withFont { ttf -> GlyphMetrics? in
            var minX: Int32 = 0, maxX: Int32 = 0, minY: Int32 = 0, maxY: Int32 = 0, advance: Int32 = 0
            guard TTF_GlyphMetrics32(ttf, scalar.value, &minX, &maxX, &minY, &maxY, &advance) == 0 else { return nil }
            return GlyphMetrics(
                minX: CGFloat(minX) / scale, maxX: CGFloat(maxX) / scale,
                minY: CGFloat(minY) / scale, maxY: CGFloat(maxY) / scale,
                advance: CGFloat(advance) / scale)
        }
    }
}
