import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// The card collection on screen: the tutorial's column grid in a scrolling viewport, one
/// layer per visible card, and the overlay scrollbar. Cards are placeholders (grey 0.85 with
/// the animal's name) until the node layer draws their content.
@MainActor
final class Viewer {
    static let placeholderColor = Color(white: 0.85)
    static let placeholderTextColor = Color(white: 0.35)
    static let nameFont = Font(family: "Lato", size: 22, weight: .bold)
    static let noteFont = Font(family: "Lato", size: 13, weight: .regular)

    let deck: CardDeck
    let heights: [CGFloat]
    let columnLayout = ColumnLayout()
    private(set) var layout: ColumnLayout.Result
    var scroll = ScrollController()
    /// When set, the scroll offset follows this script instead of input (the benchmark).
    var scriptedOffset: ((TimeInterval) -> CGFloat)?

    private let app: Application
    private let fonts: FontRegistry
    private let viewportLayer = Layer()
    private let contentLayer = Layer()
    private let scrollbarLayer = Layer()
    private var cardLayers: [Int: Layer] = [:]
    private var textBitmaps: [String: Bitmap] = [:]
    private var textScale: CGFloat = 0
    /// Set by a resize: the grid is laid out again once, in the next layout phase, keeping
    /// this place (taken from the layout the reader saw).
    private var pendingRelayout: ColumnLayout.Anchor??

    init(app: Application, deck: CardDeck, fonts: FontRegistry = .shared) {
        self.app = app
        self.deck = deck
        self.fonts = fonts
        heights = deck.heights
        layout = columnLayout.layout(heights: heights, width: app.size.width)
        viewportLayer.clipsToBounds = true
        viewportLayer.name = "viewport"
        contentLayer.name = "content"
        viewportLayer.addSublayer(contentLayer)
        scrollbarLayer.name = "scrollbar"
        scrollbarLayer.backgroundColor = Color(white: 0.55)
        app.rootLayer.setSublayers([viewportLayer, scrollbarLayer])
        applyGeometry()
        app.runLoop.addObserver(.layout) { [unowned self] turn in self.update(turn) }
    }

    /// The number of items in the collection.
    var itemCount: Int { heights.count }

    /// The indices of the items inside the viewport now.
    var visibleIndices: [Int] {
        layout.indices(intersecting: CGRect(x: 0, y: scroll.offset, width: app.size.width, height: app.size.height))
    }

    /// Whether every visible card shows all it can show yet (its placeholder, for now).
    var isDisplayComplete: Bool {
        visibleIndices.allSatisfy { index in
            cardLayers[index].map { $0.sublayers.first?.contents != nil && LayerAnimator.isPresented($0) } ?? false
        }
    }

    /// Jumps to an offset (clamped), with no animation.
    func scroll(to offset: CGFloat) {
        scroll.physics.setOffset(offset, at: MonotonicClock.now())
        app.runLoop.setNeedsFrame()
    }

    /// Handles scrolling input; returns whether it was used.
    @discardableResult
    func handle(_ event: InputEvent, at time: TimeInterval) -> Bool {
        if case .resized = event {
            setNeedsRelayout()
            return true
        }
        let used = scroll.handle(event, at: time)
        if used || scroll.needsFrames(at: time) { app.runLoop.setNeedsFrame() }
        if case .pointerMoved = event { app.runLoop.setNeedsFrame() } // the scrollbar may widen
        return used
    }

    // MARK: Each turn

    private func update(_ turn: Canopy.RunLoop.Turn) {
        if let anchor = pendingRelayout {
            pendingRelayout = nil
            relayout(keeping: anchor)
        }
        if let script = scriptedOffset {
            scroll.physics.setOffset(script(turn.time), at: turn.time)
        } else {
            scroll.step(to: turn.time)
        }
        if scroll.needsFrames(at: turn.time) { app.runLoop.setNeedsFrame() }
        if textScale != app.scale {
            textScale = app.scale
            textBitmaps.removeAll()
            for layer in cardLayers.values { layer.removeFromSuperlayer() }
            cardLayers.removeAll()
        }
        contentLayer.boundsOrigin = CGPoint(x: 0, y: scroll.offset)
        let visible = visibleIndices
        let keep = Set(visible)
        for (index, layer) in cardLayers where !keep.contains(index) {
            layer.removeFromSuperlayer()
            cardLayers[index] = nil
        }
        var ordered: [Layer] = []
        ordered.reserveCapacity(visible.count)
        for index in visible {
            let layer = cardLayers[index] ?? makeCardLayer(index)
            cardLayers[index] = layer
            ordered.append(layer)
        }
        contentLayer.setSublayers(ordered)
        updateScrollbar(at: turn.time)
    }

    private func makeCardLayer(_ index: Int) -> Layer {
        let frame = layout.frames[index]
        let entry = deck.entry(at: index)
        let card = Layer(frame: frame)
        card.name = entry.card.name
        card.backgroundColor = Self.placeholderColor
        card.clipsToBounds = true
        let label = Layer()
        if let name = text(entry.card.name, font: Self.nameFont) {
            let size = name.size
            label.frame = CGRect(x: ((frame.width - size.width) / 2).rounded(), y: ((frame.height - size.height) / 2).rounded(),
                                 width: size.width, height: size.height)
            label.contents = name
        }
        card.addSublayer(label)
        if case .failure(let error) = entry.imageSize, let note = text(error.description, font: Self.noteFont) {
            let size = note.size
            let noteLayer = Layer(frame: CGRect(x: max(8, ((frame.width - size.width) / 2).rounded()),
                                                y: label.frame.maxY + 8, width: size.width, height: size.height))
            noteLayer.contents = note
            card.addSublayer(noteLayer)
        }
        return card
    }

    /// A line of placeholder text, rendered once per string at the window's pixel density.
    private func text(_ string: String, font: Font) -> Bitmap? {
        let key = "\(font.size)|\(font.weight.rawValue)|\(string)"
        if let hit = textBitmaps[key] { return hit }
        let bitmap = try? fonts.renderLine(string, font: font, color: Self.placeholderTextColor, scale: app.scale)
        textBitmaps[key] = bitmap
        return bitmap
    }

    private func updateScrollbar(at time: TimeInterval) {
        let viewport = CGRect(origin: .zero, size: app.size)
        guard let thumb = scroll.indicator.thumbRect(viewport: viewport, physics: scroll.physics) else {
            scrollbarLayer.isHidden = true
            return
        }
        scrollbarLayer.isHidden = false
        scrollbarLayer.frame = thumb
        scrollbarLayer.cornerRadius = thumb.width / 2
        scrollbarLayer.alpha = scroll.indicator.opacity(at: time, physics: scroll.physics) * 0.85
        scrollbarLayer.backgroundColor = scroll.indicator.isDragging ? Color(white: 0.75) : Color(white: 0.55)
    }

    // MARK: Geometry

    private func applyGeometry() {
        viewportLayer.frame = CGRect(origin: .zero, size: app.size)
        contentLayer.frame = CGRect(origin: .zero, size: CGSize(width: app.size.width, height: layout.contentHeight))
        scroll.setGeometry(viewport: CGRect(origin: .zero, size: app.size), contentHeight: layout.contentHeight)
    }

    /// Asks for the grid to be laid out again for the window's new size, once, in the next
    /// layout phase (a window being dragged larger sends many resizes a frame), keeping the
    /// card that was at the top of the window there, at the same distance from the top.
    func setNeedsRelayout() {
        if pendingRelayout == nil {
            pendingRelayout = .some(layout.anchor(atOffset: scroll.offset, viewport: scroll.viewport.size))
        }
        app.runLoop.setNeedsFrame()
    }

    private func relayout(keeping anchor: ColumnLayout.Anchor?) {
        layout = columnLayout.layout(heights: heights, width: app.size.width)
        for layer in cardLayers.values { layer.removeFromSuperlayer() }
        cardLayers.removeAll()
        applyGeometry()
        if let anchor {
            scroll.physics.setOffset(layout.offset(keeping: anchor), at: MonotonicClock.now())
        }
    }
}
