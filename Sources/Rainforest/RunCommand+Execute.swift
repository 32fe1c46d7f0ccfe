import Canopy
import CanopySDL
import Foundation

extension RunCommand {
    /// The keys, as the help overlay lists them.
    static let helpEntries: [HelpEntry] = [
        HelpEntry("Wheel, trackpad", "scroll (clicks animate; trackpads fling when you let go)"),
        HelpEntry("Drag", "scroll with the left button, fling on release"),
        HelpEntry("Scrollbar", "drag the thumb, click the track to page"),
        HelpEntry("↑ ↓", "scroll a little"),
        HelpEntry("Page Up, Page Down", "scroll a page"),
        HelpEntry("Space, Shift+Space", "page down, page up"),
        HelpEntry("Home, End", "to the first card, to the last"),
        HelpEntry("Click ♥", "favourite a card (its tappable area reaches 16 pt around the heart)"),
        HelpEntry("F", "FPS overlay: frame rate and main-thread time graph"),
        HelpEntry("H", "hit-test slop: where each control takes the pointer"),
        HelpEntry("S", "image scaling: image pixels over drawn pixels, where they differ"),
        HelpEntry("R", "ranges: cells tinted by range, and a map of the viewport, display and preload ranges"),
        HelpEntry("F1, ?", "this help"),
        HelpEntry("Escape, Ctrl+Q", "quit"),
    ]

    @MainActor
    func execute() throws {
        let session = try Session(collection: collection, headless: false)
        let app = session.app, viewer = session.viewer
        let shown = overlays ?? [.fps]
        session.show(shown)
        app.helpEntries = Self.helpEntries
        let total = session.content.deck.itemCount
        func updateTitle() {
            // ASCII only: SDL's X11 backend passes the title through the C library's locale.
            app.title = "Rainforest - \(total) cards" + (app.showsFPS ? " - FPS overlay" : "")
                + (app.showsHitTestSlop ? " - hit-test slop" : "") + (app.showsImageScaling ? " - image scaling" : "")
                + (app.showsRanges ? " - ranges" : "")
        }
        updateTitle()
        app.statusLines = {
            let loaded = viewer.itemCount
            return [loaded == total ? "\(total.formatted()) cards" : "\(loaded.formatted()) of \(total.formatted()) cards loaded"]
                + (app.showsHitTestSlop ? ["hit-test slop (H)"] : [])
                + (app.showsImageScaling ? ["image scaling (S)"] : []) + (app.showsRanges ? ["ranges (R)"] : [])
        }
        app.eventHandler = { event, time in
            if case .text("?") = event {
                app.showsHelp.toggle()
                return
            }
            if case .key(let key) = event, key.isDown, !key.isRepeat {
                switch key.key {
                case .escape:
                    if app.showsHelp { app.showsHelp = false } else { app.quit() }
                    return
                case .character("q") where key.modifiers.contains(.control):
                    app.quit()
                    return
                case .character("f") where key.modifiers.isEmpty:
                    app.showsFPS.toggle()
                    updateTitle()
                    return
                case .character("h") where key.modifiers.isEmpty:
                    app.showsHitTestSlop.toggle()
                    updateTitle()
                    return
                case .character("s") where key.modifiers.isEmpty:
                    app.showsImageScaling.toggle()
                    updateTitle()
                    return
                case .character("r") where key.modifiers.isEmpty:
                    app.showsRanges.toggle()
                    updateTitle()
                    return
                case .function(1):
                    app.showsHelp.toggle()
                    return
                default:
                    break
                }
            }
            viewer.handle(event, at: time)
        }
        app.run()
        app.close()
    }
}
