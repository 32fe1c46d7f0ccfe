import Foundation
import Synchronization

/// A node that shows attributed text (Texture's `ASTextNode`), sized by its text.
///
/// - Text: `attributedText`, a Foundation `AttributedString` with CanopyGraphics' attributes
///   (`font`, `foregroundColor`, `kern`, `shadow`, `paragraphStyle`); text without a font or
///   colour uses `TextLayout.defaultFont` and `.defaultForegroundColor`.
/// - `maximumNumberOfLines` (0: no limit) and `truncationAttributedText` ("…" by default; the
///   attributes it lacks come from the text it follows) decide what a long text keeps; the
///   paragraph style's line-break mode decides where it is cut.
/// - `shadow` applies to all text that carries no shadow of its own. The node grows by the room
///   its shadows need (`shadowPadding`, Texture's), so they are not clipped; the text sits inside.
///
/// Layout (any thread): a leaf node measures its text with `TextLayout` in the width its size
/// range allows, in whole pixels at `DisplayScheduler.shared.scale` (the display's), through the
/// shared `TextLayoutCache`. Its `Layout` carries the first baseline as `ascender` and the last
/// as `descender` (Texture's sign: negative, the baseline sitting at height + descender), which
/// stacks aligning `baselineFirst` / `baselineLast` read. `isTruncated` and `lineCount` come from
/// the layout at the node's measured width.
///
/// Display: `drawParameters()` takes a snapshot of the text and of the layout measured at the
/// node's width; the worker draws that very layout (or, when the bounds or the scale no longer
/// match it, an equal one made there), so what is drawn is what was measured. The worker reaches
/// the text only through that snapshot.
///
/// Every property is behind the node's lock. Changing the text, the line limit, the truncation
/// text or the shadow invalidates layouts (`setNeedsLayout()`) and redisplays the node; setting a
/// value the node already has does nothing.
open class TextNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    private struct Settings {
        var attributedText = AttributedString()
        var truncationAttributedText = TextLayout.defaultTruncationString
        var maximumNumberOfLines = 0
        var shadow: TextShadow?
        var fonts: FontRegistry = .shared
        /// `attributedText` with `shadow` applied: what is laid out and drawn.
        var drawnText = AttributedString()
        var shadowPadding = EdgeInsets()
        /// Moves on with every change of what the text looks like.
        var generation: UInt64 = 0
        /// The latest layouts measured, newest first, for the current generation.
        var measurements: [TextLayout] = []
        /// Whether a layout has read the text: until then a change has no cached layout to
        /// invalidate (nodes configured before their first layout invalidate nothing).
        var wasMeasured = false
    }

    /// How many measured layouts a node keeps (a stack measures a child a few times).
    static let measurementCapacity = 4

    private let settings = Mutex(Settings())

    public override init() {
        super.init()
    }

    /// A text node showing `attributedText`.
    public convenience init(attributedText: AttributedString) {
        self.init()
        self.attributedText = attributedText
    }

    // MARK: Properties (any thread)

    /// The text shown.
    public var attributedText: AttributedString {
        get { settings.withLock { $0.attributedText } }
        set { change { $0.attributedText = newValue } }
    }

    /// What marks the cut when the text needs more than `maximumNumberOfLines` lines (default "…").
    public var truncationAttributedText: AttributedString {
        get { settings.withLock { $0.truncationAttributedText } }
        set { change { $0.truncationAttributedText = newValue } }
    }

    /// The most lines shown; 0 (the default) for no limit.
    public var maximumNumberOfLines: Int {
        get { settings.withLock { $0.maximumNumberOfLines } }
        set { change { $0.maximumNumberOfLines = max(0, newValue) } }
    }

    /// A shadow under all the text that has none of its own (nil, the default: none).
    public var shadow: TextShadow? {
        get { settings.withLock { $0.shadow } }
        set { change { $0.shadow = newValue } }
    }

    /// The fonts the text is measured and drawn with (default `FontRegistry.shared`).
    public var fonts: FontRegistry {
        get { settings.withLock { $0.fonts } }
        set {
            let changed = settings.withLock { settings -> Bool? in
                guard settings.fonts !== newValue else { return nil }
                settings.fonts = newValue
                settings.generation &+= 1
                settings.measurements.removeAll()
                return settings.wasMeasured
            }
            if let changed { invalidate(layout: changed) }
        }
    }

    /// The room around the text that its shadows need, in whole points: the node is this much
    /// bigger than its text, which is drawn inset by it.
    public var shadowPadding: EdgeInsets { settings.withLock { $0.shadowPadding } }

    /// Applies a change; if it changed anything, recomputes the drawn text and padding, forgets
    /// the measurements and invalidates layout and contents.
    private func change(_ body: (inout Settings) -> Void) {
        let changed = settings.withLock { settings -> Bool? in
            let before = (
                settings.attributedText, settings.truncationAttributedText,
                settings.maximumNumberOfLines, settings.shadow
            )
            body(&settings)
            guard
                before != (
                    settings.attributedText, settings.truncationAttributedText,
                    settings.maximumNumberOfLines, settings.shadow
                )
            else { return nil }
            settings.drawnText = Self.applying(settings.shadow, to: settings.attributedText)
            settings.shadowPadding = Self.padding(for: settings.drawnText, settings.truncationAttributedText)
            settings.generation &+= 1
            settings.measurements.removeAll()
            return settings.wasMeasured
        }
        if let changed { invalidate(layout: changed) }
    }

    /// New contents, and new layouts if any layout has read the old text.
    private func invalidate(layout: Bool) {
        if layout { setNeedsLayout() }
        setNeedsDisplay()
    }

    /// `text` with `shadow` set on every run that has no shadow.
    static func applying(_ shadow: TextShadow?, to text: AttributedString) -> AttributedString {
        guard let shadow else { return text }
        var result = text
        let bare = text.runs[AttributeScopes.CanopyAttributes.ShadowAttribute.self].filter { $0.0 == nil }.map(\.1)
        for range in bare { result[range].canopy.shadow = shadow }
        return result
    }

    /// Room for every shadow in the texts: its offset plus three blur radii (what the drawing's
    /// blur spreads ink over), rounded up to whole points.
    public static func padding(for texts: AttributedString...) -> EdgeInsets {
        var padding = EdgeInsets()
        for text in texts {
            for (shadow, _) in text.runs[AttributeScopes.CanopyAttributes.ShadowAttribute.self] {
                guard let shadow else { continue }
                let spread = shadow.blurRadius * 3
                let dx = shadow.offset.width.isFinite ? shadow.offset.width : 0
                let dy = shadow.offset.height.isFinite ? shadow.offset.height : 0
                padding.left = max(padding.left, (spread - dx).rounded(.up))
                padding.right = max(padding.right, (spread + dx).rounded(.up))
                padding.top = max(padding.top, (spread - dy).rounded(.up))
                padding.bottom = max(padding.bottom, (spread + dy).rounded(.up))
            }
        }
        return padding
    }

    // MARK: Measuring

    /// What a layout of the text depends on, read once under the lock.
    private struct TextConfiguration {
        let text: AttributedString
        let truncation: AttributedString
        let maximumNumberOfLines: Int
        let fonts: FontRegistry
        let padding: EdgeInsets
        let generation: UInt64

        /// The text laid out in `width` points (the node's width less the padding) at `scale`,
        /// through the shared cache; nil for empty text or a font that cannot be opened.
        func layout(textWidth: CGFloat, scale: CGFloat) -> TextLayout? {
            guard !text.characters.isEmpty else { return nil }
            let width = textWidth.isFinite ? max(0, textWidth) : .infinity
            return try? TextLayout.make(
                text, width: width, maximumNumberOfLines: maximumNumberOfLines,
                truncationString: truncation, scale: scale, fonts: fonts)
        }
    }

    /// The configuration now; `forLayout` marks the text as read by a layout (in the same lock,
    /// so a change made after it invalidates that layout).
    private func configuration(forLayout: Bool = false) -> TextConfiguration {
        settings.withLock {
            if forLayout { $0.wasMeasured = true }
            return TextConfiguration(
                text: $0.drawnText, truncation: $0.truncationAttributedText,
                maximumNumberOfLines: $0.maximumNumberOfLines, fonts: $0.fonts,
                padding: $0.shadowPadding, generation: $0.generation)
        }
    }

    /// Lays the text out for a node `width` points wide at the display scale and remembers the
    /// layout as a measurement (unless the text changed meanwhile). Any thread.
    private func measure(width: CGFloat) -> (TextLayout?, EdgeInsets) {
        let config = configuration(forLayout: true)
        let layout = config.layout(
            textWidth: width - config.padding.left - config.padding.right,
            scale: DisplayScheduler.shared.scale)
        if let layout {
            settings.withLock { settings in
                guard settings.generation == config.generation else { return }
                settings.measurements.removeAll { Self.sameKey($0, layout) }
                settings.measurements.insert(layout, at: 0)
                if settings.measurements.count > Self.measurementCapacity { settings.measurements.removeLast() }
            }
        }
        return (layout, config.padding)
    }

    private static func sameKey(_ a: TextLayout, _ b: TextLayout) -> Bool {
        a.scale == b.scale && (a.width == b.width || (!a.width.isFinite && !b.width.isFinite))
    }

    /// The text's size plus its shadow padding, for a node at most `constrainedSize.width` wide
    /// (zero for empty text). Any thread.
    open override func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        let (layout, padding) = measure(width: constrainedSize.width)
        guard let layout else { return .zero }
        return CGSize(
            width: layout.size.width + padding.left + padding.right,
            height: layout.size.height + padding.top + padding.bottom)
    }

    /// A leaf's layout: the text's size in the range, with its first and last baselines as the
    /// layout's `ascender` and `descender`. A node given a layout spec lays out as any node.
    /// Any thread.
    open override func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        guard layoutSpecThatFits(constrainedSize) === NoLayoutSpec.shared else {
            return super.calculateLayoutThatFits(constrainedSize)
        }
        let (layout, padding) = measure(width: constrainedSize.max.width)
        guard let layout, layout.lineCount > 0 else {
            return Layout(element: self, size: constrainedSize.clamp(.zero))
        }
        var size = CGSize(
            width: layout.size.width + padding.left + padding.right,
            height: layout.size.height + padding.top + padding.bottom)
        size = constrainedSize.clamp(size)
        if !size.width.isFinite { size.width = 0 }
        if !size.height.isFinite { size.height = 0 }
        return Layout(
            element: self, size: size,
            ascender: padding.top + layout.firstBaseline,
            descender: padding.top + layout.lastBaseline - size.height)
    }

    // MARK: The layout at the node's width

    /// Whether the text was cut short to fit `maximumNumberOfLines`, in the layout at the node's
    /// measured width: its frame's width once it has one, else its latest measurement's. False
    /// before the node is measured or sized. Any thread.
    public var isTruncated: Bool { currentLayout()?.isTruncated ?? false }

    /// The number of lines in the layout at the node's measured width (see `isTruncated`); 0
    /// before the node is measured or sized, and for empty text. Any thread.
    public var lineCount: Int { currentLayout()?.lineCount ?? 0 }

    /// The text layout at the node's measured width: a measurement with the same lines as the
    /// layout at the frame's width when there is one, else that layout, made now (any thread);
    /// without a frame, the latest measurement.
    func currentLayout() -> TextLayout? {
        let width = frame.width
        let (measurements, padding) = settings.withLock { ($0.measurements, $0.shadowPadding) }
        guard width > 0 else { return measurements.first }
        let textWidth = width - padding.left - padding.right
        let scale = DisplayScheduler.shared.scale
        if let match = measurements.first(where: { $0.scale == scale && Self.hasSameLines($0, atWidth: textWidth) }) {
            return match
        }
        return configuration().layout(textWidth: textWidth, scale: scale)
    }

    /// Whether `layout` breaks its lines as a layout `width` points wide would: its widest line
    /// fits that width, which is no wider than the one it was made in (greedy breaking, and the
    /// truncation's longest fitting prefix, then choose the same). Compared in whole pixels, as
    /// TextLayout measures.
    static func hasSameLines(_ layout: TextLayout, atWidth width: CGFloat) -> Bool {
        guard let pixels = availablePixels(width, scale: layout.scale) else {
            return availablePixels(layout.width, scale: layout.scale) == nil
        }
        let widest = Int((layout.size.width * layout.scale).rounded())
        let made = availablePixels(layout.width, scale: layout.scale) ?? Int.max
        return widest <= pixels && pixels <= made
    }

    /// Whether drawing `layout` in a box `width` points wide puts every line where a layout made
    /// in that width would: same lines, and the same box to align them in (or lines that all
    /// start at the left, which the box does not move).
    static func drawsLikeLayout(_ layout: TextLayout, atWidth width: CGFloat) -> Bool {
        guard hasSameLines(layout, atWidth: width) else { return false }
        let pixels = availablePixels(width, scale: layout.scale)
        let widest = Int((layout.size.width * layout.scale).rounded())
        let box = availablePixels(layout.width, scale: layout.scale) ?? widest
        return pixels == box || (pixels == nil && box == widest) || layout.lines.allSatisfy { $0.origin.x == 0 }
    }

    /// TextLayout's line width in pixels for `width` points, nil when unlimited.
    private static func availablePixels(_ width: CGFloat, scale: CGFloat) -> Int? {
        let pixels = width * scale
        if pixels.isNaN || pixels >= CGFloat(Int32.max) { return nil }
        return max(0, Int((pixels + 1e-6).rounded(.down)))
    }

    // MARK: Display

    /// The text, its options and the layout measured at the node's width (if any). Main thread;
    /// it lays nothing out.
    @MainActor
    open func drawParameters() -> Parameters {
        let size = bounds.size
        let (config, measurements) = settings.withLock { settings in
            (
                TextConfiguration(
                    text: settings.drawnText, truncation: settings.truncationAttributedText,
                    maximumNumberOfLines: settings.maximumNumberOfLines, fonts: settings.fonts,
                    padding: settings.shadowPadding, generation: settings.generation),
                settings.measurements
            )
        }
        let textWidth = size.width - config.padding.left - config.padding.right
        let measured = measurements.first { Self.drawsLikeLayout($0, atWidth: textWidth) }
        return Parameters(
            text: config.text, truncation: config.truncation,
            maximumNumberOfLines: config.maximumNumberOfLines, fonts: config.fonts,
            padding: config.padding, boundsSize: size, measured: measured,
            traceLabel: Tracer.shared.isRecording ? traceLabel : nil)
    }

    /// The immutable snapshot a worker draws from: the text, its options and the layout measured
    /// at the node's width. Opaque outside Canopy: a subclass passes it on to `super`.
    public struct Parameters: Sendable {
        let text: AttributedString
        let truncation: AttributedString
        let maximumNumberOfLines: Int
        let fonts: FontRegistry
        let padding: EdgeInsets
        /// The node's size when the snapshot was taken.
        let boundsSize: CGSize
        /// The layout measured at the node's width, when there is one.
        let measured: TextLayout?
        /// The node's name in a trace, when one was recording at the snapshot.
        let traceLabel: String?

        /// The layout to draw at `scale`: the measured one when it fits the bounds, else one made
        /// now in the same way.
        func layout(scale: CGFloat) -> TextLayout? {
            let textWidth = boundsSize.width - padding.left - padding.right
            if let measured, measured.scale == scale, TextNode.drawsLikeLayout(measured, atWidth: textWidth) {
                return measured
            }
            let config = TextConfiguration(
                text: text, truncation: truncation, maximumNumberOfLines: maximumNumberOfLines,
                fonts: fonts, padding: padding, generation: 0)
            return config.layout(textWidth: textWidth, scale: scale)
        }
    }

    /// The text drawn into a context of the bounds (`ContentDrawing`'s way), declared here so
    /// that a subclass can make its bitmap otherwise. Worker thread.
    open class func display(
        _ p: Parameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap? {
        displayByDrawing(p, size: size, scale: scale, isCancelled: isCancelled)
    }

    /// Draws the text's layout at the top left of the bounds, inset by the shadow padding.
    /// Worker thread (or the main thread for a node that does not display asynchronously).
    open class func draw(
        _ p: Parameters, in context: GraphicsContext,
        isCancelled: @Sendable () -> Bool
    ) {
        guard !isCancelled() else { return }
        Tracer.shared.measure("text \(p.traceLabel ?? "TextNode")", category: "text") {
            guard let layout = p.layout(scale: context.scale), !isCancelled() else { return }
            layout.draw(in: context, at: CGPoint(x: p.padding.left, y: p.padding.top))
        }
    }
}
