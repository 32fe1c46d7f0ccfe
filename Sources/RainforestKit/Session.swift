import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// The cards and what they need: the resources folder, the fonts registered, the deck with
/// every photo's size, and the `--images` folder when one is given (the collection shows it
/// instead of the deck; the benchmarks that draw one card still use the deck). No window.
struct Content {
    let resources: Resources
    let deck: CardDeck
    /// The folder of images to show, absolute; nil: the embedded cards.
    var images: URL?
    /// Photos or folders to show instead, as a file manager passes them (`rainforest run PATH...`).
    var opened: [String]?

    static func load(_ collection: CollectionOptions) throws(UserFacingError) -> Content {
        // Before any header is read: the cards of larger images are error cards.
        ImageDecoder.pixelLimit = collection.pixelLimit
        let resources: Resources
        do {
            resources = try Resources.locate(override: collection.resources)
        } catch {
            throw UserFacingError(message: error.message)
        }
        let deck: CardDeck
        do {
            deck = try CardDeck.load(resources: resources, itemCount: collection.cards)
        } catch {
            throw UserFacingError(message: error.description)
        }
        // Usable but odd (an unknown field, a repeated name): one line each, and the cards shown.
        for warning in deck.warnings {
            FileHandle.standardError.write(Data("rainforest: \(warning)\n".utf8))
        }
        if FontRegistry.shared.registerFonts(inDirectory: resources.fontsDirectory.path) == 0 {
            throw UserFacingError(message: "\(resources.fontsDirectory.path): no fonts found (expected Lato-*.ttf)")
        }
        // Canopy names no font of its own: the text that names none (the image node's error
        // state, button titles) is in Rainforest's Lato.
        FontRegistry.shared.defaultFamily = RainforestFonts.family
        var images: URL?
        if let path = collection.images {
            do {
                images = try ImageFolder.check(path)
            } catch {
                throw UserFacingError(message: error.description)
            }
        }
        // A folder of the user's photos: through the thumbnails file managers share, so that a
        // second look at a folder of camera photos decodes none of them.
        ImageCache.shared.thumbnails =
            images != nil && collection.thumbnails
            ? Content.thumbnails() : nil
        return Content(resources: resources, deck: deck, images: images)
    }

    /// The variable that moves Rainforest's thumbnails away from the desktop's (for the bench:
    /// a first launch without touching the other caches under XDG_CACHE_HOME, which fontconfig
    /// and Mesa keep there too).
    static let thumbnailsVariable = "RAINFOREST_THUMBNAILS_DIR"

    /// The thumbnails Rainforest reads and writes: the desktop's (`Thumbnails.standardRoot`), or
    /// the folder RAINFOREST_THUMBNAILS_DIR names.
    static func thumbnails(environment: [String: String] = ProcessInfo.processInfo.environment) -> Thumbnails {
        let root = environment[thumbnailsVariable].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
        return Thumbnails(root: root ?? Thumbnails.standardRoot(environment: environment), software: "rainforest")
    }

    /// A new provider of the collection's cards (each window starts from the first page).
    func makeProvider() -> any CardProvider {
        if let opened, let provider = ImageFolder.opening(opened) { return provider }
        if let images { return ImageFolder(url: images) }
        return DeckCards(deck: deck, resources: resources)
    }

    /// What the collection shows, for a report: "1000 cards", "the files in /home/me/Pictures".
    var summary: String {
        images.map { "the files in \($0.path)" } ?? "\(deck.itemCount) cards"
    }
}

/// What every windowed or headless command sets up: the content, the application and the
/// viewer on it.
@MainActor
struct Session {
    let content: Content
    let app: Application
    let viewer: Viewer
    /// The first screen's photos being decoded ahead, if they are (`decodesAhead`).
    let firstScreenDecodes: FirstScreenDecodes.Handle?

    static let defaultSize = WindowSize(width: 1280, height: 800)
    /// The face of the debug overlays: the app's own Lato, registered with the cards' fonts.
    static let overlayFont = Font(family: "Lato", size: 14)

    /// `favourites`: where hearts are remembered across runs (the `run` command's; nil keeps them
    /// for this session only).
    /// `rendering`: the pixel scale and frame rate of a headless session (nil: 1x at 60 Hz, or
    /// the display's own in a window).
    /// `decodesAhead`: whether the first screen's photos are decoded while the window is made
    /// (`FirstScreenDecodes`); not for a session that starts in main-thread mode, the tutorial's
    /// starter app, which decodes each photo on the main thread when its card shows.
    init(
        collection: CollectionOptions, headless: Bool, rendering: HeadlessOptions? = nil, title: String = "Rainforest",
        content preloaded: Content? = nil, favourites: FavouritesStore? = nil, decodesAhead: Bool = true
    ) throws(UserFacingError) {
        if let preloaded {
            content = preloaded
        } else {
            content = try Content.load(collection)
        }
        let size = collection.size ?? Self.defaultSize
        // One provider for the decodes ahead and the viewer: a folder's first files, read on the
        // decoding thread, are then the viewer's first batch, with no page of headers to wait for.
        let provider = content.makeProvider()
        // The first screen's photos decode on the idle core while the window is made (the
        // decoders need the graphics library first; the application reports its failure).
        if decodesAhead, (try? GraphicsLibrary.initialize()) != nil,
            let scale = FirstScreenDecodes.knownScale(
                headless: headless, rendering: rendering, environment: ProcessInfo.processInfo.environment)
        {
            firstScreenDecodes = FirstScreenDecodes.start(
                provider: provider, pageSize: collection.pageSize, size: size.cgSize, scale: scale)
        } else {
            firstScreenDecodes = nil
        }
        do {
            app = try Application(
                options: .init(
                    title: title, size: size.cgSize, overlayFont: Self.overlayFont,
                    minimumSize: WindowSize.minimum.cgSize, headless: headless,
                    pixelScale: rendering.map { CGFloat($0.scale) }, refreshRate: rendering?.refresh))
        } catch {
            firstScreenDecodes?.cancel()
            throw UserFacingError(message: error.message, status: 1)
        }
        viewer = Viewer(
            app: app, provider: provider, pageSize: collection.pageSize,
            favouritesStore: favourites)
        viewer.sharesThumbnails = collection.thumbnails
    }

    /// Turns the app until `done` (by default: every visible card is displayed), or until
    /// `timeout` seconds have passed; whether it came.
    func settle(timeout: TimeInterval, until done: (Viewer) -> Bool = { $0.isDisplayComplete }) -> Bool {
        let start = MonotonicClock.now()
        while MonotonicClock.now() - start < timeout {
            app.runTurn()
            if done(viewer) { return true }
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        return false
    }

    /// Turns on exactly the debug overlays named (`--overlays`).
    func show(_ overlays: [OverlayName]) {
        app.showsFPS = overlays.contains(.fps)
        app.showsHitTestSlop = overlays.contains(.hitslop)
        app.showsImageScaling = overlays.contains(.scaling)
        app.showsRanges = overlays.contains(.ranges)
    }
}
