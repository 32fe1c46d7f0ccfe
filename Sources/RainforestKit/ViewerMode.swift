import ArgumentParser
import Canopy
import Foundation

/// How the viewer makes its cards: Canopy's way (the default), or one of the modes that show
/// what Canopy does by taking part of it away. The keys M, P, A and D switch them live;
/// `--mode` sets them at start.
struct ViewerMode: Equatable, Sendable, CustomStringConvertible {
    /// The tutorial's starter app: no preloading (every range is the viewport), and each card made,
    /// decoded, blurred and drawn on the main thread when it becomes visible. Same card code:
    /// `displaysAsynchronously` false, zero range parameters, cells made on the main thread.
    var mainThread = false
    /// The card stops rasterizing its subtree: each node gets its own layer and texture and the
    /// parts pop in one by one, in no transaction and behind no placeholder.
    var popcorn = false
    /// Cards fade in over 0.6 s when their contents arrive.
    var fadesIn = true
    /// Asynchronous displays run one at a time, each 100 ms slower, to watch placeholders and
    /// cancellation (main-thread mode has none to slow).
    var slowDraw = false

    static let slowDrawDelay: TimeInterval = 0.1

    /// The names `--mode` takes, and the window title and the FPS overlay show.
    var names: [String] {
        [mainThread ? "main-thread" : "async"] + (popcorn ? ["popcorn"] : []) + (fadesIn ? [] : ["no-fade"])
            + (slowDraw ? ["slow-draw"] : [])
    }

    var description: String { names.joined(separator: ",") }

    /// Parses "main-thread,popcorn", "async,no-fade,slow-draw", ... (`sync` is `main-thread`).
    static func parse(_ text: String) throws -> ViewerMode {
        var mode = ViewerMode()
        for name in text.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            switch name {
            case "async": mode.mainThread = false
            case "main-thread", "sync": mode.mainThread = true
            case "popcorn": mode.popcorn = true
            case "no-fade": mode.fadesIn = false
            case "fade": mode.fadesIn = true
            case "slow-draw": mode.slowDraw = true
            default:
                throw ValidationError("unknown mode '\(name)'; choose from async, main-thread, popcorn, no-fade, slow-draw")
            }
        }
        return mode
    }
}

extension CardNode {
    /// Sets the card up for a viewer mode (before it joins the tree; any thread).
    func apply(_ mode: ViewerMode) {
        if mode.popcorn {
            rasterizesSubtree = false
            isTransactionContainer = false
            placeholderEnabled = false
        }
        if !mode.fadesIn {
            contentsFadeDuration = 0
            placeholderFadeDuration = 0
        }
        if mode.mainThread {
            displaysAsynchronously = false
            // Every node that draws, the button's own parts included (in popcorn mode each has a layer).
            for part in [
                background, photo, gradient, title, details, credit, favourite,
                favourite.imageNode, favourite.titleNode, favourite.backgroundImageNode,
            ] as [DisplayNode] {
                part.displaysAsynchronously = false
            }
        }
    }
}
