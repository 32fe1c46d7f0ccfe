import Foundation
import Synchronization

/// Attributed text broken into lines in a width, at a pixel scale, ready to draw.
///
/// A TextLayout is an immutable value: make it on any thread (it measures with SDL_ttf through
/// a `FontRegistry`, which locks each font while it uses it), keep it, draw it later on another.
///
/// Lines break at word boundaries (after spaces, and after hyphens); a word too long for a line
/// on its own is broken between characters (grapheme clusters). Explicit newlines end paragraphs;
/// an empty paragraph (two newlines in a row, or a newline at the end) is an empty line. Spaces
/// where a line breaks hang past its end: they are neither measured nor drawn.
///
/// Everything is measured in whole pixels of the fonts opened at `font.size * scale` pixels, and
/// measured by the very pieces of text (segments) that `draw(in:at:)` renders, so the sizes here
/// are what is drawn, to the pixel.
///
/// Direction: each paragraph's embedding levels come from the Unicode Bidirectional Algorithm
/// (UAX #9, bracket pairs included, through FriBiDi): a segment is one level, shaped by SDL_ttf's
/// HarfBuzz right to left when the level is odd (which mirrors brackets), and a line's segments
/// are placed in the algorithm's order (L2), so numbers inside right-to-left text read left to
/// right and explicit embeddings and isolates work. A character no font in use has is drawn
/// with a system font that has it (font fallback, `FontRegistry.fallbackFont`), colour emoji
/// included; one no installed font has shows the missing-glyph box (`missingGlyphs`).
public struct TextLayout: Sendable {
    /// The font of text that has none: 16 points of the registry's default family.
    public static let defaultFont = Font.default(size: 16)
    /// The colour of text that has none.
    public static let defaultForegroundColor = Color.black
    /// "…". Attributes it lacks come from the text it follows.
    public static let defaultTruncationString = AttributedString("\u{2026}")

    /// The text laid out.
    public let attributedString: AttributedString
    /// The width the lines were broken in, in points (`.infinity` or `.greatestFiniteMagnitude`:
    /// no wrapping).
    public let width: CGFloat
    /// Pixels per point.
    public let scale: CGFloat
    /// The most lines kept (0 = no limit).
    public let maximumNumberOfLines: Int
    /// What ends (or starts, or sits in the middle of) a truncated last line.
    public let truncationString: AttributedString
    /// The lines, top to bottom.
    public let lines: [Line]
    /// The width of the widest line and the height of all lines (with line spacing between them),
    /// in points. Zero for empty text.
    public let size: CGSize
    /// True when text was left out because it needed more than `maximumNumberOfLines` lines.
    public let isTruncated: Bool
    /// The characters that show as a missing-glyph box: neither the text's fonts nor any font
    /// installed on the machine (`FontFallback`, through fontconfig) has them. In order of first
    /// appearance; empty when everything is drawn.
    public let missingGlyphs: [Unicode.Scalar]

    /// The registry the layout measured with; drawing renders with the same fonts.
    let fonts: FontRegistry
    /// Distinguishes layouts computed separately (for the cache's tests).
    let identifier: UInt64
    private static let identifiers = Atomic<UInt64>(0)

    /// The number of lines.
    public var lineCount: Int { lines.count }
    /// The first line's baseline, in points from the top (0 without lines).
    public var firstBaseline: CGFloat { lines.first?.baseline ?? 0 }
    /// The last line's baseline, in points from the top (0 without lines).
    public var lastBaseline: CGFloat { lines.last?.baseline ?? 0 }

    /// One line of a layout.
    public struct Line: Sendable {
        /// The characters of the attributed string the line shows (a truncated line: the ones it
        /// keeps; the middle-truncated: from its first to its last), with the spaces hanging at its
        /// end and its paragraph's newline.
        public let range: Range<AttributedString.Index>
        /// The text drawn, truncation string included, in logical order.
        public let text: String
        /// The top-left corner of the line's box, in points from the layout's top-left.
        public let origin: CGPoint
        /// The width of what is drawn, in points.
        public let width: CGFloat
        /// The line's height: its fonts' largest ascent plus their largest line-height below it.
        public let height: CGFloat
        /// The baseline, in points from the layout's top.
        public let baseline: CGFloat
        /// The pieces drawn, left to right.
        public let segments: [Segment]
        /// True for a last line shortened to fit a truncation string (or cut, when clipping).
        public let isTruncated: Bool

        /// The line's box in the layout.
        public var frame: CGRect { CGRect(origin: origin, size: CGSize(width: width, height: height)) }
    }

    /// A piece of a line drawn in one go: one font, colour, shadow and kern, one direction.
    public struct Segment: Sendable {
        /// The text of the segment.
        public let text: String
        public let font: Font
        public let color: Color
        public let shadow: TextShadow?
        public let kern: CGFloat
        /// True when it was shaped right to left.
        public let isRightToLeft: Bool
        /// True when it holds the truncation string (alone, or after the kept text when both
        /// have the same attributes and are shaped together).
        public let containsTruncationString: Bool
        /// The left end of the segment on the baseline, in points from the layout's top-left.
        public var origin: CGPoint { CGPoint(x: CGFloat(pixelX) / scale, y: CGFloat(pixelBaseline) / scale) }
        /// The width in points.
        public var width: CGFloat { CGFloat(pixelWidth) / scale }

        let scale: CGFloat
        let pixelX: Int
        let pixelBaseline: Int
        let pixelWidth: Int
        let handle: FontHandle
        let direction: ShapingDirection
        /// For kerned segments, the clusters drawn one by one with their x in pixels from the
        /// segment's left; empty when the whole text is drawn at once.
        let pieces: [(text: String, x: Int)]
    }

    /// Lays out `string` in `width` points at `scale` pixels per point (no cache; see `make`).
    ///
    /// - Parameters:
    ///   - maximumNumberOfLines: the most lines kept, 0 for no limit. When text is left over, the
    ///     last kept line is truncated as its paragraph's line-break mode says.
    ///   - truncationString: what marks the cut, "…" by default; attributes it lacks (font,
    ///     colour, shadow) are taken from the text next to the cut.
    /// - Throws: `FontError` if a font is not registered or cannot be opened.
    public init(
        _ string: AttributedString, width: CGFloat, maximumNumberOfLines: Int = 0,
        truncationString: AttributedString? = nil, scale: CGFloat = 1,
        fonts: FontRegistry = .shared
    ) throws(FontError) {
        let scale = scale > 0 && scale.isFinite ? scale : 1
        let truncation = truncationString ?? TextLayout.defaultTruncationString
        let builder = try TextLayoutBuilder(
            string: string, width: width, scale: scale,
            maximumNumberOfLines: max(0, maximumNumberOfLines),
            truncationString: truncation, fonts: fonts)
        let result = try builder.build()
        self.attributedString = string
        self.width = width
        self.scale = scale
        self.maximumNumberOfLines = max(0, maximumNumberOfLines)
        self.truncationString = truncation
        self.lines = result.lines
        self.size = result.size
        self.isTruncated = result.isTruncated
        self.missingGlyphs = result.missingGlyphs
        self.fonts = fonts
        self.identifier = TextLayout.identifiers.add(1, ordering: .relaxed).newValue
    }

    /// The layout for these arguments from `cache` (the shared one by default), laid out and
    /// remembered on a miss. Safe on any thread.
    public static func make(
        _ string: AttributedString, width: CGFloat, maximumNumberOfLines: Int = 0,
        truncationString: AttributedString? = nil, scale: CGFloat = 1,
        fonts: FontRegistry = .shared,
        cache: TextLayoutCache = .shared
    ) throws(FontError) -> TextLayout {
        let key = TextLayoutCache.Key(
            string: string, width: width, maximumNumberOfLines: max(0, maximumNumberOfLines),
            truncationString: truncationString ?? defaultTruncationString,
            scale: scale, fonts: ObjectIdentifier(fonts))
        if let hit = cache.layout(for: key) { return hit }
        let layout = try TextLayout(
            string, width: width, maximumNumberOfLines: maximumNumberOfLines,
            truncationString: truncationString, scale: scale, fonts: fonts)
        cache.insert(layout, for: key)
        return layout
    }
}
