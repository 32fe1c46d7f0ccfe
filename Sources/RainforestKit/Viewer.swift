import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// The card collection on screen: a `CollectionNode` filling the window, in the tutorial's
/// columns, whose cells are `CardNode`s made, measured and drawn on the display workers as
/// the range controller asks (`CardSource`), with pointer input routed to the cards' controls
/// first and to scrolling and selection after.
@MainActor
final class Viewer {
    /// How the collection places its cards (also how the first screen is worked out before the
    /// window exists: `FirstScreenDecodes`).
    nonisolated static let layout = ColumnLayout()
    let collection = CollectionNode(layout: Viewer.layout)
    /// The cards shown: the session's, until files are dropped on the window (`open(_:)`).
    private(set) var source: CardSource
    /// Runs after `open(_:)` has put a new source in place (to follow its counts, say).
    var sourceDidChange: (@MainActor () -> Void)?
    private let favouritesStore: FavouritesStore?
    private let pageSize: Int
    /// Whether a folder or files dropped on the window read and write the desktop's thumbnails
    /// (what `--no-thumbnails` turns off).
    var sharesThumbnails = true
    let router: NodeInputRouter
    /// When set, the scroll offset follows this script instead of input (the benchmark); it is
    /// given the turn's time and returns the offset.
    var scriptedOffset: ((TimeInterval) -> CGFloat)?

    private let app: Application
    private var cardScale: CGFloat
    /// The slow-draw mode's hook, installed on the display scheduler while the mode is on.
    let slowDraw = SlowDraw(delay: ViewerMode.slowDrawDelay)

    /// How the cards are made (M, P, A, D): setting it reconfigures the collection and reloads
    /// the cards, whose old contents stay on screen until the new ones have displayed.
    var mode = ViewerMode() {
        didSet {
            guard mode != oldValue else { return }
            applyMode()
            if mode.mainThread != oldValue.mainThread || mode.popcorn != oldValue.popcorn || mode.fadesIn != oldValue.fadesIn {
                collection.reloadData()
            }
        }
    }

    /// The embedded cards.
    convenience init(
        app: Application, deck: CardDeck, resources: Resources, pageSize: Int = CardSource.defaultPageSize,
        favouritesStore: FavouritesStore? = nil
    ) {
        self.init(
            app: app, provider: DeckCards(deck: deck, resources: resources), pageSize: pageSize,
            favouritesStore: favouritesStore)
    }

    init(
        app: Application, provider: any CardProvider, pageSize: Int = CardSource.defaultPageSize,
        favouritesStore: FavouritesStore? = nil
    ) {
        self.app = app
        self.favouritesStore = favouritesStore
        self.pageSize = pageSize
        source = CardSource(provider: provider, pageSize: pageSize, favouritesStore: favouritesStore)
        source.scale = app.scale
        cardScale = app.scale
        router = NodeInputRouter(rootNode: collection)
        DisplayScheduler.shared.install(on: app.runLoop, scale: app.scale)
        collection.name = "cards"
        collection.frame = CGRect(origin: .zero, size: app.size)
        collection.dataSource = source
        collection.delegate = source
        applyMode()
        app.rootLayer.setSublayers([collection.layer])
        app.overlayRootNode = collection
        app.rangeOverlaySource = { [collection] in collection.rangeOverlaySnapshot() }
        // Before the collection's own update in the same phase: the script and the scale.
        app.runLoop.addObserver(.layout, order: -1) { [unowned self] turn in self.update(turn) }
    }

    /// The number of cards the collection holds now (it grows by pages up to `--cards`, or to
    /// every file of the `--images` folder).
    var itemCount: Int { collection.numberOfItems }

    /// The items inside the viewport now.
    var visibleIndices: [Int] { collection.visibleItemIndices }

    /// The card node of an item, while it has one.
    func card(at index: Int) -> CardNode? { collection.nodeForItem(at: index) as? CardNode }

    /// The items whose heart is on.
    var favourites: Set<Int> { source.favourites }

    /// Whether every visible card is displayed: drawn and uploaded, its placeholder gone or
    /// fading out over it.
    var isDisplayComplete: Bool { !visibleIndices.isEmpty && collection.isVisibleContentDisplayed }

    /// Whether every visible card is on screen whole and still: displayed, its placeholder gone,
    /// its fade over and its photo from the file, not the thumbnail the file embeds (what a
    /// screenshot waits for).
    /// A collection with nothing to show (a folder that turned out empty, or could not be
    /// listed) is settled once it knows.
    var isSettled: Bool {
        if itemCount == 0 && source.isComplete { return true }
        return isDisplayComplete
            && visibleIndices.allSatisfy { index in
                guard let card = card(at: index), let layer = card.layerIfLoaded else { return false }
                return !card.isShowingPlaceholder && layer.fadeOpacity >= 1 && LayerAnimator.isPresented(layer)
                    && !card.photo.isShowingEmbeddedThumbnail && !card.background.isShowingEmbeddedThumbnail
            }
    }

    /// Whether every visible card is displayed and shows its photo from the file (or a desktop
    /// thumbnail), not the thumbnail the file embeds (`showsEmbeddedThumbnailFirst`).
    var isDisplayCompleteFromFiles: Bool {
        isDisplayComplete
            && visibleIndices.allSatisfy { index in
                guard let card = card(at: index) else { return false }
                return !card.photo.isShowingEmbeddedThumbnail && !card.background.isShowingEmbeddedThumbnail
            }
    }

    /// Jumps to an offset (clamped), with no animation.
    func scroll(to offset: CGFloat) {
        collection.layoutIfNeeded()
        collection.setContentOffset(offset)
    }

    /// Handles input; returns whether it was used.
    @discardableResult
    func handle(_ event: InputEvent, at time: TimeInterval) -> Bool {
        if case .resized(let size, _) = event {
            collection.frame = CGRect(origin: .zero, size: size)
            app.runLoop.setNeedsFrame()
            return true
        }
        if case .filesDropped(let paths) = event {
            return open(paths)
        }
        switch event {
        case .pointerMoved, .pointerDown, .pointerUp, .pointerExited:
            // A press on a control belongs to it, not to drag-scrolling or selection.
            let routed = router.handle(event)
            app.cursor = router.wantsHandCursor ? .hand : .arrow
            if routed || router.trackedControl != nil {
                app.runLoop.setNeedsFrame()
                return true
            }
        default:
            break
        }
        return collection.handle(event, at: time)
    }

    /// Shows what was dropped on the window, as a desktop viewer does: a folder (the first one,
    /// when only folders came) as `--images` shows it, or the image files dropped, in the
    /// order given, as cards of their own (folders among files are left out). Scrolls to the
    /// top. Returns false, changing nothing, when nothing dropped can be shown (no such files).
    @discardableResult
    func open(_ paths: [String]) -> Bool {
        guard let provider = ImageFolder.opening(paths) else { return false }
        if ImageCache.shared.thumbnails == nil, sharesThumbnails {
            ImageCache.shared.thumbnails = Content.thumbnails()
        }
        source = CardSource(provider: provider, pageSize: pageSize, favouritesStore: favouritesStore)
        source.scale = cardScale
        source.mode = mode
        collection.dataSource = source
        collection.delegate = source
        collection.setContentOffset(0)
        collection.reloadData()
        sourceDidChange?()
        app.runLoop.setNeedsFrame()
        return true
    }

    private func applyMode() {
        source.mode = mode
        collection.rangeTuning = mode.mainThread ? .zero : RangeTuning()
        collection.allocatesCellsAsynchronously = !mode.mainThread
        slowDraw.isOn = mode.slowDraw
        DisplayScheduler.shared.drawHook = mode.slowDraw ? slowDraw : nil
    }

    private func update(_ turn: FrameLoop.Turn) {
        if let script = scriptedOffset {
            collection.setContentOffset(script(turn.time))
        }
        if cardScale != app.scale {
            // New pixel density: new cards (their icons and contents are drawn for it); the old
            // ones stay on screen until the new ones have displayed.
            cardScale = app.scale
            source.scale = app.scale
            DisplayScheduler.shared.scale = app.scale
            collection.reloadData()
        }
        router.revalidate()
        app.cursor = router.wantsHandCursor ? .hand : .arrow
    }
}
