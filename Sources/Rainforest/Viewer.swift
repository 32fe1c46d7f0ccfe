import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// The card collection on screen: the tutorial's column grid in a scrolling viewport, one
/// `CardCellNode` per visible card (drawn on the display workers, one texture each), the overlay
/// scrollbar, and pointer input routed to the cards' controls.
///
/// Cards are made when they scroll into view and dropped when they leave (preloading ahead of
/// the viewport is the range controller's work, still to come).
@MainActor
final class Viewer {
    let deck: CardDeck
    let heights: [CGFloat]
    let columnLayout = ColumnLayout()
    private(set) var layout: CollectionLayoutResult
    var scroll = ScrollController()
    /// When set, the scroll offset follows this script instead of input (the benchmark).
    var scriptedOffset: ((TimeInterval) -> CGFloat)?
    /// The node every card is a subnode of (its frame is the content's size); the overlays and the
    /// input router work on it.
    let contentNode = DisplayNode()
    let router: NodeInputRouter

    private let app: Application
    private let resources: Resources
    private let viewportLayer = Layer()
    private let scrollbarLayer = Layer()
    private var cards: [Int: CardCellNode] = [:]
    /// The items whose heart is on; kept here, as a card lives only while it is on screen.
    private(set) var favourites: Set<Int> = []
    private var cardScale: CGFloat = 0
    /// Set by a resize: the grid is laid out again once, in the next layout phase, keeping
    /// this place (taken from the layout the reader saw).
    private var pendingRelayout: CollectionAnchor??

    init(app: Application, deck: CardDeck, resources: Resources) {
        self.app = app
        self.deck = deck
        self.resources = resources
        heights = deck.heights
        layout = columnLayout.layout(heights: heights, width: app.size.width)
        router = NodeInputRouter(rootNode: contentNode)
        DisplayScheduler.shared.install(on: app.runLoop, scale: app.scale)
        viewportLayer.clipsToBounds = true
        viewportLayer.name = "viewport"
        contentNode.name = "content"
        viewportLayer.addSublayer(contentNode.layer)
        scrollbarLayer.name = "scrollbar"
        scrollbarLayer.backgroundColor = Color(white: 0.55)
        app.rootLayer.setSublayers([viewportLayer, scrollbarLayer])
        app.overlayRootNode = contentNode
        applyGeometry()
        app.runLoop.addObserver(.layout) { [unowned self] turn in self.update(turn) }
    }

    /// The number of items in the collection.
    var itemCount: Int { heights.count }

    /// The indices of the items inside the viewport now.
    var visibleIndices: [Int] {
        layout.indices(intersecting: CGRect(x: 0, y: scroll.offset, width: app.size.width, height: app.size.height))
    }

    /// The card node of a visible item.
    func card(at index: Int) -> CardCellNode? { cards[index] }

    /// Whether every visible card is on screen whole: displayed, uploaded, its placeholder gone.
    var isDisplayComplete: Bool {
        visibleIndices.allSatisfy { index in
            guard let card = cards[index], let layer = card.layerIfLoaded else { return false }
            return card.isSubtreeDisplayed && !card.isShowingPlaceholder && LayerAnimator.isPresented(layer)
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
        switch event {
        case .pointerMoved, .pointerDown, .pointerUp, .pointerExited:
            // A press on a control belongs to it, not to drag-scrolling.
            let routed = router.handle(event)
            app.cursor = router.wantsHandCursor ? .hand : .arrow
            if routed || router.trackedControl != nil {
                app.runLoop.setNeedsFrame()
                return true
            }
        default:
            break
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
        if cardScale != app.scale {
            // New pixel density: new cards (their icons and contents are drawn for it).
            cardScale = app.scale
            DisplayScheduler.shared.scale = app.scale
            for card in cards.values { card.removeFromSupernode() }
            cards.removeAll()
        }
        viewportLayer.boundsOrigin = CGPoint(x: 0, y: scroll.offset)
        let visible = visibleIndices
        let keep = Set(visible)
        for (index, card) in cards where !keep.contains(index) {
            card.removeFromSupernode()
            cards[index] = nil
        }
        for index in visible where cards[index] == nil {
            let card = makeCard(index)
            cards[index] = card
            contentNode.addSubnode(card)
        }
        router.revalidate()
        app.cursor = router.wantsHandCursor ? .hand : .arrow
        updateScrollbar(at: turn.time)
    }

    private func makeCard(_ index: Int) -> CardCellNode {
        let entry = deck.entry(at: index)
        let card = CardCellNode(index: index, entry: entry, imagePath: resources.imageURL(entry.card.image).path,
                                scale: app.scale, isFavourite: favourites.contains(index)) { [weak self] isFavourite in
            if isFavourite { self?.favourites.insert(index) } else { self?.favourites.remove(index) }
        }
        card.frame = layout.frames[index]
        card.layoutAndApply(SizeRange(exactly: layout.frames[index].size))
        return card
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
        contentNode.frame = CGRect(origin: .zero, size: CGSize(width: app.size.width, height: layout.contentHeight))
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

    private func relayout(keeping anchor: CollectionAnchor?) {
        layout = columnLayout.layout(heights: heights, width: app.size.width)
        // Columns are 320 pt wide whatever the window, so a card keeps its size and only moves:
        // moved, it keeps its contents (made again, it would show its placeholder and be laid
        // out and drawn again). The next update drops the cards that left the viewport.
        for (index, card) in cards {
            let frame = layout.frames[index]
            if frame.size == card.frame.size {
                card.frame = frame
            } else {
                card.removeFromSupernode()
                cards[index] = nil
            }
        }
        applyGeometry()
        if let anchor {
            scroll.physics.setOffset(layout.offset(keeping: anchor), at: MonotonicClock.now())
        }
    }
}
