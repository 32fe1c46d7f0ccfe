import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// What every command sets up: the resources, the fonts, the cards, the application and the
/// viewer on it.
@MainActor
struct Session {
    let resources: Resources
    let deck: CardDeck
    let app: Application
    let viewer: Viewer

    static let defaultSize = WindowSize(width: 1280, height: 800)

    init(collection: CollectionOptions, headless: Bool, title: String = "Rainforest") throws(UserFacingError) {
        do {
            resources = try Resources.locate(override: collection.resources)
        } catch {
            throw UserFacingError(message: error.message)
        }
        do {
            deck = try CardDeck.load(resources: resources, itemCount: collection.cards)
        } catch {
            throw UserFacingError(message: error.description)
        }
        if FontRegistry.shared.registerFonts(inDirectory: resources.fontsDirectory.path) == 0 {
            throw UserFacingError(message: "\(resources.fontsDirectory.path): no fonts found (expected Lato-*.ttf)")
        }
        let size = collection.size ?? Self.defaultSize
        do {
            app = try Application(options: .init(title: title, size: size.cgSize, headless: headless))
        } catch {
            throw UserFacingError(message: error.message, status: 1)
        }
        viewer = Viewer(app: app, deck: deck)
    }
}
