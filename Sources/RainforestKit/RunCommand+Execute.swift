import Canopy
import CanopyGraphics
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
        HelpEntry("Click a card", "select it"),
        HelpEntry("Drop files, a folder", "show those photos, or that folder's"),
        HelpEntry("F", "FPS overlay: frame rate and main-thread time graph"),
        HelpEntry("H", "hit-test slop: where each control takes the pointer"),
        HelpEntry("R", "ranges: cells tinted by range, and a map of the viewport, display and preload ranges"),
        HelpEntry("S", "image scaling: image pixels over drawn pixels, where they differ"),
        HelpEntry("M", "main-thread mode: every card made and drawn on the main thread, no preloading"),
        HelpEntry("P", "popcorn mode: each part of a card on its own layer, popping in as it is drawn"),
        HelpEntry("A", "fade-in of arriving cards, on or off"),
        HelpEntry("D", "slow-draw mode: one asynchronous display at a time, 100 ms slower each"),
        HelpEntry("G", "pause animated GIFs and WebPs, and play them again"),
        HelpEntry("T", "start a trace, and stop it: writes Chrome trace JSON (open it in Perfetto)"),
        HelpEntry("F12", "write a screenshot PNG in the current folder"),
        HelpEntry("F1, ?", "this help"),
        HelpEntry("Escape, Ctrl+Q", "quit"),
    ]

    @MainActor
    func execute() throws {
        var content = try Content.load(collection)
        if !paths.isEmpty {
            content.opened = paths
            if collection.thumbnails {
                ImageCache.shared.thumbnails = Content.thumbnails()
            }
        }
        let session = try Session(
            collection: collection, headless: false, content: content, favourites: .standard(),
            decodesAhead: !mode.mainThread)
        let app = session.app, viewer = session.viewer
        let shown = overlays ?? [.fps]
        session.show(shown)
        viewer.mode = mode
        app.helpEntries = Self.helpEntries
        var message: String?
        let trace = TraceController()
        func updateTitle() {
            // ASCII only: SDL's X11 backend passes the title through the C library's locale.
            let overlays = [
                (app.showsFPS, "FPS"), (app.showsHitTestSlop, "hit-test slop"), (app.showsRanges, "ranges"),
                (app.showsImageScaling, "image scaling"),
            ].filter(\.0).map(\.1)
            app.title =
                "Rainforest - \(viewer.source.titleSummary) - \(viewer.mode.names.joined(separator: " + "))"
                + (overlays.isEmpty ? "" : " - " + overlays.joined(separator: ", "))
        }
        updateTitle()
        viewer.source.countsDidChange = updateTitle  // a folder's count is known after its first page
        viewer.sourceDidChange = {  // files dropped on the window
            viewer.source.countsDidChange = updateTitle
            updateTitle()
        }
        app.statusLines = {
            [viewer.source.statusLine, "mode: \(viewer.mode.names.joined(separator: " + "))"]
                + (app.showsHitTestSlop ? ["hit-test slop (H)"] : [])
                + (app.showsImageScaling ? ["image scaling (S)"] : []) + (app.showsRanges ? ["ranges (R)"] : [])
                + (DisplayScheduler.shared.imageAnimations?.isPaused == true ? ["animations paused (G)"] : [])
                + (trace.isRecording ? ["tracing (T)"] : []) + (message.map { [$0] } ?? [])
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
                case .character(let c) where key.modifiers.isEmpty && "fhrsmpad".contains(c):
                    switch c {
                    case "f": app.showsFPS.toggle()
                    case "h": app.showsHitTestSlop.toggle()
                    case "r": app.showsRanges.toggle()
                    case "s": app.showsImageScaling.toggle()
                    case "m": viewer.mode.mainThread.toggle()
                    case "p": viewer.mode.popcorn.toggle()
                    case "a": viewer.mode.fadesIn.toggle()
                    default: viewer.mode.slowDraw.toggle()
                    }
                    updateTitle()
                    app.runLoop.setNeedsFrame()
                    return
                case .character("g") where key.modifiers.isEmpty:
                    if let animations = DisplayScheduler.shared.imageAnimations { animations.isPaused.toggle() }
                    app.runLoop.setNeedsFrame()
                    return
                case .character("t") where key.modifiers.isEmpty:
                    message = trace.toggle()
                    print(message ?? "")
                    app.runLoop.setNeedsFrame()
                    return
                case .function(1):
                    app.showsHelp.toggle()
                    return
                case .function(12):
                    message = Self.writeScreenshot(app)
                    print(message ?? "")
                    app.runLoop.setNeedsFrame()
                    return
                default:
                    break
                }
            }
            viewer.handle(event, at: time)
        }
        app.run()
        if trace.isRecording { print(trace.toggle()) }
        app.close()
    }

    /// Writes the last frame as `rainforest-YYYYMMDD-HHMMSS.png` in the current folder; returns
    /// what it did, for the status line.
    @MainActor
    static func writeScreenshot(_ app: Application) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let stem = FileManager.default.currentDirectoryPath + "/rainforest-\(formatter.string(from: Date()))"
        // Two in the same second: -2, -3, ... rather than overwriting.
        var path = stem + ".png", number = 1
        while FileManager.default.fileExists(atPath: path) {
            number += 1
            path = stem + "-\(number).png"
        }
        guard let frame = app.captureFrame() else { return "screenshot: could not read the frame back" }
        do {
            try frame.writePNG(to: path)
            return "wrote \(path)"
        } catch {
            return "screenshot: \(error.description)"
        }
    }
}
